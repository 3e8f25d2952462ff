//! [`VectorIndex`]: nearest neighbours over unit-length embeddings, persisted beside the store
//! and shared by every process that opens it.
//!
//! - **Storage** (`log`): one append-only file, `vectors.log`, with a header (format, dimension,
//!   model id, generation) and checksummed records `add {meta, vector}` / `remove {key}`. A
//!   writer appends a batch and fsyncs (the caller holds the store's lock, so there is one
//!   writer at a time across processes). Every process remembers how far it has read:
//!   [`VectorIndex::refresh`] costs one `stat` when nothing changed and reads only the new tail
//!   otherwise. A torn tail (crash mid-write) is ignored by readers and cut off by the next
//!   writer. When removed or replaced rows pass [`VectorOptions::compact_ratio`], the writer
//!   rewrites the live rows into a new file (new generation) and renames it into place;
//!   readers see the new inode and reload.
//! - **Exact search** (`scan`): rows live in chunks of 1,024 (`rows`), which the graph thread
//!   shares instead of copying; a search is a vectorised dot product per row and a bounded
//!   heap, split over a few threads when large. A process that loads a log of
//!   [`VectorOptions::rows_on_disk_min_rows`] or more keeps only where each row's record is
//!   in the file and reads (and checks again) the ones it scores, in order on the calling
//!   thread (a query process at 100k rows holds 140 MB less).
//!   From [`VectorOptions::quantized_scan_min_rows`] rows it reads the rows' sign bits
//!   instead (`quantized`, a thirty-second of the bytes: the scan is bound by memory
//!   bandwidth) and scores the short list nearest in Hamming distance exactly, so results keep
//!   exact scores: at 100k rows, the window before a graph is ready (after a large ingest, in
//!   a fresh process) costs about a fifth of a float scan.

//! - **Approximate search** (`graph`): from [`VectorOptions::hnsw_threshold`] live rows, an
//!   hnsw_rs graph on a thread of its own, started lazily by the second search (a one-shot
//!   process is better served by the scan than by loading or building a graph). It is loaded
//!   from the last dump when one matches the log, built in the background otherwise, and
//!   dumped again as it grows; until it is ready, searches use the exact scan. Rows the graph
//!   does not cover yet are scanned exactly, so a result never misses a row; removed and
//!   filtered rows are dropped from an over-fetched candidate list. Each graph search is
//!   checked against exact scores of a sample of rows, and searched again wider (or replaced
//!   by the scan) when it provably settled in the wrong region. A small cost model picks the
//!   scan instead when it is cheaper (small indexes, selective filters, small allow-sets).
//! - **Model**: vectors of another model or dimension are never mixed in: opening a log
//!   written with another model fails with an error whose source is [`ModelChanged`].

mod graph;
mod log;
mod persist;
mod pipeline;
mod quantized;
mod rows;
mod scan;
mod search;
mod stamp;
mod state;
mod unread;

#[cfg(test)]
mod measure;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;

use parking_lot::{RwLock, RwLockReadGuard, RwLockUpgradableReadGuard, RwLockWriteGuard};

use self::log::Header;
pub(crate) use self::stamp::remove_level_stamp;
use self::state::State;
use super::{DocFilter, DocMeta};
use crate::store::fsutil::create_private_dir_all;
use crate::{Error, MemoryRef, Result};

/// The recovery hint of errors that a rebuild of the vector index fixes.
const REBUILD: &str = "run `memcore reindex` to rebuild the vector index from the store";

/// The log's file name in the index directory.
const LOG_FILE: &str = "vectors.log";

/// The graph dumps' directory in the index directory.
const GRAPH_DIR: &str = "hnsw";

/// Largest accepted dimension.
pub(crate) const MAX_DIMENSION: usize = 1 << 16;

/// Samples taken to estimate how many rows a filter lets through.
const SELECTIVITY_SAMPLES: usize = 256;

/// Rows the graph may lag behind the log and still be used (the lag is scanned exactly).
const GRAPH_MAX_LAG: usize = 1024;

/// Every this many rows, one is also kept in the guard sample (see `graph_search`).
const GUARD_STRIDE: usize = 32;

/// Search width of the retry when the guard catches a graph search in the wrong region.
const GUARD_RETRY_EF: usize = 512;

