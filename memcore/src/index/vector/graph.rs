//! The HNSW graph (hnsw_rs) over a vector index's rows: built, loaded, searched and dumped
//! on a thread of its own.
//!
//! Why a thread: a graph loaded from a dump borrows the `HnswIo` that loaded it
//! (`Hnsw<'b, ..>` with `'io: 'b`). Keeping both in one struct needs `unsafe` (forbidden in
//! this crate) or a self-referential-struct crate, and leaking the loader would leak on every
//! reload. A thread owns both on its stack, serves the jobs sent over a channel, and drops
//! them in the right order when the index lets go of its end of the channel. The thread also
//! keeps hnsw_rs's panics (asserts in its loader, `unwrap`s on I/O) away from the caller: a
//! panic ends the thread, the index sees the graph failed and falls back to the exact scan.
//!
//! Ids in the graph are row numbers of the log's current generation, the same in every
//! process, so any process can dump the graph and any other can load the dump. The graph
//! always covers a prefix of the rows (`indexed`): rows past it are scanned exactly by the
//! caller, so a graph that is still loading or catching up never hides a row.
//!
//! Files, in the index's `hnsw/` directory: `<basename>.hnsw.graph` and `.hnsw.data` (the
//! dump, under a basename unique to it) and `current.json`
//! (the [`Sidecar`]: which dump is current, for which log generation and rows, with the
//! length and hash of both files, checked before hnsw_rs sees them: its loader calls
//! `process::exit` on a truncated data file).

use std::collections::VecDeque;
use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender, TryRecvError};
use std::time::{Duration, SystemTime};

use hnsw_rs::api::AnnT;
use hnsw_rs::hnsw::Hnsw;
use hnsw_rs::hnswio::{HnswIo, ReloadOptions};
use hnsw_rs::prelude::Distance;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};

use super::log::hash_file;
use super::rows::Rows;
use super::scan::dot;
use crate::store::fsutil::{create_private_dir_all, write_atomic};
use crate::{Error, Result};

/// Layers of the graph: hnsw_rs's `file_dump` only works with its maximum, 16.
const MAX_LAYER: usize = 16;
/// Rows inserted per step while catching up, so searches are answered in between.
const INSERT_CHUNK: usize = 32;
/// New rows after which a graph is dumped again (or an eighth of the graph, if more).
const MIN_DUMP_DELTA: usize = 1024;
/// Format of [`Sidecar`].
const SIDECAR_FORMAT: u32 = 1;
/// Name of the sidecar file.
const SIDECAR: &str = "current.json";
/// Age after which unreferenced files in the graph directory are swept away.
const ORPHAN_AGE: Duration = Duration::from_secs(3600);

/// Cosine distance `1 - a.b` for unit vectors, clamped to `[0, 2]`, that never panics.
///
/// anndists' `DistDot` asserts `a.b <= 1` (+2e-6 with `simdeez_f`, exactly 1 without), which
/// rounding breaks when a stored vector is the query; `DistCosine` recomputes both norms in f64
/// on every call. Vectors here are normalised on the way in, so the dot product is enough.
/// The name is part of every dump (hnsw_rs checks it on load): do not rename or move it.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct DotClamped;

impl Distance<f32> for DotClamped {
    fn eval(&self, va: &[f32], vb: &[f32]) -> f32 {
        let distance = 1.0 - dot(va, vb);
        // Written so that NaN gives 0 too: hnsw_rs panics on a NaN distance.
        if distance >= 0.0 { distance.min(2.0) } else { 0.0 }
    }
}

/// What a dump holds and how to check it, stored beside it as `current.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Sidecar {
    /// [`SIDECAR_FORMAT`].
    format: u32,
    /// The log generation whose row numbers the graph's ids are.
    pub(super) generation: u64,
    /// The embedding model.
    model_id: String,
    /// Vector length.
    dimension: usize,
    /// Links per node (hnsw_rs `max_nb_connection`).
    max_connections: usize,
    /// Candidates while building.
    ef_construction: usize,
    /// The graph holds every row below this that was live when it was dumped.
    pub(super) rows: usize,
    /// Nodes in the graph.
    points: usize,
    /// hnsw_rs basename of the two dump files.
    pub(super) basename: String,
    /// Length of `<basename>.hnsw.graph`.
    graph_len: u64,
    /// [`hash_file`] of it.
    graph_hash: u64,
    /// Length of `<basename>.hnsw.data`.
    data_len: u64,
    /// [`hash_file`] of it.
    data_hash: u64,
}

