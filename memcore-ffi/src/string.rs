//! Owned strings handed to C (`char *` out-parameters) and `memcore_string_free`.

use std::ffi::{CString, c_char};

use crate::boundary;

/// `text` as a C string; a NUL character (U+0000), which a C string cannot hold, becomes
/// U+FFFD. JSON output never contains one (JSON escapes it as `\u0000`).
pub(crate) fn to_c_string(text: String) -> CString {
    let text = if text.contains('\0') { text.replace('\0', "\u{FFFD}") } else { text };
    CString::new(text).unwrap_or_default()
}

/// Hands `text` to C as an owned, NUL-terminated string for `memcore_string_free`.
pub(crate) fn into_raw(text: String) -> *mut c_char {
    to_c_string(text).into_raw()
}

/// Frees a string that memcore returned through a `char **` out-parameter (JSON records,
/// rendered text, references, paths). Passing NULL does nothing.
///
/// Strings memcore returns as `const char *` (`memcore_version()`,
/// `memcore_status_name()`, `memcore_last_error_message()`) are not owned by the caller and
/// must not be passed here.
///
/// # Safety
///
/// `string` must be NULL or a string returned by memcore through a `char **`
/// out-parameter and not freed yet; after this call it must not be used. Never pass it to
/// `free()`, and never pass memory from `malloc()` here. It may be freed on any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_string_free(string: *mut c_char) {
    if string.is_null() {
        return;
    }
    boundary::guard((), || {
        // SAFETY: by this function's contract `string` came from `CString::into_raw` (every
        // owned string memcore returns does, see `into_raw`) and is freed only once.
        drop(unsafe { CString::from_raw(string) });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_characters_are_replaced() {
        assert_eq!(to_c_string("a\0b".to_owned()).to_str().ok(), Some("a\u{FFFD}b"));
        let raw = into_raw("owned".to_owned());
        // SAFETY: `raw` was just returned by `into_raw` and is freed once.
        unsafe { memcore_string_free(raw) };
        // SAFETY: NULL is allowed.
        unsafe { memcore_string_free(std::ptr::null_mut()) };
    }
}
