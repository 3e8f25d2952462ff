//! Memories: put (simple, JSON record, markdown document), get, render, update, delete and
//! restore, with the `memcore_format` and `memcore_put_mode` enums.

use std::ffi::c_char;

use memcore::{Format, MemoryUpdate, NewMemory, PutMode};

use crate::boundary::{self, Failure, FfiResult, non_null, optional_str, required_str, write_out};
use crate::handle::{memcore_t, on_memory};
use crate::json;
use crate::status::memcore_status;
use crate::string;

/// What `memcore_put_json()` and `memcore_put_markdown()` do when the memory exists.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum memcore_put_mode {
    /// Replace it: the new memory keeps the old `created_at` and gets the next version.
    Upsert = 0,
    /// Fail with `MEMCORE_STATUS_CONFLICT` and write nothing.
    CreateOnly = 1,
}

impl memcore_put_mode {
    fn from_u32(value: u32) -> FfiResult<PutMode> {
        match value {
            0 => Ok(PutMode::Upsert),
            1 => Ok(PutMode::CreateOnly),
            _ => Err(Failure::bad_enum(
                "mode",
                value,
                "MEMCORE_PUT_MODE_UPSERT (0), MEMCORE_PUT_MODE_CREATE_ONLY (1)",
            )),
        }
    }
}

/// How `memcore_render()` renders a memory as text.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum memcore_format {
    /// A block for an AI's context: `# title`, `ID:`, `Created: ... by ...`, `Context:`,
    /// `Tags:`, `Category:`, `Related:` lines (those that are set), a blank line, then the
    /// content.
    Context = 0,
    /// The markdown content alone.
    Raw = 1,
}

impl memcore_format {
    fn from_u32(value: u32) -> FfiResult<Format> {
        match value {
            0 => Ok(Format::Context),
            1 => Ok(Format::Raw),
            _ => Err(Failure::bad_enum(
                "format",
                value,
                "MEMCORE_FORMAT_CONTEXT (0), MEMCORE_FORMAT_RAW (1)",
            )),
        }
    }
}

/// Splits the simple put's comma-separated tags (blank entries are dropped by the core).
fn split_tags(tags: Option<&str>) -> Vec<String> {
    tags.map(|t| t.split(',').map(str::to_owned).collect()).unwrap_or_default()
}

/// Stores `content` (markdown) in `collection` with `tags`, replacing a memory with the
/// same id there. The id comes from the first `# heading`, else a hash of the content.
///
/// - `collection` (UTF-8, `collection_len` bytes) may be NULL: the store's default
///   collection (`memory` unless configured).
/// - `tags` (UTF-8, `tags_len` bytes) is a comma-separated list such as `"gpu,perf"`, or
///   NULL for none; spaces around each tag are trimmed.
/// - On success writes the memory's reference `"collection/id"` to `*out_ref` (an owned
///   string for `memcore_string_free()`): pass it to `memcore_get()` and friends.
///
/// Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT` (empty or oversized content,
/// bad collection name), `CONFLICT` (lock timeout), `IO`.
///
/// # Safety
///
/// `memcore` must be NULL or an open handle. Each string pointer must be NULL (where
/// allowed) or point to its length in readable bytes. `out_ref` must point to writable
/// storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_put(
    memcore: *const memcore_t,
    collection: *const c_char,
    collection_len: usize,
    content: *const c_char,
    content_len: usize,
    tags: *const c_char,
    tags_len: usize,
    out_ref: *mut *mut c_char,
) -> memcore_status {
    boundary::run(|| {
        // SAFETY: the caller passes an open handle (or NULL).
        let memcore = unsafe { memcore_t::borrow(memcore) }?;
        // SAFETY: the caller passes `collection_len` readable bytes at `collection` (or NULL).
        let collection = unsafe { optional_str("collection", collection, collection_len) }?;
        // SAFETY: the caller passes `content_len` readable bytes at `content` (or NULL).
        let content = unsafe { required_str("content", content, content_len) }?;
        // SAFETY: the caller passes `tags_len` readable bytes at `tags` (or NULL).
        let tags = unsafe { optional_str("tags", tags, tags_len) }?;
        non_null("out_ref", out_ref)?;
        let mut new = NewMemory::new(content).tags(split_tags(tags));
        new.collection = collection.map(str::to_owned);
        let stored = memcore.put(new)?;
        let reference = stored.reference().to_string();
        // SAFETY: `out_ref` is non-NULL and writable (checked above; the contract).
        unsafe { write_out(out_ref, string::into_raw(reference)) };
        Ok(())
    })
}