/// How a graph is built.
#[derive(Debug, Clone)]
pub(super) struct GraphConfig {
    /// The graph directory (`<index>/hnsw`).
    pub(super) dir: PathBuf,
    /// Log generation of the rows.
    pub(super) generation: u64,
    /// The embedding model.
    pub(super) model_id: String,
    /// Vector length.
    pub(super) dimension: usize,
    /// Links per node.
    pub(super) max_connections: usize,
    /// Candidates while building.
    pub(super) ef_construction: usize,
    /// Expected rows (an allocation hint).
    pub(super) capacity: usize,
    /// Whether to dump the graph when it has grown.
    pub(super) persist: bool,
}

impl GraphConfig {
    /// Whether `sidecar` describes a dump this configuration can load.
    pub(super) fn accepts(&self, sidecar: &Sidecar) -> bool {
        sidecar.format == SIDECAR_FORMAT
            && sidecar.generation == self.generation
            && sidecar.model_id == self.model_id
            && sidecar.dimension == self.dimension
            && sidecar.max_connections == self.max_connections
    }
}

/// The current dump's sidecar in `dir`, if there is a readable one.
pub(super) fn read_sidecar(dir: &Path) -> Option<Sidecar> {
    let bytes = fs::read(dir.join(SIDECAR)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Removes the current dump and its sidecar (the rows they describe are gone).
pub(super) fn discard_dump(dir: &Path) {
    if let Some(old) = read_sidecar(dir) {
        let _ = fs::remove_file(dir.join(SIDECAR));
        remove_dump_files(dir, &old.basename);
    }
}

/// Thread states in [`Shared::phase`].
const STARTING: u8 = 0;
/// Serving searches.
const READY: u8 = 1;
/// Ended by an error or a panic; see [`Shared::note`].
const FAILED: u8 = 2;

/// What the thread tells the index without a round trip.
#[derive(Debug)]
struct Shared {
    /// [`STARTING`], [`READY`] or [`FAILED`].
    phase: AtomicU8,
    /// Every live row below this is in the graph.
    indexed: AtomicUsize,
    /// A dump is being written (searches sent now would wait for it).
    dumping: AtomicBool,
    /// Why the thread failed, or the last dump error.
    note: Mutex<Option<String>>,
    /// The graph was ready once: a later failure (reading the log, writing a dump) is not
    /// the loaded dump's.
    served: AtomicBool,
}

/// A search the graph thread is running; [`PendingSearch::wait`] gets its answer.
#[derive(Debug)]
pub(super) struct PendingSearch(Receiver<Found>);

impl PendingSearch {
    /// The answer; `None` if the thread ended first.
    pub(super) fn wait(self) -> Option<Found> {
        self.0.recv().ok()
    }
}

/// A search result from the graph.
#[derive(Debug)]
pub(super) struct Found {
    /// The graph covered the rows below this when it searched.
    pub(super) indexed: usize,
    /// Rows and their distances, nearest first (may include rows at or past `indexed`, and
    /// rows removed since they were inserted).
    pub(super) hits: Vec<(usize, f32)>,
}

/// Work for the graph thread.
enum Job {
    /// Find the `k` nearest of `query` with search width `ef`.
    Search { query: Vec<f32>, k: usize, ef: usize, reply: SyncSender<Found> },
    /// Insert rows `ids` (ascending; their vectors in the snapshot `rows`); afterwards the
    /// graph covers every live row below `upto`. `done` counts the rows inserted so far.
    Insert { ids: Vec<u32>, rows: Rows, upto: usize, done: usize },
    /// Reply once every job sent before has been done.
    Barrier(SyncSender<()>),
    /// Dump now (if there is anything new) and reply with the outcome (tests and
    /// measurements; otherwise dumps happen as the graph grows).
    #[cfg(test)]
    Dump(SyncSender<std::result::Result<(), String>>),
}

/// Where the thread gets its graph.
#[derive(Debug)]
pub(super) enum Source {
    /// A new, empty graph, filled by the rows sent to it.
    Build,
    /// The dump `Sidecar` describes (checked before loading).
    Load(Sidecar),
}

/// The index's end of a graph thread. Dropping it ends the thread.
#[derive(Debug)]
pub(super) struct GraphHandle {
    /// Jobs for the thread.
    tx: Sender<Job>,
    /// State the thread publishes.
    shared: Arc<Shared>,
    /// Log generation of the graph's ids.
    generation: u64,
    /// Rows below this were sent to the thread (or were dead when they would have been).
    sent: usize,
    /// The dump it was loaded from, if any.
    loaded_from: Option<String>,
}

impl GraphHandle {
    /// Starts a thread with a graph from `source`; rows from [`Sidecar::rows`] on (or all,
    /// when building) must then be sent with [`GraphHandle::insert`].
    pub(super) fn start(config: GraphConfig, source: Source) -> Result<Self> {
        let (tx, rx) = mpsc::channel();
        let shared = Arc::new(Shared {
            phase: AtomicU8::new(STARTING),
            indexed: AtomicUsize::new(0),
            dumping: AtomicBool::new(false),
            note: Mutex::new(None),
            served: AtomicBool::new(false),
        });
        let (sent, loaded_from) = match &source {
            Source::Build => (0, None),
            Source::Load(sidecar) => (sidecar.rows, Some(sidecar.basename.clone())),
        };
        let generation = config.generation;
        let thread_shared = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("memcore-hnsw".into())
            .spawn(move || host(&config, source, &rx, &thread_shared))
            .map_err(|e| {
                Error::index("cannot start the vector graph thread", Some(Box::new(e)), "retry")
            })?;
        Ok(Self { tx, shared, generation, sent, loaded_from })
    }

    /// Log generation of the graph's ids.
    pub(super) fn generation(&self) -> u64 {
        self.generation
    }

    /// Rows below this have been sent.
    pub(super) fn sent(&self) -> usize {
        self.sent
    }

    /// The dump this graph was loaded from, if any.
    pub(super) fn loaded_from(&self) -> Option<&str> {
        self.loaded_from.as_deref()
    }

    /// The dump this graph failed to load, if it failed while loading one (not once it had
    /// served: then the log or the disk failed, not the dump).
    pub(super) fn failed_dump(&self) -> Option<&str> {
        let loading = !self.shared.served.load(Ordering::Acquire);
        self.loaded_from().filter(|_| loading && self.failed().is_some())
    }

    /// Sends rows `ids` (ascending, all at or past [`GraphHandle::sent`]) with a snapshot of
    /// the rows that holds them; afterwards the graph will cover every live row below `upto`.
    pub(super) fn insert(&mut self, ids: Vec<u32>, rows: Rows, upto: usize) {
        self.sent = upto;
        // A closed channel means the thread ended; `failed` will say so.
        let _ = self.tx.send(Job::Insert { ids, rows, upto, done: 0 });
    }

    /// Whether the graph is serving, and the rows it covers.
    pub(super) fn ready(&self) -> Option<usize> {
        (self.shared.phase.load(Ordering::Acquire) == READY)
            .then(|| self.shared.indexed.load(Ordering::Acquire))
    }

    /// Whether the thread is writing a dump (for up to a second or two on large graphs), so a
    /// search is better served by the exact scan than by waiting.
    pub(super) fn dumping(&self) -> bool {
        self.shared.dumping.load(Ordering::Acquire)
    }

    /// Why the thread ended, if it did.
    pub(super) fn failed(&self) -> Option<String> {
        (self.shared.phase.load(Ordering::Acquire) == FAILED).then(|| {
            self.shared.note.lock().clone().unwrap_or_else(|| "the graph thread ended".into())
        })
    }

    /// Asks for the `k` nearest rows of `query` (unit length) with search width `ef`; the
    /// caller is free until it [waits](PendingSearch::wait) for them. `None` if the thread is
    /// gone.
    pub(super) fn search(&self, query: &[f32], k: usize, ef: usize) -> Option<PendingSearch> {
        let (reply, answer) = mpsc::sync_channel(1);
        self.tx.send(Job::Search { query: query.to_vec(), k, ef, reply }).ok()?;
        Some(PendingSearch(answer))
    }

    /// Waits until every row sent so far is in the graph; `false` if the thread is gone.
    pub(super) fn barrier(&self) -> bool {
        let (reply, answer) = mpsc::sync_channel(1);
        self.tx.send(Job::Barrier(reply)).is_ok() && answer.recv().is_ok()
    }

    /// Dumps the graph now if it has rows not in the current dump; waits for the outcome.
    #[cfg(test)]
    pub(super) fn dump(&self) -> std::result::Result<(), String> {
        let (reply, answer) = mpsc::sync_channel(1);
        self.tx.send(Job::Dump(reply)).map_err(|_| "the graph thread ended".to_owned())?;
        answer.recv().map_err(|_| "the graph thread ended".to_owned())?
    }
}

/// The thread's body: runs the graph, turning an error or a panic into [`FAILED`].
fn host(config: &GraphConfig, source: Source, rx: &Receiver<Job>, shared: &Shared) {
    let outcome = catch_unwind(AssertUnwindSafe(|| run(config, source, rx, shared)));
    let note = match outcome {
        Ok(Ok(())) => return,
        Ok(Err(e)) => e,
        Err(panic) => format!("the graph panicked: {}", panic_text(panic.as_ref())),
    };
    *shared.note.lock() = Some(note);
    shared.phase.store(FAILED, Ordering::Release);
}

/// Gets the graph, then serves jobs until the channel closes.
fn run(
    config: &GraphConfig,
    source: Source,
    rx: &Receiver<Job>,
    shared: &Shared,
) -> std::result::Result<(), String> {
    // The loader must outlive the graph it loads (declared first, dropped last).
    let mut loader: HnswIo;
    let hnsw: Hnsw<'_, f32, DotClamped>;
    let (indexed, dumped) = match source {
        Source::Build => {
            hnsw = Hnsw::new(
                config.max_connections,
                config.capacity.max(1024),
                MAX_LAYER,
                config.ef_construction,
                DotClamped,
            );
            (0, 0)
        }
        Source::Load(sidecar) => {
            let copy = PrivateCopy::make(&config.dir, &sidecar)?;
            // The vectors stay in the dump, memory-mapped, rather than copied onto the heap:
            // about 150 MB less per process at 97k rows, and processes that load the same
            // dump share its pages. Removing the links after loading keeps the mapping (the
            // dump files are never written again, only removed).
            // (`load_hnsw`, not `load_hnsw_with_dist`, which ignores the mapping option.)
            loader = HnswIo::new(&config.dir, &copy.basename);
            loader.set_options(ReloadOptions::default().set_mmap(true));
            let loaded = loader.load_hnsw::<f32, DotClamped>();
            drop(copy);
            hnsw = loaded.map_err(|e| format!("cannot load the graph dump: {e}"))?;
            if hnsw.get_nb_point() != sidecar.points {
                return Err("the graph dump does not hold the points it should".into());
            }
            (sidecar.rows, sidecar.rows)
        }
    };
    shared.indexed.store(indexed, Ordering::Release);
    shared.served.store(true, Ordering::Release);
    shared.phase.store(READY, Ordering::Release);
    // Inserts run on threads of their own at the lowest priority: a graph builds for minutes
    // after a large ingest, and searches (which scan meanwhile) must not wait for it.
    let inserters = rayon::ThreadPoolBuilder::new()
        .num_threads(std::thread::available_parallelism().map_or(1, |n| n.get()))
        .thread_name(|i| format!("memcore-hnsw-insert-{i}"))
        .start_handler(|_| crate::concurrent::lower_priority_of_this_thread())
        .build()
        .map_err(|e| format!("cannot start the graph's insert threads: {e}"))?;
    serve(&hnsw, &inserters, config, rx, shared, indexed, dumped)
}

/// The job loop: searches are answered as they come; inserts are done a chunk at a time in
/// between (large chunks on the low-priority `inserters`); when there is nothing else to do
/// and the graph has grown enough, it is dumped.
fn serve(
    hnsw: &Hnsw<'_, f32, DotClamped>,
    inserters: &rayon::ThreadPool,
    config: &GraphConfig,
    rx: &Receiver<Job>,
    shared: &Shared,
    mut indexed: usize,
    mut dumped: usize,
) -> std::result::Result<(), String> {
    let mut backlog: VecDeque<Job> = VecDeque::new();
    loop {
        let dump_due = config.persist
            && indexed >= dumped + MIN_DUMP_DELTA.max(dumped / 8)
            && hnsw.get_nb_point() > 0;
        // Block only when there is nothing to do.
        if backlog.is_empty() && !dump_due {
            match rx.recv() {
                Ok(job) => backlog.push_back(job),
                Err(_) => return Ok(()),
            }
        }
        loop {
            match rx.try_recv() {
                Ok(job) => backlog.push_back(job),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return Ok(()),
            }
        }
        // Searches first, in arrival order; the rest keeps its order.
        let mut rest = VecDeque::with_capacity(backlog.len());
        for job in backlog.drain(..) {
            match job {
                Job::Search { query, k, ef, reply } => {
                    let hits = hnsw
                        .search(&query, k, ef.max(k))
                        .into_iter()
                        .map(|n| (n.d_id, n.distance))
                        .collect();
                    let _ = reply.send(Found { indexed, hits });
                }
                other => rest.push_back(other),
            }
        }
        backlog = rest;
        match backlog.pop_front() {
            Some(Job::Insert { ids, rows, upto, done }) => {
                let end = (done + INSERT_CHUNK).min(ids.len());
                let chunk = &ids[done..end];
                let mut vectors = Vec::with_capacity(chunk.len() * config.dimension);
                rows.visit(chunk, &mut |_, vector| vectors.extend_from_slice(vector))
                    .map_err(|e| format!("cannot read the vectors to insert: {e}"))?;
                let batch: Vec<(&[f32], usize)> = vectors
                    .chunks_exact(config.dimension)
                    .zip(chunk)
                    .map(|(vector, &id)| (vector, id as usize))
                    .collect();
                if batch.len() > 8 {
                    inserters.install(|| hnsw.parallel_insert_slice(&batch));
                } else {
                    for item in batch {
                        hnsw.insert_slice(item);
                    }
                }
                if end < ids.len() {
                    indexed = ids[end - 1] as usize + 1;
                    backlog.push_front(Job::Insert { ids, rows, upto, done: end });
                } else {
                    indexed = upto;
                }
                shared.indexed.store(indexed, Ordering::Release);
            }
            Some(Job::Barrier(reply)) => {
                let _ = reply.send(());
            }
            #[cfg(test)]
            Some(Job::Dump(reply)) => {
                let outcome = if indexed > dumped || read_sidecar(&config.dir).is_none() {
                    dump(hnsw, config, indexed)
                } else {
                    Ok(())
                };
                if outcome.is_ok() {
                    dumped = indexed;
                }
                let _ = reply.send(outcome);
            }
            Some(Job::Search { .. }) => {}
            None if dump_due => {
                shared.dumping.store(true, Ordering::Release);
                let outcome = dump(hnsw, config, indexed);
                shared.dumping.store(false, Ordering::Release);
                if let Err(e) = outcome {
                    *shared.note.lock() = Some(e);
                }
                // Also after a failure: do not retry until the graph has grown again.
                dumped = indexed;
            }
            None => {}
        }
    }
}

/// Dumps `hnsw` (covering rows below `indexed`) and makes it the current dump, unless the
/// current one (from another process) already covers as much.
fn dump(
    hnsw: &Hnsw<'_, f32, DotClamped>,
    config: &GraphConfig,
    indexed: usize,
) -> std::result::Result<(), String> {
    create_private_dir_all(&config.dir).map_err(|e| e.to_string())?;
    let wanted = format!("g{:016x}-{indexed}-{:x}", config.generation, nanos());
    // hnsw_rs panics (instead of failing) when it cannot create the files.
    let basename = catch_unwind(AssertUnwindSafe(|| hnsw.file_dump(&config.dir, &wanted)))
        .map_err(|panic| format!("dumping the graph panicked: {}", panic_text(panic.as_ref())))?
        .map_err(|e| format!("dumping the graph failed: {e}"))?;
    let result = publish(hnsw, config, indexed, &basename);
    if result.is_err() {
        remove_dump_files(&config.dir, &basename);
    }
    result
}

/// Checks a fresh dump and points the sidecar at it.
fn publish(
    hnsw: &Hnsw<'_, f32, DotClamped>,
    config: &GraphConfig,
    indexed: usize,
    basename: &str,
) -> std::result::Result<(), String> {
    let (graph, data) = dump_paths(&config.dir, basename);
    let mut sums = [(0, 0); 2];
    for (sum, path) in sums.iter_mut().zip([&graph, &data]) {
        private(path);
        let file = fs::File::open(path).map_err(|e| e.to_string())?;
        file.sync_all().map_err(|e| e.to_string())?;
        *sum = hash_file(path).map_err(|e| e.to_string())?;
    }
    let previous = read_sidecar(&config.dir);
    if let Some(previous) = &previous
        && config.accepts(previous)
        && previous.rows >= indexed
    {
        remove_dump_files(&config.dir, basename);
        return Ok(());
    }
    let sidecar = Sidecar {
        format: SIDECAR_FORMAT,
        generation: config.generation,
        model_id: config.model_id.clone(),
        dimension: config.dimension,
        max_connections: config.max_connections,
        ef_construction: config.ef_construction,
        rows: indexed,
        points: hnsw.get_nb_point(),
        basename: basename.to_owned(),
        graph_len: sums[0].0,
        graph_hash: sums[0].1,
        data_len: sums[1].0,
        data_hash: sums[1].1,
    };
    let json = serde_json::to_vec_pretty(&sidecar).map_err(|e| e.to_string())?;
    write_atomic(&config.dir.join(SIDECAR), &json).map_err(|e| e.to_string())?;
    if let Some(previous) = previous
        && previous.basename != basename
    {
        remove_dump_files(&config.dir, &previous.basename);
    }
    sweep(&config.dir, basename);
    Ok(())
}

/// Hard links to (or, without hard links, copies of) a dump under a name of this process's
/// own, checked against the sidecar, so that neither another process's cleanup nor a damaged
/// file can reach hnsw_rs's loader (which exits the process on a truncated data file).
/// Removed on drop.
struct PrivateCopy {
    /// Directory of the links.
    dir: PathBuf,
    /// Their basename.
    basename: String,
}

impl PrivateCopy {
    /// Links and checks the dump `sidecar` describes.
    fn make(dir: &Path, sidecar: &Sidecar) -> std::result::Result<Self, String> {
        let basename = format!("{}-load-{}-{:x}", sidecar.basename, std::process::id(), nanos());
        let copy = Self { dir: dir.to_path_buf(), basename };
        let (from_graph, from_data) = dump_paths(dir, &sidecar.basename);
        let (to_graph, to_data) = dump_paths(dir, &copy.basename);
        for (from, to, len, hash) in [
            (&from_graph, &to_graph, sidecar.graph_len, sidecar.graph_hash),
            (&from_data, &to_data, sidecar.data_len, sidecar.data_hash),
        ] {
            match fs::hard_link(from, to) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(format!("the graph dump is gone ({e})"));
                }
                // A file system without hard links: copy instead.
                Err(_) => {
                    fs::copy(from, to).map_err(|e| format!("cannot copy the graph dump ({e})"))?;
                }
            }
            let sum = hash_file(to).map_err(|e| format!("cannot read the graph dump ({e})"))?;
            if sum != (len, hash) {
                return Err("the graph dump is damaged (length or hash mismatch)".into());
            }
        }
        Ok(copy)
    }
}

