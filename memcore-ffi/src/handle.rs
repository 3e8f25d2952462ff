//! `memcore_t`, the store handle: `memcore_open`, `memcore_open_scope`, `memcore_close`,
//! `memcore_root`.

use std::ffi::c_char;
use std::sync::Arc;

use memcore::{Memcore, Scope};

use crate::boundary::{self, Failure, FfiResult, non_null, optional_str, required_str, write_out};
use crate::status::memcore_status;
use crate::string;

/// An open memory store. Opaque: created by `memcore_open()` or `memcore_open_scope()`,
/// freed exactly once by `memcore_close()`.
///
/// Thread-safe: one handle may be used from any number of threads at once (every function
/// takes it as `const memcore_t *`). Several handles, and several processes, may open the
/// same store directory; writes are serialised by a lock file.
pub struct memcore_t {
    _private: [u8; 0],
}

impl memcore_t {
    /// Moves `memcore` behind a new handle for C.
    pub(crate) fn into_raw(memcore: Memcore) -> *mut memcore_t {
        Arc::into_raw(Arc::new(memcore)).cast_mut().cast()
    }

    /// Borrows the store behind a handle; NULL is `NULL_PARAMETER`.
    ///
    /// # Safety
    ///
    /// Unless NULL, `handle` came from [`memcore_t::into_raw`] and has not been closed, and
    /// stays open for `'a` (the duration of the export).
    pub(crate) unsafe fn borrow<'a>(handle: *const memcore_t) -> FfiResult<&'a Memcore> {
        non_null("memcore", handle)?;
        // SAFETY: a non-NULL handle points to the `Memcore` inside an `Arc` made by
        // `into_raw`, kept alive until `memcore_close` (this function's contract).
        Ok(unsafe { &*handle.cast::<Memcore>() })
    }
}

/// The body every export on one memory shares: borrows the handle, reads `reference`,
/// checks the out-parameter `out` (named `out_name`), runs `body` on the store and the
/// reference, and writes the text it returns to `*out` (an owned string for
/// `memcore_string_free()`). Errors and panics become the status, as for every export.
///
/// # Safety
///
/// The export's contract: `memcore` is NULL or an open handle; `reference` points to
/// `reference_len` readable bytes (or is NULL); `out` is NULL or writable storage for one
/// pointer.
pub(crate) unsafe fn on_memory(
    memcore: *const memcore_t,
    (reference, reference_len): (*const c_char, usize),
    (out_name, out): (&str, *mut *mut c_char),
    body: impl FnOnce(&Memcore, &str) -> FfiResult<String>,
) -> memcore_status {
    boundary::run(|| {
        // SAFETY: the caller passes an open handle (or NULL).
        let memcore = unsafe { memcore_t::borrow(memcore) }?;
        // SAFETY: the caller passes `reference_len` readable bytes at `reference` (or NULL).
        let reference = unsafe { required_str("reference", reference, reference_len) }?;
        non_null(out_name, out)?;
        let text = body(memcore, reference)?;
        // SAFETY: `out` is non-NULL and writable (checked above; the contract).
        unsafe { write_out(out, string::into_raw(text)) };
        Ok(())
    })
}

/// Which store `memcore_open_scope()` opens.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum memcore_scope {
    /// The project-local store if a `.memcore.yaml` is found walking up from the start
    /// directory, else the global store.
    Auto = 0,
    /// The project-local store; `MEMCORE_STATUS_NOT_FOUND` when there is no project config.
    Local = 1,
    /// The global store: `$MEMCORE_HOME`, else `$XDG_DATA_HOME/memcore`, else
    /// `~/.local/share/memcore`.
    Global = 2,
}

impl memcore_scope {
    fn from_u32(value: u32) -> FfiResult<Scope> {
        match value {
            0 => Ok(Scope::Auto),
            1 => Ok(Scope::Local),
            2 => Ok(Scope::Global),
            _ => Err(Failure::bad_enum(
                "scope",
                value,
                "MEMCORE_SCOPE_AUTO (0), MEMCORE_SCOPE_LOCAL (1), MEMCORE_SCOPE_GLOBAL (2)",
            )),
        }
    }
}