/// Cost of checking one row's metadata against a filter, in dot products (measured).
const FILTER_COST: f64 = 0.2;

/// Cost of one row of a scan through the sign bits, in float dot products (measured at 97k
/// MiniLM rows: a search took 3.3 ms against about 17 for the float scan, the short list
/// included).
const QUANTIZED_ROW_COST: f64 = 0.2;

/// Graph threads that may fail in one process before it stops starting them.
const MAX_GRAPH_FAILURES: u32 = 3;

/// Tunables of a [`VectorIndex`]; [`Default`] is what memcore uses.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VectorOptions {
    /// Live rows from which a process runs an HNSW graph (below half of it, a running graph is
    /// dropped). Default 20k: the graph is cheaper per query from about 3k rows, but below
    /// 20k an exact scan costs at most ~5 ms of CPU (a query embedding costs as much), while a
    /// graph costs ~3 ms of CPU per row to build, a second copy of the vectors in memory, and
    /// its dump on disk.
    pub(crate) hnsw_threshold: usize,
    /// Search width of the graph (hnsw_rs `ef`), raised to twice the number of candidates
    /// fetched (about `k` plus a margin, more with removed rows and filters): at 20k MiniLM
    /// vectors, recall@40 is 0.975 with ef 64 and 0.997 with ef 128.
    pub(crate) ef_search: usize,
    /// Candidates considered per insert while building (hnsw_rs `ef_construction`).
    pub(crate) ef_construction: usize,
    /// Links per node (hnsw_rs `max_nb_connection`, "M").
    pub(crate) max_connections: usize,
    /// Check each graph search against exact scores of every [`GUARD_STRIDE`]-th row (see
    /// `graph_search`).
    pub(crate) guard: bool,
    /// Cost of one graph distance evaluation relative to one row of the exact scan; a search
    /// uses the graph only when it is expected to be cheaper (0 means always, for tests).
    pub(crate) graph_visit_cost: f64,
    /// Share of removed or replaced rows in the log that triggers a compaction (which also
    /// rebuilds the graph, whose ids are row numbers).
    pub(crate) compact_ratio: f64,
    /// Removed or replaced rows needed before a compaction, whatever the ratio.
    pub(crate) compact_min_dead: usize,
    /// Load or build the graph on a background thread while searches use the exact scan
    /// (`true`), or wait for it (`false`: tests and measurements).
    pub(crate) background: bool,
    /// Dump the graph to disk as it grows, so that the next open loads it.
    pub(crate) persist_graph: bool,
    /// Rows from which a scan reads the sign bits and scores a short list exactly (default
    /// 4096: below, the short list costs about as much as it saves; `usize::MAX`: always the
    /// float scan, the truth measurements compare with).
    pub(crate) quantized_scan_min_rows: usize,
    /// Rows (estimated from the log's length) from which a process that loads the log keeps
    /// the vectors in the file and reads those a search scores, instead of holding them all
    /// in memory (0: always, for tests). The default keeps logs that may hold fewer live rows
    /// than the graph's threshold (20k) in memory: there every search scans, and reading the
    /// scan's short list costs about 1 µs a row more from the file than from memory. Above it
    /// a warm process searches the graph, which holds its own copy, and rescores only its
    /// candidates. 32k rows, because the estimate counts removed rows too (up to 30% before
    /// a compaction) and guesses the metadata's size.
    pub(crate) rows_on_disk_min_rows: usize,
}

impl Default for VectorOptions {
    fn default() -> Self {
        Self {
            hnsw_threshold: 20_000,
            ef_search: 64,
            ef_construction: 200,
            max_connections: 16,
            graph_visit_cost: 5.0,
            guard: true,
            compact_ratio: 0.3,
            compact_min_dead: 256,
            background: true,
            persist_graph: true,
            quantized_scan_min_rows: 4096,
            rows_on_disk_min_rows: 32_000,
        }
    }
}

/// The source of the error [`VectorIndex::open`] returns when the index on disk holds vectors
/// of another embedding model or dimension: every memory must be embedded again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the vector index holds embeddings of model {found_model:?} ({found_dimension}-d), \
     not {wanted_model:?} ({wanted_dimension}-d)"
)]
pub(crate) struct ModelChanged {
    /// The model of the stored vectors.
    pub(crate) found_model: String,
    /// Their dimension.
    pub(crate) found_dimension: usize,
    /// The model asked for.
    pub(crate) wanted_model: String,
    /// Its dimension.
    pub(crate) wanted_dimension: usize,
}

