//! An embedding model written in C (or reached from C: a hosted API, another runtime):
//! `memcore_open_with_embedder` opens a store whose semantic and hybrid search embed through
//! a callback. memcore owns every buffer: the callback reads the texts and fills a float
//! array memcore allocated, so no memory changes hands.

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use memcore::{CallbackEmbedder, EmbedCallback, Memcore};

use crate::boundary::{self, Failure, UserData, non_null, required_str, write_out};
use crate::handle::{memcore_t, store_dir};
use crate::status::memcore_status;

/// An embedding callback: embed the `count` texts (`texts[i]`, UTF-8, `text_lens[i]` bytes,
/// all valid during the call; each is also NUL-terminated, but a memory may hold NUL bytes,
/// so `text_lens[i]` is its length, not `strlen`) into `vectors`, a zeroed array of
/// `count * dimension` floats (row `i`, from `vectors + i * dimension`, is the vector of
/// text `i`), and return 0. Any other return value is a failure: a write keeps its memories
/// and embeds them on a later search (which falls back to full text, with a warning, until
/// it can); a search whose query cannot be embedded fails with `MEMCORE_STATUS_CALLBACK`.
///
/// Vectors need not be normalised; they must be finite and not all zero (else the call
/// fails the same way). The callback may be
/// called from any thread that calls memcore with the handle, and from several at once, so
/// it and `user_data` must be safe to use from several threads. It must return normally: no
/// C++ exception or `longjmp` may leave it.
pub type memcore_embed_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        texts: *const *const c_char,
        text_lens: *const usize,
        count: usize,
        vectors: *mut f32,
    ) -> i32,
>;

/// The callback and its user data as the function a [`CallbackEmbedder`] calls.
fn embed_function(
    callback: unsafe extern "C" fn(
        *mut c_void,
        *const *const c_char,
        *const usize,
        usize,
        *mut f32,
    ) -> i32,
    dimension: usize,
    user_data: UserData,
) -> Arc<EmbedCallback> {
    Arc::new(move |texts: &[&str]| {
        // NUL-terminated as well as measured.
        let owned: Vec<String> = texts.iter().map(|text| format!("{text}\0")).collect();
        let pointers: Vec<*const c_char> = owned.iter().map(|t| t.as_ptr().cast()).collect();
        let lens: Vec<usize> = texts.iter().map(|text| text.len()).collect();
        let floats = texts
            .len()
            .checked_mul(dimension)
            .ok_or_else(|| "too many texts at once".to_owned())?;
        let mut vectors = vec![0.0_f32; floats];
        // SAFETY: the callback was given by the caller of `memcore_open_with_embedder` with
        // the contract of `memcore_embed_fn`; the texts, lengths and the vector array (of
        // `count * dimension` floats) outlive the call.
        let status = unsafe {
            callback(
                user_data.pointer(),
                pointers.as_ptr(),
                lens.as_ptr(),
                texts.len(),
                vectors.as_mut_ptr(),
            )
        };
        if status != 0 {
            return Err(format!("it returned {status}"));
        }
        Ok(vectors.chunks_exact(dimension).map(<[f32]>::to_vec).collect())
    })
}

/// Opens the store in the directory `path` (UTF-8, `path_len` bytes) as `memcore_open()`
/// does, with an embedding model of the caller's own for semantic and hybrid search
/// instead of the built-in all-MiniLM-L6-v2: `embed` (see `memcore_embed_fn`) returns
/// vectors of `dimension` floats, and `model_id` (UTF-8, `model_id_len` bytes) names the
/// model. The model id is stored with every vector: a store whose vectors came from another
/// model id is embedded again on its first semantic search, so every process that opens the
/// store must use the same embedder (handles still open with the old model turn semantic
/// search off, with a warning, rather than mix the two). `user_data` is passed to every
/// call.
///
/// On success writes a new handle to `*out`; free it with `memcore_close()`.
///
/// Errors: `NULL_PARAMETER` (`path`, `model_id`, `embed` or `out` NULL), `INVALID_UTF8`,
/// `INVALID_ARGUMENT` (an empty path or model id, a dimension of 0 or above 65,536, a bad
/// config), `IO`.
///
/// # Safety
///
/// `path` must point to `path_len` readable bytes and `model_id` to `model_id_len`; `embed`
/// must follow the contract of `memcore_embed_fn`, and it and `user_data` stay valid until
/// `memcore_close()`; `out` must point to writable storage for one pointer.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn memcore_open_with_embedder(
    path: *const c_char,
    path_len: usize,
    model_id: *const c_char,
    model_id_len: usize,
    dimension: usize,
    embed: memcore_embed_fn,
    user_data: *mut c_void,
    out: *mut *mut memcore_t,
) -> memcore_status {
    boundary::run(|| {
        // SAFETY: the caller passes `path_len` readable bytes at `path` (or NULL).
        let path = unsafe { required_str("path", path, path_len) }?;
        // SAFETY: the caller passes `model_id_len` readable bytes at `model_id` (or NULL).
        let model_id = unsafe { required_str("model_id", model_id, model_id_len) }?;
        let Some(embed) = embed else {
            return Err(Failure::new(
                memcore_status::NullParameter,
                "`embed` is NULL",
                "pass the embedding callback (or open with memcore_open() for the built-in model)",
            ));
        };
        non_null("out", out)?;
        let function = embed_function(embed, dimension, UserData(user_data));
        let embedder = CallbackEmbedder::new(model_id, dimension, function)?;
        let memcore =
            Memcore::builder().path(store_dir(path)?).embedder(Arc::new(embedder)).open()?;
        // SAFETY: `out` is non-NULL and writable (checked above; this function's contract).
        unsafe { write_out(out, memcore_t::into_raw(memcore)) };
        Ok(())
    })
}
