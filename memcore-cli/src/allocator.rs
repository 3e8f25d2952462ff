//! How the `memcore` process asks glibc's allocator to keep freed memory for reuse.
//!
//! Every write commits a new full-text segment, and tantivy builds each segment in fresh
//! buffers on a fresh thread: a 4 MB term table and its arena pages. With glibc's defaults
//! those are returned to the kernel when the segment is written (`madvise`/`munmap`) and
//! faulted in, zero-filled, on the next write. In a long-lived process (`memcore serve`,
//! `memcore mcp`) that churn was about 6 ms of a 15-17 ms single `put` on a 100k store
//! (BENCHMARKS.md, issue 22). Keeping up to [`TRIM_THRESHOLD`] of freed memory per arena,
//! and serving blocks below [`MMAP_THRESHOLD`] from the arenas, makes the next write reuse
//! the same pages.
//!
//! The setting is the process's, so only the command makes it: a host that links the library
//! keeps its own allocator settings (it can set `GLIBC_TUNABLES` the same way).

/// Blocks at least this large are mapped on their own (and unmapped when freed): above
/// tantivy's 4 MB term table.
const MMAP_THRESHOLD: libc::c_int = 8 << 20;
/// Free memory an arena keeps at its top before returning it to the kernel.
const TRIM_THRESHOLD: libc::c_int = 16 << 20;

/// Sets [`MMAP_THRESHOLD`] and [`TRIM_THRESHOLD`]. A refusal (`mallopt` returns 0) leaves
/// glibc's defaults, which are only slower.
#[allow(unsafe_code)]
pub(crate) fn keep_freed_memory_for_reuse() {
    // SAFETY: `mallopt` only changes allocator parameters; it is called before any other
    // thread exists, with parameters glibc documents for it.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
    }
}
