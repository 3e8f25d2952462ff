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
//! A command that is not a server also caps glibc's arenas at one per core (at least two).
//! By default glibc makes up to eight per core, one for each thread that finds the others
//! busy; a batch write runs the store write, the embedder's sessions, tantivy's indexing and
//! merging threads on threads of their own, and each arena kept the free memory of the slices
//! before it. One `memcore put` of 20,000 corpus passages peaked at 267-280 MB resident with
//! the default arenas and at 216-230 MB with two (this machine's cores), in the same time.
//! Servers keep the default: a single put's commit runs on a fresh thread, which finds the
//! arena of the thread before it with the buffers it freed; with two arenas a put through a
//! long-lived process on a 100k store took 7.0-9.2 instead of 6.4-6.8 ms p50 (BENCHMARKS.md,
//! issue 22).
//!
//! The setting is the process's, so only the command makes it: a host that links the library
//! keeps its own allocator settings (it can set `GLIBC_TUNABLES` the same way).

/// Blocks at least this large are mapped on their own (and unmapped when freed): above
/// tantivy's 4 MB term table.
const MMAP_THRESHOLD: libc::c_int = 8 << 20;
/// Free memory an arena keeps at its top before returning it to the kernel.
const TRIM_THRESHOLD: libc::c_int = 16 << 20;

/// Sets [`MMAP_THRESHOLD`] and [`TRIM_THRESHOLD`], and unless the process `serves`, at most
/// one arena per core (at least two). A refusal (`mallopt` returns 0) leaves glibc's
/// defaults, which are only slower or larger.
#[allow(unsafe_code)]
pub(crate) fn keep_freed_memory_for_reuse(serves: bool) {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let arenas = libc::c_int::try_from(cores.max(2)).unwrap_or(libc::c_int::MAX);
    // SAFETY: `mallopt` only changes allocator parameters; it is called (as the host's
    // `before_command`, right after the command line is parsed) before any other thread
    // exists, with parameters glibc documents for it.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
        if !serves {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
}
