//! Following the log on disk: appending a batch (cutting a torn tail first), reading what
//! other processes appended, reloading a log that was replaced, and compacting one whose dead
//! rows passed the threshold.

use std::io::ErrorKind;
use std::sync::Arc;

use super::log::{self, FileId, Header, HeaderRead};
use super::rows::Rows;
use super::state::{LogPos, State};
use super::{ModelChanged, REBUILD, VectorIndex, fresh_generation, graph, pipeline, unread};
use crate::Error;
use crate::Result;
use crate::store::fsutil::create_private_dir_all;

/// Bytes of a log record besides its vector, about: head, tag and JSON metadata.
const RECORD_GUESS: usize = 200;
/// Rows a compaction asks for in one read pass: after a failed encode or write it stops at
/// the end of the stretch instead of reading the rest of the log.
const COMPACTION_STRETCH: usize = 4_096;

impl VectorIndex {
    /// A header for a new log of this index.
    pub(super) fn header(&self) -> Header {
        Header {
            dimension: self.dimension,
            model_id: self.model_id.clone(),
            generation: fresh_generation(),
        }
    }

    /// Appends `buf` (encoded records): without loading the log when this process has not
    /// and where it ends is known (see `unread`); otherwise catches up with the log, appends
    /// and applies.
    pub(super) fn write(&self, buf: &[u8]) -> Result<()> {
        let mut state = self.state.write();
        if !state.loaded {
            if self.append_unread(&mut state, buf)? {
                return Ok(());
            }
            self.reload(&mut state)?;
        }
        self.catch_up(&mut state)?;
        self.append(&mut state, buf)
    }

    /// Appends `buf` to the log (creating the log if it vanished), applies it, compacts when
    /// due and feeds the graph. The caller has caught up.
    pub(super) fn append(&self, state: &mut State, buf: &[u8]) -> Result<()> {
        if state.log.is_none() {
            create_private_dir_all(&self.dir)?;
            log::create(&self.dir, &self.path, &self.header())?;
            self.reload(state)?;
        }
        let Some(pos) = state.log else {
            return Err(Error::index(
                format!("the vector index {} vanished while being written", self.path.display()),
                None,
                REBUILD,
            ));
        };
        let end = log::append(&self.path, pos.id, pos.offset, buf)?;
        self.apply_bytes(state, buf, pos.offset)?;
        state.log = Some(LogPos { offset: end, seen_len: end, ..pos });
        if self.compaction_due(state) {
            self.compact(state)?;
        }
        if let Some(pos) = state.log {
            unread::record_end(&self.dir, pos.generation, pos.offset);
        }
        self.tend_graph(state);
        Ok(())
    }

    /// Applies records just written at offset `at` of the log (decoding them as a reader
    /// would).
    pub(super) fn apply_bytes(&self, state: &mut State, buf: &[u8], at: u64) -> Result<()> {
        let to = at + buf.len() as u64;
        let end =
            log::read_records(&mut &*buf, &self.path, at, to, self.dimension, &mut |entry| {
                state.apply(entry)
            })?;
        if end != to {
            return Err(Error::index(
                "the vector index wrote a record it cannot read",
                None,
                REBUILD,
            ));
        }
        Ok(())
    }

    /// Whether the log file changed since it was last read.
    pub(super) fn log_changed(&self, state: &State) -> Result<bool> {
        match std::fs::metadata(&self.path) {
            Ok(meta) => Ok(match state.log {
                Some(pos) => FileId::of(&meta) != pos.id || meta.len() != pos.seen_len,
                None => true,
            }),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(state.log.is_some()),
            Err(e) => {
                Err(Error::io(format!("reading the vector index {}", self.path.display()), e))
            }
        }
    }

    /// Brings `state` level with the log file: reads the new tail, or everything when the
    /// file was replaced.
    pub(super) fn catch_up(&self, state: &mut State) -> Result<()> {
        if !self.log_changed(state)? {
            return Ok(());
        }
        let Some(pos) = state.log else {
            return self.reload(state);
        };
        let Some((file, id, len)) = log::open(&self.path)? else {
            state.reset(None);
            return Ok(());
        };
        if id != pos.id || len < pos.offset {
            return self.reload(state);
        }
        let end = log::read_file_records(
            &file,
            &self.path,
            pos.offset,
            len,
            self.dimension,
            &mut |entry| state.apply(entry),
        )?;
        state.log = Some(LogPos { offset: end, seen_len: len, ..pos });
        Ok(())
    }

