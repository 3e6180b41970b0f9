//! Effects of simple commands, read from their specs.

use super::*;

#[test]
fn sed_scripts() {
    for plain in [
        "s/a/b/g",
        "s|/usr|/opt|",
        "1d",
        "/^#/d",
        "s/x/y/;s/z/w/2",
        "1,5p",
        "$!N",
        "s/\\//x/g",
        "/start/,/end/{s/a/b/}",
        "y/abc/xyz/",
        "10q",
    ] {
        assert!(sed_is_plain(plain), "{plain}");
    }
    for code in [
        "e",
        "s/x/id/e",
        "w /tmp/x",
        "s/a/b/w out",
        "1r /etc/shadow",
        "R x",
        "1e rm -rf ~",
        "s/a",
    ] {
        assert!(!sed_is_plain(code), "{code}");
    }
}

#[test]
fn perl_substitutions() {
    for plain in [
        "s/AutoResizing/AutoResize/g",
        "s|/usr/local|/opt|g",
        "s/foo$/bar/; tr/a-z/A-Z/",
        "s/(\\w+)-(\\w+)/$2-$1/gi",
        "s/price: \\$5/price: \\$6/",
        "y/abc/xyz/",
        "s/^(a|b)$/<$&>/",
    ] {
        assert!(perl_is_substitution(plain), "{plain}");
    }
    for code in [
        "",
        "print if /x/",
        "s/a/b/e",
        "s/a/b/ee",
        "s/a/$ENV{HOME}/",
        "s/a/${\\ system(1)}/",
        "s/a/@{[ system(\"id\") ]}/",
        "s/(?{ system(\"id\") })a/b/",
        "s/(??{ $x })/b/",
        "s/$x/b/",
        "s{a}{b}",
        "s'a'b'",
        "s/a/b/; system(\"x\")",
        "s/a/b/g unlink",
        "BEGIN { s/a/b/ }",
        "s/a/b",
    ] {
        assert!(!perl_is_substitution(code), "{code}");
    }
}

#[test]
fn awk_programs() {
    assert!(awk_is_plain("{print $1}"));
    assert!(awk_is_plain("$3 > 100 {print $1}"));
    assert!(!awk_is_plain("{system(\"id\")}"));
    assert!(!awk_is_plain("{print > \"/tmp/x\"}"));
    assert!(!awk_is_plain("{print | \"sh\"}"));
    assert!(!awk_is_plain("BEGIN{\"id\" | getline x}"));
}
