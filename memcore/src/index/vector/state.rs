//! The in-memory image of the vector log: rows (their sign bits, and their floats or where
//! the log holds them), their metadata, the guard sample, the key map and the graph, as a
//! process has read them.

use std::collections::HashMap;

use super::graph::GraphHandle;
use super::log::{Entry, FileId};
use super::quantized::QuantizedRows;
use super::rows::Rows;
use super::{DocMeta, GUARD_STRIDE};
use crate::MemoryRef;

/// Where a process is in the log.
#[derive(Debug, Clone, Copy)]
pub(super) struct LogPos {
    /// The file read.
    pub(super) id: FileId,
    /// Its generation.
    pub(super) generation: u64,
    /// End of the last intact record applied.
    pub(super) offset: u64,
    /// File length when last read (a torn tail is not re-read until the length changes).
    pub(super) seen_len: u64,
}

/// The in-memory image of the log.
#[derive(Debug, Default)]
pub(super) struct State {
    /// Whether the rows, metadata and key map hold the log (up to `log`): a process that
    /// has only written has not read them (see `unread`).
    pub(super) loaded: bool,
    /// Where this process's last append ended, while it has not loaded the log.
    pub(super) unread: Option<LogPos>,
    /// The log read, `None` when there is no log file (yet, or any more).
    pub(super) log: Option<LogPos>,
    /// Every row's vector, including removed rows (until compaction): in memory, or read
    /// from the log when it was large when loaded.
    pub(super) rows: Rows,
    /// The same rows as sign bits, for large scans.
    pub(super) quantized: QuantizedRows,
    /// Every row's metadata; `None` once removed or replaced.
    pub(super) metas: Vec<Option<DocMeta>>,
    /// The vectors of rows 0, [`GUARD_STRIDE`], 2 x [`GUARD_STRIDE`]..., contiguous: the
    /// guard's sample, scanned at the speed of contiguous rows (strided reads of `rows` cost
    /// three times as much).
    pub(super) guard: Vec<f32>,
    /// Live key -> row (hashed with foldhash: SipHash was a tenth of loading 100k rows).
    pub(super) by_key: HashMap<MemoryRef, u32, foldhash::fast::RandomState>,
    /// Rows removed or replaced.
    pub(super) dead: usize,
    /// The HNSW graph, when one runs.
    pub(super) graph: Option<GraphHandle>,
    /// A search found the index large enough for a graph.
    pub(super) graph_wanted: bool,
    /// Dumps that failed to load in this process (not tried again).
    pub(super) bad_dumps: Vec<String>,
    /// Graph threads that failed in this process.
    pub(super) graph_failures: u32,
}

impl State {
    /// An empty state with room for about `rows` rows of `dim` components (loading a log of
    /// known size), keeping the vectors in `vectors` (in memory, or in the log).
    pub(super) fn with_capacity(rows: usize, dim: usize, vectors: Rows) -> Self {
        Self {
            rows: vectors,
            metas: Vec::with_capacity(rows),
            by_key: HashMap::with_capacity_and_hasher(rows, foldhash::fast::RandomState::default()),
            quantized: QuantizedRows::with_capacity(rows, dim),
            loaded: true,
            ..Self::default()
        }
    }

    /// Number of rows, live or not.
    pub(super) fn row_count(&self) -> usize {
        self.metas.len()
    }

    /// The log generation, if there is a log and this process has read it.
    pub(super) fn generation(&self) -> Option<u64> {
        self.log.map(|pos| pos.generation)
    }

    /// Applies one log entry (replay and fresh writes go through here alike).
    pub(super) fn apply(&mut self, entry: Entry<'_>) {
        match entry {
            Entry::Add { meta, vector, record } => {
                let row = self.metas.len() as u32;
                let floats = self.rows.push_encoded(vector, record);
                self.quantized.push(floats);
                if (row as usize).is_multiple_of(GUARD_STRIDE) {
                    self.guard.extend_from_slice(floats);
                }
                if let Some(old) = self.by_key.insert(meta.key.clone(), row) {
                    self.kill(old);
                }
                self.metas.push(Some(meta));
            }
            Entry::Remove { key } => {
                // A key that does not parse was never added (adds carry parsed keys).
                let removed = key.parse::<MemoryRef>().ok().and_then(|k| self.by_key.remove(&k));
                if let Some(old) = removed {
                    self.kill(old);
                }
            }
        }
    }

    /// Marks `row` removed.
    pub(super) fn kill(&mut self, row: u32) {
        if let Some(meta) = self.metas.get_mut(row as usize)
            && meta.take().is_some()
        {
            self.dead += 1;
        }
    }

    /// Forgets every row and where the log was (the graph too): the state of a process that
    /// has not read the log. Its next append finds the log's end itself.
    pub(super) fn forget(&mut self) {
        self.reset(None);
        self.loaded = false;
    }

    /// The generation of the log this process last read or appended to, if any.
    pub(super) fn known_generation(&self) -> Option<u64> {
        self.generation().or(self.unread.map(|pos| pos.generation))
    }

    /// Forgets every row (the graph too): the loaded state of an empty or absent log.
    pub(super) fn reset(&mut self, log: Option<LogPos>) {
        let bad_dumps = std::mem::take(&mut self.bad_dumps);
        *self = Self {
            loaded: true,
            log,
            bad_dumps,
            graph_failures: self.graph_failures,
            ..Self::default()
        };
    }
}
