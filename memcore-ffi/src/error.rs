//! The thread-local last error: `memcore_last_error_message`.

use std::cell::RefCell;
use std::ffi::{CString, c_char};

use crate::boundary;

thread_local! {
    /// The message of the last failed call on this thread; `None` after a success.
    static LAST_ERROR: RefCell<Option<CString>> = const { RefCell::new(None) };
}

/// Records `message` as this thread's last error.
pub(crate) fn set(message: String) {
    let message = crate::string::to_c_string(message);
    // `try_with` fails only while the thread is being torn down; there is no one to tell then.
    let _ = LAST_ERROR.try_with(|cell| *cell.borrow_mut() = Some(message));
}

/// Forgets this thread's last error (every status-returning call starts with this).
pub(crate) fn clear() {
    let _ = LAST_ERROR.try_with(|cell| cell.borrow_mut().take());
}

/// What went wrong in the last call on this thread that returned a status other than
/// `MEMCORE_STATUS_OK`, with what to do about it: `"[KIND] message\n-> recovery"`, for
/// example
///
/// ```text
/// [NOT_FOUND] memory 'gpu-notes' not found
/// -> check the id with list, or omit the collection to search all of them
/// ```
///
/// Returns `""` (never NULL) when the last status-returning call on this thread succeeded
/// or there was none. Each thread has its own message, so threads sharing a `memcore_t`
/// never see each other's errors.
///
/// # Safety
///
/// None to call. The returned string belongs to memcore: do not free it. It stays valid
/// until the next call on the same thread to a memcore function that returns a
/// `memcore_status` (or until the thread exits); copy it to keep it longer.
#[unsafe(no_mangle)]
pub extern "C" fn memcore_last_error_message() -> *const c_char {
    boundary::guard(c"".as_ptr(), || {
        LAST_ERROR
            .try_with(|cell| cell.borrow().as_ref().map(|message| message.as_ptr()))
            .ok()
            .flatten()
            .unwrap_or(c"".as_ptr())
    })
}