impl ModelChanged {
    /// The [`ModelChanged`] behind `err`, if that is what `err` is.
    pub(crate) fn of(err: &Error) -> Option<&ModelChanged> {
        std::error::Error::source(err)?.downcast_ref()
    }
}

/// What the approximate-search graph (hnsw_rs) of the vector index is doing; see
/// [`crate::Memcore::vector_graph`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub enum GraphStatus {
    /// No graph runs: the index is small, or no search asked for one yet (exact scan).
    Off,
    /// Loading the dump `basename`, or building from the log when `basename` is `None`
    /// (because there was no usable dump); searches use the exact scan meanwhile.
    Starting {
        /// The dump being loaded.
        basename: Option<String>,
    },
    /// Serving; `indexed` of `rows` rows are in the graph (the rest are scanned exactly, and
    /// while the gap is large the exact scan answers alone).
    Ready {
        /// Rows covered.
        indexed: usize,
        /// Rows in the log.
        rows: usize,
    },
    /// The graph thread ended with this error; searches use the exact scan.
    Failed(String),
}

/// Nearest-neighbour search over the unit-length embeddings of memories, with their
/// filterable metadata, persisted in one directory and shared by several processes.
///
/// `Send + Sync`; every method takes `&self`. Writes (`upsert`, `remove`, `clear`) must be
/// serialised across processes by the caller (the store's lock).
pub(crate) struct VectorIndex {
    /// The index directory.
    dir: PathBuf,
    /// `dir/vectors.log`.
    path: PathBuf,
    /// `dir/hnsw`.
    graph_dir: PathBuf,
    /// Vector length.
    dimension: usize,
    /// The embedding model.
    model_id: String,
    /// Tunables.
    options: VectorOptions,
    /// Rows, metadata, log position and graph.
    state: RwLock<State>,
    /// Searches so far (the graph starts at the second).
    searches: AtomicUsize,
}

impl fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VectorIndex")
            .field("dir", &self.dir)
            .field("model_id", &self.model_id)
            .field("dimension", &self.dimension)
            .field("loaded", &self.state.read().loaded)
            .finish_non_exhaustive()
    }
}

impl VectorIndex {
    /// Opens the vector index in `dir` (created if missing) for vectors of `dimension` from
    /// the model `model_id`, with the default options.
    ///
    /// # Errors
    ///
    /// [`Error::Index`] with a [`ModelChanged`] source (downcast its `source()`) when the
    /// index holds vectors of another model or dimension; [`Error::Index`] when the log's
    /// header is unusable (either way: remove the directory and re-embed; records are read on
    /// first use, see [`VectorIndex::load`]); [`Error::Validation`] for a zero or huge
    /// dimension or an empty model id; [`Error::Io`].
    pub(crate) fn open(dir: &Path, dimension: usize, model_id: &str) -> Result<Self> {
        Self::open_with(dir, dimension, model_id, VectorOptions::default())
    }

    /// [`VectorIndex::open`] with explicit `options`.
    pub(crate) fn open_with(
        dir: &Path,
        dimension: usize,
        model_id: &str,
        options: VectorOptions,
    ) -> Result<Self> {
        if dimension == 0 || dimension > MAX_DIMENSION {
            return Err(Error::validation(
                format!("an embedding dimension of {dimension} is not supported"),
                format!("use an embedder with 1 to {MAX_DIMENSION} dimensions"),
            ));
        }
        if model_id.is_empty() {
            return Err(Error::validation(
                "the embedding model id is empty",
                "give the model a stable, non-empty id",
            ));
        }
        create_private_dir_all(dir)?;
        let index = Self {
            dir: dir.to_path_buf(),
            path: dir.join(LOG_FILE),
            graph_dir: dir.join(GRAPH_DIR),
            dimension,
            model_id: model_id.to_owned(),
            options,
            state: RwLock::new(State::default()),
            searches: AtomicUsize::new(0),
        };
        let header =
            Header { dimension, model_id: model_id.to_owned(), generation: fresh_generation() };
        log::create(&index.dir, &index.path, &header)?;
        // The rows are read on first use (a process that only writes never reads them), the
        // header now: a log of another model is an error of opening.
        if let Some((file, _, _)) = log::open(&index.path)? {
            index.checked_header(&file)?;
        }
        Ok(index)
    }