impl Drop for PrivateCopy {
    fn drop(&mut self) {
        remove_dump_files(&self.dir, &self.basename);
    }
}

/// The graph and data files of the dump `basename`.
fn dump_paths(dir: &Path, basename: &str) -> (PathBuf, PathBuf) {
    (dir.join(format!("{basename}.hnsw.graph")), dir.join(format!("{basename}.hnsw.data")))
}

/// Removes the files of the dump `basename` (those that exist).
fn remove_dump_files(dir: &Path, basename: &str) {
    let (graph, data) = dump_paths(dir, basename);
    let _ = fs::remove_file(graph);
    let _ = fs::remove_file(data);
}

/// Makes `path` private (hnsw_rs creates its files with the default mode).
fn private(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = fs::set_permissions(path, fs::Permissions::from_mode(0o600));
}

/// Removes files older than [`ORPHAN_AGE`] that are neither the sidecar nor the dump
/// `current`: dumps replaced while another process was loading them, leftovers of crashes.
fn sweep(dir: &Path, current: &str) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let keep = [format!("{current}.hnsw.graph"), format!("{current}.hnsw.data"), SIDECAR.into()];
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > ORPHAN_AGE);
        if old && !keep.contains(&name) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Nanoseconds since the epoch (for unique names).
fn nanos() -> u128 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

/// The message of a panic payload.
fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}