/// Stores a memory described by a **put record** (JSON, `record_len` bytes; see the schema
/// at the top of this header). `mode` is one of `memcore_put_mode`.
///
/// On success writes the stored **memory record** (JSON) to `*out_json`, an owned string
/// for `memcore_string_free()`.
///
/// Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_JSON` (not JSON, unknown field, wrong
/// type, no `content`), `INVALID_ARGUMENT` (a value breaks a rule, unknown `mode`),
/// `CONFLICT` (`MEMCORE_PUT_MODE_CREATE_ONLY` and the memory exists), `IO`.
///
/// # Safety
///
/// `memcore` must be NULL or an open handle; `record` must point to `record_len` readable
/// bytes; `out_json` must point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_put_json(
    memcore: *const memcore_t,
    record: *const c_char,
    record_len: usize,
    mode: u32,
    out_json: *mut *mut c_char,
) -> memcore_status {
    boundary::run(|| {
        // SAFETY: the caller passes an open handle (or NULL).
        let memcore = unsafe { memcore_t::borrow(memcore) }?;
        // SAFETY: the caller passes `record_len` readable bytes at `record` (or NULL).
        let record = unsafe { required_str("record", record, record_len) }?;
        non_null("out_json", out_json)?;
        let mode = memcore_put_mode::from_u32(mode)?;
        let new: NewMemory = json::record("record", record, "put")?;
        let text = json::memory(memcore.put_with(new, mode)?)?;
        // SAFETY: `out_json` is non-NULL and writable (checked above; the contract).
        unsafe { write_out(out_json, string::into_raw(text)) };
        Ok(())
    })
}

/// Stores a markdown document that may start with YAML frontmatter (`---` lines), as when
/// importing a memory file: the frontmatter supplies the metadata (`id`, `collection`,
/// `tags`, ...), the rest the content. `mode` is one of `memcore_put_mode`.
///
/// On success writes the stored **memory record** (JSON) to `*out_json`, an owned string
/// for `memcore_string_free()`.
///
/// Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT` (bad frontmatter, a value
/// breaks a rule, unknown `mode`), `CONFLICT`, `IO`.
///
/// # Safety
///
/// `memcore` must be NULL or an open handle; `markdown` must point to `markdown_len`
/// readable bytes; `out_json` must point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_put_markdown(
    memcore: *const memcore_t,
    markdown: *const c_char,
    markdown_len: usize,
    mode: u32,
    out_json: *mut *mut c_char,
) -> memcore_status {
    boundary::run(|| {
        // SAFETY: the caller passes an open handle (or NULL).
        let memcore = unsafe { memcore_t::borrow(memcore) }?;
        // SAFETY: the caller passes `markdown_len` readable bytes at `markdown` (or NULL).
        let markdown = unsafe { required_str("markdown", markdown, markdown_len) }?;
        non_null("out_json", out_json)?;
        let mode = memcore_put_mode::from_u32(mode)?;
        let text = json::memory(memcore.put_with(NewMemory::from_markdown(markdown)?, mode)?)?;
        // SAFETY: `out_json` is non-NULL and writable (checked above; the contract).
        unsafe { write_out(out_json, string::into_raw(text)) };
        Ok(())
    })
}

