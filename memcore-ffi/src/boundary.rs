//! The panic boundary and the argument checks every export goes through (internal).
//!
//! Every status-returning export is `boundary::run(|| { ... })`: the body returns
//! `Result<(), Failure>`, panics are caught, and a failure becomes the returned status plus
//! the thread's last-error message. Exports that return no status use [`guard`].

use std::any::Any;
use std::ffi::{c_char, c_void};
use std::fmt::Display;
use std::panic::{self, AssertUnwindSafe};

use crate::error;
use crate::status::memcore_status;

/// Why an export failed: the status it returns and the last-error message it leaves.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: memcore_status,
    pub(crate) message: String,
}

/// The result of an export's body.
pub(crate) type FfiResult<T = ()> = Result<T, Failure>;

impl Failure {
    /// A failure found by the binding itself (not by the core), reported in the same
    /// `[KIND] message` / `-> recovery` shape as the core's [`memcore::Error::report`].
    pub(crate) fn new(
        status: memcore_status,
        message: impl Display,
        recovery: impl Display,
    ) -> Self {
        Self { status, message: format!("[{}] {message}\n-> {recovery}", status.name()) }
    }

    /// A required pointer argument was NULL.
    pub(crate) fn null(param: &str) -> Self {
        Self::new(
            memcore_status::NullParameter,
            format!("`{param}` is NULL"),
            format!("pass a valid pointer as `{param}`"),
        )
    }

    /// An integer argument that should name a value of a C enum does not.
    pub(crate) fn bad_enum(param: &str, value: u32, allowed: &str) -> Self {
        Self::new(
            memcore_status::InvalidArgument,
            format!("`{param}` is {value}, which is not one of its values"),
            format!("pass one of: {allowed}"),
        )
    }

    /// A panic caught at the boundary.
    fn panic(payload: Box<dyn Any + Send>) -> Self {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a non-text panic payload".to_owned());
        Self::new(
            memcore_status::Panic,
            format!("memcore panicked: {what}"),
            "this is a bug in memcore, please report it with this message; the store stays \
             consistent (every write is atomic), but check whether the call took effect",
        )
    }
}

impl From<memcore::Error> for Failure {
    fn from(err: memcore::Error) -> Self {
        Self { status: memcore_status::of_error(&err), message: err.report() }
    }
}

/// Runs the body of a status-returning export behind the panic boundary: clears the
/// thread's last error, runs `body`, and turns a failure or a panic into the status returned
/// to C plus the last-error message.
pub(crate) fn run(body: impl FnOnce() -> FfiResult) -> memcore_status {
    error::clear();
    let outcome = panic::catch_unwind(AssertUnwindSafe(body))
        .unwrap_or_else(|payload| Err(Failure::panic(payload)));
    match outcome {
        Ok(()) => memcore_status::Ok,
        Err(failure) => {
            error::set(failure.message);
            failure.status
        }
    }
}

/// Runs the body of an export that returns no status behind the panic boundary; a panic
/// yields `fallback` (and is recorded as the last error).
pub(crate) fn guard<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    match panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(payload) => {
            error::set(Failure::panic(payload).message);
            fallback
        }
    }
}

/// The caller's `user_data` pointer for a callback, passed back untouched.
#[derive(Clone, Copy)]
pub(crate) struct UserData(pub(crate) *mut c_void);

// SAFETY: memcore never dereferences the pointer; it only passes it back to the callback,
// whose contract (`memcore_summarize_fn`, `memcore_embed_fn`) is to be usable from any
// thread.
unsafe impl Send for UserData {}
// SAFETY: as above: shared only to be passed back to a callback that is thread-safe.
unsafe impl Sync for UserData {}

impl UserData {
    /// The pointer (a method, so that closures capture the `Send` wrapper, not the field).
    pub(crate) fn pointer(self) -> *mut c_void {
        self.0
    }
}

/// Checks that a required pointer argument is not NULL.
pub(crate) fn non_null<T>(param: &str, ptr: *const T) -> FfiResult {
    if ptr.is_null() { Err(Failure::null(param)) } else { Ok(()) }
}

/// A required string argument given as pointer + length: NULL is `NULL_PARAMETER` (even
/// with length 0), bytes that are not UTF-8 are `INVALID_UTF8`.
///
/// # Safety
///
/// Unless NULL, `ptr` must point to `len` initialised bytes that stay valid and unchanged
/// for the lifetime `'a` (the duration of the export).
pub(crate) unsafe fn required_str<'a>(
    param: &str,
    ptr: *const c_char,
    len: usize,
) -> FfiResult<&'a str> {
    non_null(param, ptr)?;
    // SAFETY: `ptr` is not NULL and, by this function's contract, points to `len` bytes.
    unsafe { utf8(param, ptr, len) }
}

