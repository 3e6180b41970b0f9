//! What a pipeline stage prints when sentinel can know it: literal text (`echo`, `printf`, a
//! here-doc fed to `cat`), or what a decoder makes of its input (`base64 -d`, `xxd -r -p`,
//! `gunzip`, `printf '\x72\x6d'`, `echo -e`). A shell that reads that output is then checked on
//! the decoded script, so `echo cm0gLXJmIH4= | base64 -d | sh` is judged as `rm -rf ~`.
//! Everything is bounded: at most [`MAX_DECODED_BYTES`] of output per stage.

use super::{SimpleCommand, Word};
use base64::Engine;
use std::io::Read;

/// The most text a decoding stage may produce; beyond it the output is unknown.
pub const MAX_DECODED_BYTES: usize = 64 * 1024;

/// The output of `cmd` given the text on its stdin, when it is known.
pub(super) fn stage_output(cmd: &SimpleCommand, stdin: Option<&str>) -> Option<String> {
    let args = cmd.args();
    let here = cmd
        .redirects
        .iter()
        .find(|r| {
            matches!(
                r.kind,
                super::RedirectKind::HereDoc | super::RedirectKind::HereString
            )
        })
        .and_then(|r| r.target.known_value().map(str::to_string));
    let input = here.as_deref().or(stdin);
    // Read on demand: every stage of every pipeline comes here, and most are other programs.
    let has = |f: &[&str]| {
        args.iter()
            .any(|a| a.text.starts_with('-') && f.contains(&a.text.as_str()))
    };
    let first_operand = args.iter().find(|a| !a.text.starts_with('-'));
    let no_operands = first_operand.is_none();
    let out = match cmd.name() {
        "echo" => {
            let words: Vec<&str> = known_all(args)?;
            let mut escapes = false;
            let mut rest = words.as_slice();
            while let Some((first, tail)) = rest.split_first() {
                match *first {
                    "-e" | "-ne" | "-en" => escapes = true,
                    "-n" | "-E" => {}
                    _ => break,
                }
                rest = tail;
            }
            let text = rest.join(" ");
            if escapes {
                unescape(&text, Escapes::Echo)?
            } else {
                text
            }
        }
        "printf" => {
            let words = known_all(args)?;
            let (format, rest) = words.split_first()?;
            if format.starts_with('-') {
                return None;
            }
            // The format's escapes, with %s / %b filled from the arguments in order; the format
            // is used again while arguments are left (`printf '%s\n' a b` prints two lines).
            let mut out = String::new();
            let mut rest = rest.iter().peekable();
            loop {
                let before = rest.len();
                let mut chars = format.chars().peekable();
                let mut literal = String::new();
                while let Some(c) = chars.next() {
                    if c == '%' {
                        match chars.next() {
                            Some('%') => literal.push('%'),
                            Some('s') => {
                                out.push_str(&unescape(
                                    &std::mem::take(&mut literal),
                                    Escapes::Printf,
                                )?);
                                out.push_str(rest.next().copied().unwrap_or(""));
                            }
                            Some('b') => {
                                out.push_str(&unescape(
                                    &std::mem::take(&mut literal),
                                    Escapes::Printf,
                                )?);
                                out.push_str(&unescape(
                                    rest.next().copied().unwrap_or(""),
                                    Escapes::Echo,
                                )?);
                            }
                            _ => return None,
                        }
                    } else {
                        literal.push(c);
                    }
                }
                out.push_str(&unescape(&literal, Escapes::Printf)?);
                if rest.peek().is_none() || rest.len() == before {
                    break;
                }
            }
            out
        }
        "cat" if args.is_empty() => input?.to_string(),
        "base64" | "gbase64" if has(&["-d", "--decode", "-D", "-di", "-id"]) && no_operands => {
            decode_base64(input?)?
        }
        "openssl"
            if first_operand.is_some_and(|w| w.text == "base64" || w.text == "enc")
                && has(&["-d"])
                && (first_operand.is_some_and(|w| w.text == "base64")
                    || has(&["-base64", "-a"])) =>
        {
            decode_base64(input?)?
        }
        "xxd" if has(&["-r"]) && has(&["-p", "-ps", "-plain"]) && no_operands => {
            decode_hex(input?)?
        }
        "gunzip" | "zcat" | "gzcat" if no_operands => gunzip(input?.as_bytes())?,
        "gzip" if has(&["-d", "--decompress", "-dc", "-cd"]) && no_operands => {
            gunzip(input?.as_bytes())?
        }
        _ => return None,
    };
    (out.len() <= MAX_DECODED_BYTES).then_some(out)
}

/// The known text of every word, or None.
fn known_all(words: &[Word]) -> Option<Vec<&str>> {
    words.iter().map(Word::known_value).collect()
}