    /// Reads the log now if this process has not yet (reads do on first use): to read it
    /// beside other work, such as loading the model.
    ///
    /// # Errors
    ///
    /// As [`VectorIndex::open`]; also [`Error::Index`] for a record that is intact but cannot
    /// be decoded.
    pub(crate) fn load(&self) -> Result<()> {
        self.loaded_state().map(drop)
    }

    /// The state, with the log read.
    fn loaded_state(&self) -> Result<RwLockReadGuard<'_, State>> {
        let state = self.state.read();
        if state.loaded {
            return Ok(state);
        }
        drop(state);
        let mut state = self.state.write();
        if !state.loaded {
            self.reload(&mut state)?;
        }
        Ok(RwLockWriteGuard::downgrade(state))
    }

    /// The embedding model of the vectors.
    pub(crate) fn model_id(&self) -> &str {
        &self.model_id
    }

    /// The length of every vector.
    #[cfg(test)]
    pub(crate) fn dimension(&self) -> usize {
        self.dimension
    }

    /// Live entries (reading the log if this process has not yet; 0 if it cannot).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.loaded_state().map_or(0, |state| state.by_key.len())
    }

    /// Whether there are no live entries.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What the HNSW graph is doing.
    pub(crate) fn graph_status(&self) -> GraphStatus {
        let state = self.state.read();
        let Some(graph) = &state.graph else { return GraphStatus::Off };
        if let Some(why) = graph.failed() {
            return GraphStatus::Failed(why);
        }
        match graph.ready() {
            Some(indexed) => GraphStatus::Ready { indexed, rows: state.row_count() },
            None => GraphStatus::Starting { basename: graph.loaded_from().map(str::to_owned) },
        }
    }

    /// The metadata stored with `key`.
    #[cfg(test)]
    pub(crate) fn meta(&self, key: &MemoryRef) -> Option<DocMeta> {
        let state = self.loaded_state().ok()?;
        let row = *state.by_key.get(key)?;
        state.metas[row as usize].clone()
    }

    /// Every live key with the content hash it was embedded from (for `verify`).
    ///
    /// # Errors
    ///
    /// As [`VectorIndex::open`], when the log is read now.
    pub(crate) fn hashes(&self) -> Result<HashMap<MemoryRef, String>> {
        let state = self.loaded_state()?;
        Ok(state
            .by_key
            .iter()
            .filter_map(|(key, &row)| {
                Some((key.clone(), state.metas[row as usize].as_ref()?.hash.clone()))
            })
            .collect())
    }

    /// [`VectorIndex::hashes`], sorted by key.
    #[cfg(test)]
    pub(crate) fn all_keys(&self) -> Result<Vec<(MemoryRef, String)>> {
        let mut keys: Vec<_> = self.hashes()?.into_iter().collect();
        keys.sort();
        Ok(keys)
    }

    /// Adds or replaces the vectors of `items` (by `meta.key`), durably.
    ///
    /// Vectors are normalised to unit length. Nothing is written unless every item is valid.
    ///
    /// # Errors
    ///
    /// [`Error::Validation`] for a vector of the wrong dimension, with a NaN or infinite
    /// element, or of length zero, or an empty key; [`Error::Io`] when the write fails.
    pub(crate) fn upsert(&self, items: &[(DocMeta, Vec<f32>)]) -> Result<()> {
        if items.is_empty() {
            return Ok(());
        }
        let mut buf = Vec::with_capacity(items.len() * (self.dimension * 4 + 256));
        let mut unit = Vec::with_capacity(self.dimension);
        for (meta, vector) in items {
            unit.clear();
            unit.extend_from_slice(vector);
            self.normalise(&mut unit, &meta.key.to_string())?;
            log::encode_add(&mut buf, meta, &unit)?;
        }
        self.write(&buf)
    }

    /// Removes `keys`, durably; keys not in the index are ignored.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the write fails.
    pub(crate) fn remove(&self, keys: &[MemoryRef]) -> Result<()> {
        if keys.is_empty() {
            return Ok(());
        }
        let mut state = self.state.write();
        if !state.loaded {
            // Without the key map, every key gets a record (removing an absent key is a no-op).
            let mut buf = Vec::new();
            for key in keys {
                log::encode_remove(&mut buf, &key.to_string());
            }
            if self.append_unread(&mut state, &buf)? {
                return Ok(());
            }
            self.reload(&mut state)?;
        }
        self.catch_up(&mut state)?;
        let mut buf = Vec::new();
        for key in keys {
            if state.by_key.contains_key(key) {
                log::encode_remove(&mut buf, &key.to_string());
            }
        }
        if buf.is_empty() {
            return Ok(());
        }
        self.append(&mut state, &buf)
    }

    /// Rewrites the log without its removed and replaced rows now, whatever their share, so
    /// that no byte of a removed vector stays on disk (a purge); the graph and its dumps are
    /// dropped with them. Does nothing when no row is dead.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the rewrite fails (the old log stays as it was).
    pub(crate) fn compact_removed(&self) -> Result<()> {
        let mut state = self.state.write();
        if state.loaded {
            self.catch_up(&mut state)?;
        } else {
            self.reload(&mut state)?;
        }
        if state.dead == 0 {
            return Ok(());
        }
        self.compact(&mut state)
    }

    /// Removes every entry (for a reindex), durably: the log is replaced by an empty one and
    /// the graph and its dumps are dropped.
    ///
    /// The index is left unread, as in a process that has only written: the rebuild that
    /// follows appends without keeping a copy of every row (at 100k memories, 150 MB of
    /// floats and their metadata that `memcore reindex` never searches), and the first
    /// search afterwards reads the log.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the write fails.
    pub(crate) fn clear(&self) -> Result<()> {
        let mut state = self.state.write();
        let header = self.header();
        create_private_dir_all(&self.dir)?;
        log::replace(&self.dir, &self.path, &header, |_| Ok(()))?;
        graph::discard_dump(&self.graph_dir);
        state.forget();
        Ok(())
    }

    /// Reads what other processes appended (or replaced) since the last read; nothing before
    /// the first read, which reads everything ([`VectorIndex::load`]).
    ///
    /// Cheap when nothing changed: one `stat`.
    ///
    /// # Errors
    ///
    /// As [`VectorIndex::open`], when another process replaced the log with one of another
    /// model; [`Error::Io`].
    pub(crate) fn refresh(&self) -> Result<()> {
        let state = self.state.upgradable_read();
        // Nothing read, nothing to bring up to date (the first read reads everything).
        if !state.loaded || (!self.log_changed(&state)? && !self.graph_needs_care(&state)) {
            return Ok(());
        }
        let mut state = RwLockUpgradableReadGuard::upgrade(state);
        self.catch_up(&mut state)?;
        self.tend_graph(&mut state);
        Ok(())
    }

    /// Checks `vector`'s length and values and scales it to unit length.
    pub(super) fn normalise(&self, vector: &mut [f32], what: &str) -> Result<()> {
        if vector.len() != self.dimension {
            return Err(Error::validation(
                format!(
                    "the vector of {what} has {} dimensions; the index holds {}-d vectors of {}",
                    vector.len(),
                    self.dimension,
                    self.model_id
                ),
                "embed with the index's model",
            ));
        }
        if vector.iter().any(|x| !x.is_finite()) {
            return Err(Error::validation(
                format!("the vector of {what} contains NaN or infinity"),
                "check the embedder's output",
            ));
        }
        let Some(norm) = scalable_norm(vector) else {
            return Err(Error::validation(
                format!("the vector of {what} has length zero (or too large to compute)"),
                "check the embedder's output",
            ));
        };
        if (norm - 1.0).abs() > 1e-6 {
            vector.iter_mut().for_each(|x| *x /= norm);
        }
        Ok(())
    }
}

/// The length of `vector` as the index computes it, when it can be scaled to unit length:
/// neither zero nor beyond `f32`'s range (for finite values).
pub(crate) fn scalable_norm(vector: &[f32]) -> Option<f32> {
    let norm = scan::dot(vector, vector).sqrt();
    (norm > 0.0 && norm.is_finite()).then_some(norm)
}

/// A random id for a new log file.
fn fresh_generation() -> u64 {
    let mut hasher = RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    hasher.write_u128(nanos);
    hasher.write_u32(std::process::id());
    hasher.finish()
}