/// An optional string argument: NULL (with length 0) means absent; NULL with a non-zero
/// length is `NULL_PARAMETER`, since it is almost surely a bug in the caller.
///
/// # Safety
///
/// As for [`required_str`].
pub(crate) unsafe fn optional_str<'a>(
    param: &str,
    ptr: *const c_char,
    len: usize,
) -> FfiResult<Option<&'a str>> {
    if ptr.is_null() {
        if len == 0 {
            return Ok(None);
        }
        return Err(Failure::new(
            memcore_status::NullParameter,
            format!("`{param}` is NULL but `{param}_len` is {len}"),
            format!("pass NULL with length 0 to leave `{param}` out, or a valid pointer"),
        ));
    }
    // SAFETY: `ptr` is not NULL and, by this function's contract, points to `len` bytes.
    unsafe { utf8(param, ptr, len) }.map(Some)
}

/// Views `len` bytes at a non-NULL `ptr` as UTF-8 text.
///
/// # Safety
///
/// `ptr` is not NULL and points to `len` initialised bytes, valid for `'a`.
unsafe fn utf8<'a>(param: &str, ptr: *const c_char, len: usize) -> FfiResult<&'a str> {
    if isize::try_from(len).is_err() {
        return Err(Failure::new(
            memcore_status::InvalidArgument,
            format!("`{param}_len` is {len}, larger than any object can be"),
            format!("pass the length of `{param}` in bytes"),
        ));
    }
    // SAFETY: `ptr` is non-NULL and points to `len <= isize::MAX` initialised bytes valid for
    // `'a` (this function's contract); `c_char` and `u8` have the same size and alignment.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    std::str::from_utf8(bytes).map_err(|e| {
        Failure::new(
            memcore_status::InvalidUtf8,
            format!("`{param}` is not valid UTF-8 (the first {} bytes are)", e.valid_up_to()),
            format!("pass `{param}` as UTF-8 text, converting from other encodings first"),
        )
    })
}

/// Writes an out-parameter; call only once the export has succeeded, so that out-params
/// are written on success only.
///
/// # Safety
///
/// `out` is not NULL (checked earlier with [`non_null`]) and is valid for a write of `T`.
pub(crate) unsafe fn write_out<T>(out: *mut T, value: T) {
    // SAFETY: the caller checked `out` for NULL; the export's contract makes it writable.
    unsafe { out.write(value) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::memcore_last_error_message;
    use std::ffi::CStr;

    fn last_error() -> String {
        // SAFETY: the pointer is a valid C string until the next call on this thread.
        unsafe { CStr::from_ptr(memcore_last_error_message()) }.to_string_lossy().into_owned()
    }

    #[test]
    fn a_panic_becomes_the_panic_status_with_a_message() {
        let status = run(|| panic!("boom {}", 42));
        assert_eq!(status, memcore_status::Panic);
        assert!(last_error().starts_with("[PANIC] memcore panicked: boom 42\n-> "));

        let status = run(|| std::panic::panic_any(7_u8));
        assert_eq!(status, memcore_status::Panic);
        assert!(last_error().contains("non-text panic payload"));

        assert_eq!(guard(0, || panic!("static")), 0);
        assert!(last_error().contains("memcore panicked: static"));
    }

    #[test]
    fn success_clears_the_last_error() {
        assert_eq!(run(|| Err(Failure::null("x"))), memcore_status::NullParameter);
        assert_eq!(last_error(), "[NULL_PARAMETER] `x` is NULL\n-> pass a valid pointer as `x`");
        assert_eq!(run(|| Ok(())), memcore_status::Ok);
        assert_eq!(last_error(), "");
    }

    #[test]
    fn strings_are_checked() {
        let ok = b"hello";
        let bad = b"a\xffb";
        // SAFETY: the pointers and lengths describe the byte strings above.
        unsafe {
            assert_eq!(required_str("s", ok.as_ptr().cast(), 5).ok(), Some("hello"));
            assert_eq!(required_str("s", ok.as_ptr().cast(), 0).ok(), Some(""));
            let err = required_str("s", bad.as_ptr().cast(), 3).unwrap_err();
            assert_eq!(err.status, memcore_status::InvalidUtf8);
            assert!(err.message.contains("the first 1 bytes are"));
            let err = required_str("s", std::ptr::null(), 0).unwrap_err();
            assert_eq!(err.status, memcore_status::NullParameter);
            assert!(matches!(optional_str("s", std::ptr::null(), 0), Ok(None)));
            let err = optional_str("s", std::ptr::null(), 3).unwrap_err();
            assert_eq!(err.status, memcore_status::NullParameter);
            let err = required_str("s", ok.as_ptr().cast(), usize::MAX).unwrap_err();
            assert_eq!(err.status, memcore_status::InvalidArgument);
        }
    }
}
