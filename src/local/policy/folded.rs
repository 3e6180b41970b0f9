//! Text as a reader sees it: what an injection hides from a pattern — invisible characters
//! inside a word (`Ign\u{200B}ore`), letters from another script that look the same (Cyrillic
//! `о` for `o`), fullwidth forms — folded away before injection signs are looked for (SPEC 2.5).

use std::borrow::Cow;

/// `text` with invisible characters dropped and look-alike letters mapped to ASCII; borrowed
/// when it is ASCII already (every command and most text).
pub fn folded(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if invisible(c) {
            continue;
        }
        out.push(look_alike(c).unwrap_or(c));
    }
    Cow::Owned(out)
}

/// Characters that render as nothing (or nearly): zero-width spaces and joiners, the word
/// joiner and invisible operators, the byte-order mark, the soft hyphen, bidirectional
/// controls, the Mongolian vowel separator, variation selectors and tag characters.
fn invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}'
        | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}'
        | '\u{3164}' | '\u{FEFF}' | '\u{FFA0}'
        | '\u{FE00}'..='\u{FE0F}'
        | '\u{E0000}'..='\u{E007F}'
        | '\u{E0100}'..='\u{E01EF}')
}

/// The ASCII letter a character is drawn like: fullwidth forms, and the Cyrillic and Greek
/// letters that share a Latin glyph.
fn look_alike(c: char) -> Option<char> {
    let n = c as u32;
    if (0xFF01..=0xFF5E).contains(&n) {
        return char::from_u32(n - 0xFF01 + 0x21);
    }
    Some(match c {
        'а' => 'a',
        'А' => 'A',
        'в' => 'B',
        'В' => 'B',
        'е' => 'e',
        'Е' => 'E',
        'ё' => 'e',
        'к' => 'k',
        'К' => 'K',
        'м' => 'M',
        'М' => 'M',
        'н' => 'H',
        'Н' => 'H',
        'о' => 'o',
        'О' => 'O',
        'р' => 'p',
        'Р' => 'P',
        'с' => 'c',
        'С' => 'C',
        'т' => 'T',
        'Т' => 'T',
        'у' => 'y',
        'У' => 'Y',
        'х' => 'x',
        'Х' => 'X',
        'ѕ' => 's',
        'Ѕ' => 'S',
        'і' => 'i',
        'І' => 'I',
        'ї' => 'i',
        'ј' => 'j',
        'Ј' => 'J',
        'ԁ' => 'd',
        'ԛ' => 'q',
        'ԝ' => 'w',
        'ɡ' => 'g',
        'һ' => 'h',
        'ӏ' => 'l',
        'α' => 'a',
        'Α' => 'A',
        'Β' => 'B',
        'ε' => 'e',
        'Ε' => 'E',
        'Ζ' => 'Z',
        'Η' => 'H',
        'ι' => 'i',
        'Ι' => 'I',
        'κ' => 'k',
        'Κ' => 'K',
        'Μ' => 'M',
        'Ν' => 'N',
        'ο' => 'o',
        'Ο' => 'O',
        'ρ' => 'p',
        'Ρ' => 'P',
        'τ' => 't',
        'Τ' => 'T',
        'υ' => 'u',
        'Υ' => 'Y',
        'χ' => 'x',
        'Χ' => 'X',
        'ν' => 'v',
        '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
        '\u{2018}' | '\u{2019}' | '\u{2032}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{2033}' => '"',
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::folded;

    #[test]
    fn hidden_and_look_alike_letters_fold_to_what_a_reader_sees() {
        assert_eq!(folded("Ign\u{200B}ore all previous"), "Ignore all previous");
        assert_eq!(folded("ign\u{00AD}ore"), "ignore");
        assert_eq!(folded("\u{0456}gn\u{043E}re"), "ignore");
        assert_eq!(folded("ｉｇｎｏｒｅ"), "ignore");
        assert_eq!(folded("prev\u{E0069}ious"), "previous");
        assert!(matches!(folded("plain"), std::borrow::Cow::Borrowed(_)));
        assert_eq!(folded("naïve café"), "naïve café");
    }
}