fn decode_base64(text: &str) -> Option<String> {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.len() > MAX_DECODED_BYTES * 2 {
        return None;
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&compact)
        .or_else(|_| {
            base64::engine::general_purpose::STANDARD_NO_PAD.decode(compact.trim_end_matches('='))
        })
        .or_else(|_| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(compact.trim_end_matches('='))
        })
        .ok()?;
    // Binary (gzip) is passed on as Latin-1 bytes so a following gunzip can read it back.
    Some(
        String::from_utf8(bytes.clone())
            .unwrap_or_else(|_| bytes.iter().map(|&b| b as char).collect()),
    )
}

fn decode_hex(text: &str) -> Option<String> {
    let compact: Vec<u8> = text.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    if !compact.len().is_multiple_of(2) || compact.len() > MAX_DECODED_BYTES * 2 {
        return None;
    }
    let bytes: Option<Vec<u8>> = compact
        .chunks(2)
        .map(|p| {
            std::str::from_utf8(p)
                .ok()
                .and_then(|s| u8::from_str_radix(s, 16).ok())
        })
        .collect();
    String::from_utf8(bytes?).ok()
}

fn gunzip(latin1: &[u8]) -> Option<String> {
    // The input came through `decode_base64` as Latin-1 text: back to bytes.
    let bytes: Vec<u8> = String::from_utf8_lossy(latin1)
        .chars()
        .map(|c| c as u32 as u8)
        .collect();
    let mut out = String::new();
    flate2::read::GzDecoder::new(bytes.as_slice())
        .take(MAX_DECODED_BYTES as u64 + 1)
        .read_to_string(&mut out)
        .ok()?;
    Some(out)
}

/// Which escape dialect to decode.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Escapes {
    /// `printf` formats: `\xHH`, `\NNN` (octal), `\n` …
    Printf,
    /// `echo -e` and `%b`: like printf, octal written `\0NNN`.
    Echo,
    /// `$'…'` (ANSI-C quoting): `\xHH`, `\NNN`, `\uHHHH`, `\n` …
    AnsiC,
}

/// Decodes backslash escapes; None for a form sentinel does not decode.
pub(super) fn unescape(s: &str, dialect: Escapes) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let digits = |chars: &mut std::iter::Peekable<std::str::Chars>, radix: u32, max: usize| {
            let mut v = 0u32;
            let mut n = 0;
            while n < max {
                match chars.peek().and_then(|d| d.to_digit(radix)) {
                    Some(d) => {
                        v = v * radix + d;
                        chars.next();
                        n += 1;
                    }
                    None => break,
                }
            }
            (n > 0).then_some(v)
        };
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'v' => out.push('\x0b'),
            'e' | 'E' => out.push('\x1b'),
            '\\' => out.push('\\'),
            '\'' | '"' | '?' => out.push(e),
            'x' => out.push(char::from_u32(digits(&mut chars, 16, 2)?)?),
            'u' if dialect == Escapes::AnsiC => {
                out.push(char::from_u32(digits(&mut chars, 16, 4)?)?)
            }
            'U' if dialect == Escapes::AnsiC => {
                out.push(char::from_u32(digits(&mut chars, 16, 8)?)?)
            }
            '0' if dialect == Escapes::Echo => {
                out.push(char::from_u32(digits(&mut chars, 8, 3).unwrap_or(0))?)
            }
            '0'..='7' if dialect != Escapes::Echo => {
                let mut v = e.to_digit(8)?;
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v)?);
            }
            'c' if dialect != Escapes::AnsiC => break,
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(
            unescape("\\x72\\x6d -rf \\176", Escapes::Printf).unwrap(),
            "rm -rf ~"
        );
        assert_eq!(unescape("\\0162m", Escapes::Echo).unwrap(), "rm");
        assert_eq!(unescape("\\u0072m", Escapes::AnsiC).unwrap(), "rm");
        assert_eq!(unescape("a\\nb", Escapes::AnsiC).unwrap(), "a\nb");
    }

    #[test]
    fn base64_hex_and_gzip() {
        assert_eq!(decode_base64("cm0gLXJmIH4=").unwrap(), "rm -rf ~");
        assert_eq!(decode_base64("cm0gLXJmIH4").unwrap(), "rm -rf ~");
        assert_eq!(decode_hex("726d202d7266207e").unwrap(), "rm -rf ~");
        let gz = {
            use std::io::Write;
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            e.write_all(b"rm -rf ~").unwrap();
            e.finish().unwrap()
        };
        let b64 = base64::engine::general_purpose::STANDARD.encode(gz);
        let latin1 = decode_base64(&b64).unwrap();
        assert_eq!(gunzip(latin1.as_bytes()).unwrap(), "rm -rf ~");
    }

    #[test]
    fn decoding_is_bounded() {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(&vec![b'a'; 10 * 1024 * 1024]).unwrap();
        let bomb = e.finish().unwrap();
        let latin1: String = bomb.iter().map(|&b| b as char).collect();
        let out = gunzip(latin1.as_bytes()).unwrap();
        assert!(out.len() <= MAX_DECODED_BYTES + 1);
    }
}
