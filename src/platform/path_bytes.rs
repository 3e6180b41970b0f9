//! A path's bytes, for digests and keys. On Unix, the bytes themselves; on Windows (UTF-16
//! names), its UTF-8 (a name that is not valid UTF-16 gets U+FFFD, which only merges keys of
//! such names, never splits one).

use std::borrow::Cow;
use std::ffi::OsStr;

#[cfg(unix)]
pub fn bytes(s: &OsStr) -> Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    Cow::Borrowed(s.as_bytes())
}

#[cfg(windows)]
pub fn bytes(s: &OsStr) -> Cow<'_, [u8]> {
    match s.to_string_lossy() {
        Cow::Borrowed(t) => Cow::Borrowed(t.as_bytes()),
        Cow::Owned(t) => Cow::Owned(t.into_bytes()),
    }
}