/// Opens the store in the directory `path` (UTF-8, `path_len` bytes), creating it (mode
/// 0700) if it does not exist. Settings come from `config.yaml` inside it, if present.
///
/// On success writes a new handle to `*out`; free it with `memcore_close()`.
///
/// Errors: `NULL_PARAMETER` (`path` or `out` NULL), `INVALID_UTF8`, `INVALID_ARGUMENT`
/// (the path is empty or a file, or its config is invalid), `IO`.
///
/// # Safety
///
/// `path` must point to `path_len` readable bytes; `out` must point to writable storage for
/// one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_open(
    path: *const c_char,
    path_len: usize,
    out: *mut *mut memcore_t,
) -> memcore_status {
    boundary::run(|| {
        // SAFETY: the caller passes `path_len` readable bytes at `path` (or NULL).
        let path = unsafe { required_str("path", path, path_len) }?;
        non_null("out", out)?;
        let memcore = Memcore::open(store_dir(path)?)?;
        // SAFETY: `out` is non-NULL and writable (checked above; this function's contract).
        unsafe { write_out(out, memcore_t::into_raw(memcore)) };
        Ok(())
    })
}

/// Opens the store a scope resolves to, as the command-line tool does: `scope` is one of
/// `memcore_scope`; project detection walks up from `start_dir` (UTF-8, `start_dir_len`
/// bytes), or from the process's working directory when `start_dir` is NULL.
///
/// On success writes a new handle to `*out`; free it with `memcore_close()`.
///
/// Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT` (an unknown `scope`, a bad
/// project config), `NOT_FOUND` (`MEMCORE_SCOPE_LOCAL` without a project config), `IO`.
///
/// # Safety
///
/// `start_dir` must be NULL (with `start_dir_len` 0) or point to `start_dir_len` readable
/// bytes; `out` must point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_open_scope(
    scope: u32,
    start_dir: *const c_char,
    start_dir_len: usize,
    out: *mut *mut memcore_t,
) -> memcore_status {
    boundary::run(|| {
        let scope = memcore_scope::from_u32(scope)?;
        // SAFETY: the caller passes `start_dir_len` readable bytes at `start_dir` (or NULL).
        let start_dir = unsafe { optional_str("start_dir", start_dir, start_dir_len) }?;
        non_null("out", out)?;
        let mut builder = Memcore::builder().scope(scope);
        if let Some(dir) = start_dir {
            builder = builder.start_dir(dir);
        }
        let memcore = builder.open()?;
        // SAFETY: `out` is non-NULL and writable (checked above; this function's contract).
        unsafe { write_out(out, memcore_t::into_raw(memcore)) };
        Ok(())
    })
}

/// A store directory argument: an empty one is `INVALID_ARGUMENT`.
pub(crate) fn store_dir(path: &str) -> FfiResult<&str> {
    if path.is_empty() {
        return Err(Failure::new(
            memcore_status::InvalidArgument,
            "`path` is empty",
            "pass the store's directory (\".\" for the working directory)",
        ));
    }
    Ok(path)
}

/// Closes a handle and frees it. Passing NULL does nothing.
///
/// Every write has already been made durable when its call returned, so closing loses
/// nothing. Strings returned earlier stay valid (they are owned by the caller).
///
/// # Safety
///
/// `memcore` must be NULL or a handle from `memcore_open()` / `memcore_open_scope()` that
/// has not been closed; no other thread may be using it, and it must not be used after.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_close(memcore: *mut memcore_t) {
    if memcore.is_null() {
        return;
    }
    boundary::guard((), || {
        // SAFETY: the handle came from `memcore_t::into_raw` (`Arc::into_raw` of an
        // `Arc<Memcore>`) and is released exactly once (this function's contract).
        drop(unsafe { Arc::from_raw(memcore.cast_const().cast::<Memcore>()) });
    });
}

/// The store's root directory, as an owned string for `memcore_string_free()` written to
/// `*out`. (A path that is not UTF-8 has its invalid bytes replaced by U+FFFD.)
///
/// Errors: `NULL_PARAMETER`.
///
/// # Safety
///
/// `memcore` must be NULL or an open handle; `out` must point to writable storage for one
/// pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_root(
    memcore: *const memcore_t,
    out: *mut *mut c_char,
) -> memcore_status {
    boundary::run(|| {
        // SAFETY: the caller passes an open handle (or NULL).
        let memcore = unsafe { memcore_t::borrow(memcore) }?;
        non_null("out", out)?;
        let root = memcore.location().root.to_string_lossy().into_owned();
        // SAFETY: `out` is non-NULL and writable (checked above; this function's contract).
        unsafe { write_out(out, string::into_raw(root)) };
        Ok(())
    })
}
