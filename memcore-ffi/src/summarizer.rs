//! A summariser written in C: `memcore_set_summarizer` sets a callback on a handle, and the
//! callback gives its summary back with `memcore_summary_write` (which copies it, so no
//! memory changes hands). Session compressions (`memcore_call` with `"session_compress"` or
//! `"session_compose"`) use it when their `summarizer` is `"auto"` (the default) or
//! `"callback"`.

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use memcore::session::{CallbackSummarizer, Summarizer, SummaryCallback};

use crate::boundary::{self, Failure, UserData, non_null, optional_str, required_str};
use crate::handle::memcore_t;
use crate::status::memcore_status;

/// Where a summariser callback writes its summary; valid only during the callback.
pub struct memcore_summary_t {
    /// The summary written, if any.
    text: Option<String>,
    /// Why what was written is unusable (not UTF-8).
    garbage: Option<String>,
}

/// A summariser callback: summarise the request (`request_json`, `request_len` bytes of
/// UTF-8 JSON, also NUL-terminated, valid during the call: `{"messages": [{"uuid", "role", "content", "timestamp"}], "input_tokens",
/// "target_tokens", "compaction_ratio", "aggressiveness", "keep": [passages kept verbatim
/// beside the summary]}`) in about `target_tokens` tokens, write it with
/// `memcore_summary_write(summary, text, len)` and return 0. Any other return value is a
/// failure (`MEMCORE_STATUS_CALLBACK`; nothing is written to the store).
///
/// It may be called from any thread that calls memcore with the handle, so it and
/// `user_data` must be safe to use from several threads. It must return normally: no C++
/// exception or `longjmp` may leave it. It may call memcore, on this handle too, but a
/// compression it starts with the default summariser calls it again (and so on). Calling
/// `memcore_summary_write` twice keeps the last text; an invalid write fails the compression.
pub type memcore_summarize_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        request_json: *const c_char,
        request_len: usize,
        summary: *mut memcore_summary_t,
    ) -> i32,
>;

/// The callback and its user data as the function a [`CallbackSummarizer`] calls.
fn summary_function(
    callback: unsafe extern "C" fn(
        *mut c_void,
        *const c_char,
        usize,
        *mut memcore_summary_t,
    ) -> i32,
    user_data: UserData,
) -> Arc<SummaryCallback> {
    Arc::new(move |request: &str| {
        // NUL-terminated as well as measured (JSON text never holds a NUL byte).
        let json = format!("{request}\0");
        let mut summary = memcore_summary_t { text: None, garbage: None };
        // SAFETY: the callback was given by the caller of `memcore_set_summarizer` with the
        // contract of `memcore_summarize_fn`; `json` and `summary` outlive the call.
        let status = unsafe {
            callback(user_data.pointer(), json.as_ptr().cast(), request.len(), &raw mut summary)
        };
        if status != 0 {
            return Err(format!("it returned {status}"));
        }
        if let Some(why) = summary.garbage {
            return Err(format!("it wrote {why}"));
        }
        summary.text.ok_or_else(|| {
            "it returned 0 without writing a summary (call memcore_summary_write)".to_owned()
        })
    })
}

/// Sets the summariser callback of the handle (`callback` NULL: back to the built-in
/// extractive summariser). `name` (UTF-8, `name_len` bytes; NULL for `"c-callback"`) is
/// recorded as each version's `settings.model`; `user_data` is passed to every call.
///
/// Errors: `NULL_PARAMETER`, `INVALID_UTF8`.
///
/// # Safety
///
/// `memcore` must be NULL or an open handle; `name` must be NULL (with `name_len` 0) or
/// point to `name_len` readable bytes; `callback` must follow the contract of
/// `memcore_summarize_fn`, and it and `user_data` stay valid until `memcore_close()` (a
/// compression already under way keeps the callback it started with, even after another
/// `memcore_set_summarizer`).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_set_summarizer(
    memcore: *const memcore_t,
    name: *const c_char,
    name_len: usize,
    callback: memcore_summarize_fn,
    user_data: *mut c_void,
) -> memcore_status {
    boundary::run(|| {
        // SAFETY: the caller passes an open handle (or NULL).
        let memcore = unsafe { memcore_t::borrow(memcore) }?;
        // SAFETY: the caller passes `name_len` readable bytes at `name` (or NULL).
        let name = unsafe { optional_str("name", name, name_len) }?.unwrap_or("c-callback");
        let summarizer = callback.map(|callback| {
            let function = summary_function(callback, UserData(user_data));
            Arc::new(CallbackSummarizer::new(name, function)) as Arc<dyn Summarizer>
        });
        memcore.set_summarizer(summarizer);
        Ok(())
    })
}

/// Called by a summariser callback: copies the summary (`text`, UTF-8, `text_len` bytes)
/// into `summary`. Text that is not UTF-8 is refused here (`INVALID_UTF8`) and fails the
/// compression too.
///
/// Errors: `NULL_PARAMETER`, `INVALID_UTF8`.
///
/// # Safety
///
/// `summary` must be the pointer the callback was given, during the callback; `text` must
/// point to `text_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_summary_write(
    summary: *mut memcore_summary_t,
    text: *const c_char,
    text_len: usize,
) -> memcore_status {
    boundary::run(|| {
        non_null("summary", summary)?;
        // SAFETY: `summary` is the live out-parameter memcore passed to the callback.
        let summary = unsafe { &mut *summary };
        // SAFETY: the caller passes `text_len` readable bytes at `text` (or NULL).
        match unsafe { required_str("text", text, text_len) } {
            Ok(text) => {
                summary.text = Some(text.to_owned());
                Ok(())
            }
            Err(failure) => {
                summary.garbage = Some(bad_text(&failure));
                Err(failure)
            }
        }
    })
}

/// What was wrong with a summary's text, for the compression's error.
fn bad_text(failure: &Failure) -> String {
    match failure.status {
        memcore_status::InvalidUtf8 => "text that is not UTF-8".to_owned(),
        _ => "a NULL summary".to_owned(),
    }
}