/// Reads the memory at `reference` (`"id"` or `"collection/id"`, UTF-8, `reference_len`
/// bytes) and writes its **memory record** (JSON) to `*out_json`, an owned string for
/// `memcore_string_free()`.
///
/// Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT` (malformed reference),
/// `NOT_FOUND`, `CONFLICT` (a bare id found in several collections), `CORRUPTED`, `IO`.
///
/// # Safety
///
/// `memcore` must be NULL or an open handle; `reference` must point to `reference_len`
/// readable bytes; `out_json` must point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_get(
    memcore: *const memcore_t,
    reference: *const c_char,
    reference_len: usize,
    out_json: *mut *mut c_char,
) -> memcore_status {
    // SAFETY: the export's contract is `on_memory`'s.
    unsafe {
        on_memory(memcore, (reference, reference_len), ("out_json", out_json), |memcore, r| {
            json::memory(memcore.get(r)?)
        })
    }
}

/// Reads the memory at `reference` and renders it as text in `format` (one of
/// `memcore_format`), ready to paste into a prompt; writes the text to `*out_text`, an
/// owned string for `memcore_string_free()`. (A NUL character in the memory, which a C
/// string cannot hold, is rendered as U+FFFD; the JSON record keeps it exactly.)
///
/// Errors: as `memcore_get()`, plus `INVALID_ARGUMENT` for an unknown `format`.
///
/// # Safety
///
/// `memcore` must be NULL or an open handle; `reference` must point to `reference_len`
/// readable bytes; `out_text` must point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_render(
    memcore: *const memcore_t,
    reference: *const c_char,
    reference_len: usize,
    format: u32,
    out_text: *mut *mut c_char,
) -> memcore_status {
    // SAFETY: the export's contract is `on_memory`'s.
    unsafe {
        on_memory(memcore, (reference, reference_len), ("out_text", out_text), |memcore, r| {
            let format = memcore_format::from_u32(format)?;
            Ok(memcore.get(r)?.render(format))
        })
    }
}

/// Changes the memory at `reference` as an **update record** (JSON, `change_len` bytes; see
/// the schema at the top of this header) says: fields left out keep their value, the
/// version goes up by one and the old version is kept in the history.
///
/// On success writes the updated **memory record** (JSON) to `*out_json`, an owned string
/// for `memcore_string_free()`.
///
/// Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_JSON`, `INVALID_ARGUMENT` (a value
/// breaks a rule, a forbidden status change), `NOT_FOUND`, `CONFLICT`, `CORRUPTED`, `IO`.
///
/// # Safety
///
/// `memcore` must be NULL or an open handle; `reference` and `change` must point to their
/// lengths in readable bytes; `out_json` must point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_update_json(
    memcore: *const memcore_t,
    reference: *const c_char,
    reference_len: usize,
    change: *const c_char,
    change_len: usize,
    out_json: *mut *mut c_char,
) -> memcore_status {
    // SAFETY: the export's contract is `on_memory`'s, and `change_len` readable bytes at
    // `change` (or NULL).
    unsafe {
        on_memory(memcore, (reference, reference_len), ("out_json", out_json), |memcore, r| {
            let change = required_str("change", change, change_len)?;
            let change: MemoryUpdate = json::record("change", change, "update")?;
            json::memory(memcore.update(r, change)?)
        })
    }
}

/// Deletes the memory at `reference` (`"id"` or `"collection/id"`) by moving it to the
/// store's trash, from where `memcore_restore()` brings it back.
///
/// Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT`, `NOT_FOUND`, `CONFLICT`,
/// `IO`.
///
/// # Safety
///
/// `memcore` must be NULL or an open handle; `reference` must point to `reference_len`
/// readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_delete(
    memcore: *const memcore_t,
    reference: *const c_char,
    reference_len: usize,
) -> memcore_status {
    boundary::run(|| {
        // SAFETY: the caller passes an open handle (or NULL).
        let memcore = unsafe { memcore_t::borrow(memcore) }?;
        // SAFETY: the caller passes `reference_len` readable bytes at `reference` (or NULL).
        let reference = unsafe { required_str("reference", reference, reference_len) }?;
        memcore.delete(reference)?;
        Ok(())
    })
}