    /// The header of the log `file`, and where its records start.
    ///
    /// # Errors
    ///
    /// [`Error::Index`] for a header this code cannot use, or (with a [`ModelChanged`]
    /// source) one of another model or dimension; [`Error::Io`].
    pub(super) fn checked_header(&self, file: &std::fs::File) -> Result<(Header, u64)> {
        let io_failed =
            |e| Error::io(format!("reading the vector index {}", self.path.display()), e);
        let (header, start) = match Header::read(file).map_err(io_failed)? {
            HeaderRead::Valid(header, start) => (header, start),
            HeaderRead::Unusable(why) => {
                return Err(Error::index(
                    format!("the vector index {} is unusable: {why}", self.path.display()),
                    None,
                    REBUILD,
                ));
            }
        };
        if header.model_id != self.model_id || header.dimension != self.dimension {
            let changed = ModelChanged {
                found_model: header.model_id,
                found_dimension: header.dimension,
                wanted_model: self.model_id.clone(),
                wanted_dimension: self.dimension,
            };
            return Err(Error::index(
                format!("{changed}: every memory must be embedded again"),
                Some(Box::new(changed)),
                REBUILD,
            ));
        }
        Ok((header, start))
    }

    /// Reads the whole log into `state` (keeping the graph if the generation is unchanged).
    pub(super) fn reload(&self, state: &mut State) -> Result<()> {
        let Some((file, id, len)) = log::open(&self.path)? else {
            state.reset(None);
            return Ok(());
        };
        let (header, start) = self.checked_header(&file)?;
        // Room for the rows the file holds at about 200 bytes of metadata each: the maps then
        // never grow (and copy themselves) while loading.
        let record = (RECORD_GUESS + self.dimension * 4) as u64;
        // (An estimate, capped: a damaged or sparse file may claim any length. It also
        // decides whether the floats stay in the file.)
        let rows =
            usize::try_from(len.saturating_sub(start) / record).map_or(0, |r| r.min(1 << 20));
        let file = Arc::new(file);
        let vectors = if rows >= self.options.rows_on_disk_min_rows {
            Rows::on_disk(Arc::clone(&file))
        } else {
            Rows::default()
        };
        let mut fresh = State::with_capacity(rows, self.dimension, vectors);
        let end = pipeline::read_into(&file, &self.path, start, len, self.dimension, &mut fresh)?;
        fresh.log = Some(LogPos { id, generation: header.generation, offset: end, seen_len: len });
        fresh.graph_wanted = state.graph_wanted;
        fresh.bad_dumps = std::mem::take(&mut state.bad_dumps);
        fresh.graph_failures = state.graph_failures;
        if state.generation() == Some(header.generation) {
            fresh.graph = state.graph.take();
        }
        *state = fresh;
        Ok(())
    }

    /// Whether enough rows are dead to rewrite the log.
    pub(super) fn compaction_due(&self, state: &State) -> bool {
        state.dead >= self.options.compact_min_dead
            && state.dead as f64 >= self.options.compact_ratio * state.row_count() as f64
    }

    /// Rewrites the log with the live rows only, in row order, under a new generation; drops
    /// the graph (its ids were the old row numbers) and the old dumps.
    pub(super) fn compact(&self, state: &mut State) -> Result<()> {
        let stamped = self.stamp_names(state);
        let header = self.header();
        let live: Vec<u32> =
            (0..state.row_count() as u32).filter(|&r| state.metas[r as usize].is_some()).collect();
        // Encoding and reading fail with our errors, which `replace` would report as a
        // failed write: kept here and returned instead.
        let mut failure = None;
        log::replace(&self.dir, &self.path, &header, |out| {
            let mut buf = Vec::with_capacity(64 * 1024);
            let mut written = Ok(());
            // A stretch of rows at a time, so that a failure stops the reading too.
            for stretch in live.chunks(COMPACTION_STRETCH) {
                let read = state.rows.visit(stretch, &mut |row, vector| {
                    if written.is_err() || failure.is_some() {
                        return;
                    }
                    let Some(meta) = &state.metas[row as usize] else { return };
                    if let Err(e) = log::encode_add(&mut buf, meta, vector) {
                        failure = Some(e);
                    } else if buf.len() >= 1 << 20 {
                        written = out.write_all(&buf);
                        buf.clear();
                    }
                });
                if let Err(e) = read {
                    failure = Some(self.read_failed(e));
                }
                if failure.is_some() {
                    return Err(std::io::Error::other("compaction stopped"));
                }
                if written.is_err() {
                    break;
                }
            }
            written?;
            out.write_all(&buf)
        })
        .map_err(|e| failure.take().unwrap_or(e))?;
        graph::discard_dump(&self.graph_dir);
        state.graph = None;
        self.reload(state)?;
        if stamped && let Some(generation) = state.generation() {
            // Best effort: without the stamp, the next process compares the indexes again.
            let _ = self.write_stamp(generation);
        }
        Ok(())
    }
}
