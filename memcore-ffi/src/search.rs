//! Search: `memcore_search`, with the `memcore_search_mode` enum.

use std::ffi::c_char;

use memcore::{Query, SearchMode};

use crate::boundary::{self, Failure, FfiResult, non_null, required_str, write_out};
use crate::handle::memcore_t;
use crate::json;
use crate::status::memcore_status;
use crate::string;

/// How `memcore_search()` ranks memories.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum memcore_search_mode {
    /// BM25 full text and local embeddings, fused by reciprocal rank.
    Hybrid = 0,
    /// Vector similarity of embeddings only.
    Semantic = 1,
    /// BM25 full text only.
    Text = 2,
}

impl memcore_search_mode {
    fn from_u32(value: u32) -> FfiResult<SearchMode> {
        match value {
            0 => Ok(SearchMode::Hybrid),
            1 => Ok(SearchMode::Semantic),
            2 => Ok(SearchMode::Text),
            _ => Err(Failure::bad_enum(
                "mode",
                value,
                "MEMCORE_SEARCH_MODE_HYBRID (0), MEMCORE_SEARCH_MODE_SEMANTIC (1), \
                 MEMCORE_SEARCH_MODE_TEXT (2)",
            )),
        }
    }
}

/// Searches the memories for `query` (UTF-8, `query_len` bytes) in `mode` (a
/// `memcore_search_mode`), returning at most `limit` hits (1 to
/// 1000) as a **search result** (JSON) written to `*out_json`, an owned string for
/// `memcore_string_free()`:
/// `{"hits": [{"memory": summary, "score": f, "parts": {...}}], "mode": "hybrid",
/// "warnings": [...], "maintenance": [...]}`. Archived and tombstoned memories are left out.
/// Without the embedding model, semantic and hybrid searches fall back to full text and say
/// so in `warnings`; `maintenance` lists index work the search did on the way (finishing a
/// crashed writer's work, catching up an index that had fallen behind).
///
/// Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT` (empty query, limit out of
/// range, unknown mode), `INDEX`, `EMBEDDING`, `IO`.
///
/// # Safety
///
/// `memcore` must be NULL or an open handle; `query` must point to `query_len` readable
/// bytes; `out_json` must point to writable storage for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcore_search(
    memcore: *const memcore_t,
    query: *const c_char,
    query_len: usize,
    mode: u32,
    limit: usize,
    out_json: *mut *mut c_char,
) -> memcore_status {
    boundary::run(|| {
        // SAFETY: the caller passes an open handle (or NULL).
        let memcore = unsafe { memcore_t::borrow(memcore) }?;
        // SAFETY: the caller passes `query_len` readable bytes at `query` (or NULL).
        let text = unsafe { required_str("query", query, query_len) }?;
        non_null("out_json", out_json)?;
        let mode = memcore_search_mode::from_u32(mode)?;
        let results = memcore.search(&Query::new(text).mode(mode).limit(limit))?;
        let text = json::to_string(&results)?;
        // SAFETY: `out_json` is non-NULL and writable (checked above; the contract).
        unsafe { write_out(out_json, string::into_raw(text)) };
        Ok(())
    })
}