/// Brings the most recently deleted memory at `reference` back from the trash and writes
/// its **memory record** (JSON) to `*out_json`, an owned string for
/// `memcore_string_free()`.
///
/// Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT`, `NOT_FOUND` (nothing in
/// the trash), `CONFLICT` (a live memory took the id meanwhile), `IO`.
///
/// # Safety
///
/// `memcore` must be NULL or an open handle; `reference` must point to `reference_len`
/// readable bytes; `out_json` must point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_restore(
    memcore: *const memcore_t,
    reference: *const c_char,
    reference_len: usize,
    out_json: *mut *mut c_char,
) -> memcore_status {
    // SAFETY: the export's contract is `on_memory`'s.
    unsafe {
        on_memory(memcore, (reference, reference_len), ("out_json", out_json), |memcore, r| {
            json::memory(memcore.restore(r)?)
        })
    }
}

#[cfg(test)]
mod tests {
    //! A smoke test of the whole surface from Rust, so that `cargo test` alone catches a
    //! broken export; the C tests (`scripts/test-c`) cover every function and error path.

    use std::ffi::{CStr, c_char};
    use std::ptr;

    use super::*;
    use crate::handle::{memcore_close, memcore_open};
    use crate::history::memcore_versions;
    use crate::listing::memcore_list;
    use crate::string::memcore_string_free;

    /// Takes an owned string from C, returning it as a Rust string.
    fn take(raw: *mut c_char) -> String {
        assert!(!raw.is_null());
        // SAFETY: `raw` is an owned string just returned by memcore, freed once below.
        let text = unsafe { CStr::from_ptr(raw) }.to_string_lossy().into_owned();
        // SAFETY: as above.
        unsafe { memcore_string_free(raw) };
        text
    }

    #[test]
    fn put_get_update_list_delete_restore() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_str().unwrap();
        let mut mc = ptr::null_mut();
        // SAFETY: every pointer passed in this block points to live data of the given length
        // or to a writable out-parameter; `mc` is open until `memcore_close`.
        unsafe {
            assert_eq!(memcore_open(path.as_ptr().cast(), path.len(), &mut mc), memcore_status::Ok);
            let content = "# Smoke\n\nfrom Rust";
            let mut out = ptr::null_mut();
            let status = memcore_put(
                mc,
                ptr::null(),
                0,
                content.as_ptr().cast(),
                content.len(),
                c"a,b".as_ptr(),
                3,
                &mut out,
            );
            assert_eq!(status, memcore_status::Ok);
            let reference = take(out);
            assert_eq!(reference, "memory/smoke");

            let status = memcore_get(mc, reference.as_ptr().cast(), reference.len(), &mut out);
            assert_eq!(status, memcore_status::Ok);
            let record: serde_json::Value = serde_json::from_str(&take(out)).unwrap();
            assert_eq!(record["ref"], "memory/smoke");
            assert_eq!(record["tags"], serde_json::json!(["a", "b"]));

            let change = r#"{"status": "resolved"}"#;
            let status = memcore_update_json(
                mc,
                reference.as_ptr().cast(),
                reference.len(),
                change.as_ptr().cast(),
                change.len(),
                &mut out,
            );
            assert_eq!(status, memcore_status::Ok);
            assert!(take(out).contains(r#""version":2"#));

            let status = memcore_versions(mc, reference.as_ptr().cast(), reference.len(), &mut out);
            assert_eq!(status, memcore_status::Ok);
            assert!(take(out).contains(r#""rev":"2""#));

            let status = memcore_render(mc, c"smoke".as_ptr(), 5, 1, &mut out);
            assert_eq!(status, memcore_status::Ok);
            assert_eq!(take(out), content);

            let status = memcore_delete(mc, reference.as_ptr().cast(), reference.len());
            assert_eq!(status, memcore_status::Ok);
            let status = memcore_list(mc, ptr::null(), 0, &mut out);
            assert_eq!(status, memcore_status::Ok);
            assert_eq!(take(out), r#"{"memories":[],"skipped":[]}"#);
            let status = memcore_restore(mc, c"smoke".as_ptr(), 5, &mut out);
            assert_eq!(status, memcore_status::Ok);
            assert!(take(out).contains(r#""status":"resolved""#));

            let before = out;
            let status = memcore_get(mc, c"nope".as_ptr(), 4, &mut out);
            assert_eq!(status, memcore_status::NotFound);
            assert_eq!(out, before, "out-params are written on success only");
            memcore_close(mc);
        }
    }
}
