//! [`ColdArchive`]: the cold tier. Full transcripts, raw tool traces and memories demoted
//! from the warm tier, kept in compressed append-only segments (zstd JSON lines, one file per
//! quarter, see `segment.rs`) with a full-text index of their own (`index.rs`), so that the
//! archive is searchable without decompressing it, and never deleted except by
//! [`ColdArchive::purge`].
//!
//! ```text
//! <dir>/segments/2026-q4.1.jsonl.zst   records of 2026's fourth quarter (`zstd -dc` prints them)
//! <dir>/index/                         the archive's tantivy index (derived: `repair` rebuilds it)
//! <dir>/damaged/                       frames `repair` set aside
//! <dir>/lock                           writers' lock
//! ```
//!
//! Every write holds the archive's lock, appends whole frames durably, then commits the
//! index with how far each segment is indexed: a writer that dies between the two leaves
//! frames the next writer indexes, and a record archived again after a failure is
//! recognised (same id, same record) instead of stored twice. Purging rewrites the segments
//! that hold the records as their next generation, points the index at it, compacts the
//! index so no file keeps their terms, and removes the old generation; a crash in between
//! leaves both generations, and the next writer keeps the newer.

mod index;
mod record;
mod segment;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use index::ArchiveFilter;
use index::{ArchiveIndex, ArchiveWriter, Location};
pub use record::{ArchivedKind, ArchivedRecord, MAX_RECORD_ID_LEN};

use super::super::fsutil::{
    create_private_dir_all, remove_file_if_present, sync_dir, write_atomic,
};
use super::super::lock::StoreLock;
use crate::{Error, MemoryRef, Result};

/// The most records one frame holds: a hit decompresses its whole frame (about 1 MB of JSON
/// lines for conversation turns; only the hits' lines are parsed).
const FRAME_RECORDS: usize = 1_024;

/// A record found by [`ColdArchive::search`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ArchiveHit {
    /// The record.
    pub record: ArchivedRecord,
    /// Its BM25 score.
    pub score: f32,
}

/// What [`ColdArchive::archive`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ArchiveReport {
    /// Records appended.
    pub archived: usize,
    /// Records that were archived already, exactly so (a retried batch): left as they were.
    pub already: usize,
}

/// What [`ColdArchive::purge`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct PurgeReport {
    /// Records removed.
    pub purged: usize,
    /// Ids asked for that the archive does not hold.
    pub missing: Vec<String>,
    /// Segments rewritten without them.
    pub segments_rewritten: usize,
}

/// What [`ColdArchive::verify`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ArchiveCheck {
    /// Segment files.
    pub segments: usize,
    /// Records read from them.
    pub records: usize,
    /// Entries of the index.
    pub indexed: usize,
    /// Frames that could not be read (`segment@offset: why`).
    pub damaged: Vec<String>,
    /// Bytes after the last whole frame of a segment (a torn append).
    pub torn_bytes: u64,
    /// Records the index lacks.
    pub unindexed: usize,
    /// Index entries with no record where they point.
    pub dangling: usize,
}

impl ArchiveCheck {
    /// Whether the segments are whole and the index matches them.
    pub fn consistent(&self) -> bool {
        self.damaged.is_empty() && self.torn_bytes == 0 && self.unindexed == 0 && self.dangling == 0
    }
}

/// What [`ColdArchive::repair`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ArchiveRepair {
    /// Torn bytes cut from the ends of segments.
    pub torn_bytes: u64,
    /// Damaged frames moved to `damaged/` (their records are lost from the archive).
    pub frames_set_aside: usize,
    /// Records indexed when the index was rebuilt.
    pub reindexed: usize,
}

/// The cold tier's archive in one directory. `Send + Sync`; several processes may share it.
///
/// ```
/// use memcore::{ArchiveFilter, ArchivedKind, ArchivedRecord, ColdArchive, now};
/// let dir = tempfile::tempdir()?;
/// let archive = ColdArchive::open(dir.path(), std::time::Duration::from_secs(5))?;
/// archive.archive(vec![
///     ArchivedRecord::new("s1/1", ArchivedKind::Turn, now(), "The heron nests by the weir.")
///         .session("s1"),
/// ])?;
/// let hits = archive.search("heron", &ArchiveFilter::default(), 10)?;
/// assert_eq!(hits[0].record.id, "s1/1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ColdArchive {
    dir: PathBuf,
    segments: PathBuf,
    index: ArchiveIndex,
    lock: StoreLock,
}

impl ColdArchive {
    /// Opens (creating) the archive in `dir`; writers wait up to `lock_timeout` for each
    /// other. An index that cannot be read is rebuilt from the segments.
    pub fn open(dir: impl AsRef<Path>, lock_timeout: Duration) -> Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        let segments = dir.join("segments");
        create_private_dir_all(&segments)?;
        let lock = StoreLock::new(&dir.join("lock"), lock_timeout);
        let index_dir = dir.join("index");
        let (index, rebuild) = match ArchiveIndex::open(&index_dir) {
            Ok(index) => (index, false),
            // Another process may have been creating it: tried again under the lock before
            // it is taken for damaged and rebuilt.
            Err(Error::Index { .. }) => {
                let _guard = lock.acquire()?;
                match ArchiveIndex::open(&index_dir) {
                    Ok(index) => (index, false),
                    Err(Error::Index { .. }) => (ArchiveIndex::create_fresh(&index_dir)?, true),
                    Err(e) => return Err(e),
                }
            }
            Err(e) => return Err(e),
        };
        let archive = Self { dir, segments, index, lock };
        if rebuild {
            archive.repair()?;
        }
        Ok(archive)
    }

    /// Archives `records`, durably, in one commit. A record whose id is archived already is
    /// left alone when it is the same record (a retried batch) and a [`Error::Conflict`]
    /// otherwise, as is an id given twice; nothing is written then.
    pub fn archive(&self, records: Vec<ArchivedRecord>) -> Result<ArchiveReport> {
        let mut seen = HashSet::with_capacity(records.len());
        for record in &records {
            record.validate()?;
            if !seen.insert(record.id.as_str()) {
                return Err(Error::validation(
                    format!("archive record {} is given twice in one batch", record.id),
                    "give each record once",
                ));
            }
        }
        let _guard = self.lock.acquire()?;
        self.index.refresh()?;
        let writer = self.recover()?;
        let mut report = ArchiveReport::default();
        let mut fresh: BTreeMap<String, Vec<ArchivedRecord>> = BTreeMap::new();
        for record in records {
            match self.read(&record.id)? {
                Some(held) if held == record => report.already += 1,
                Some(_) => {
                    return Err(Error::conflict(
                        format!("archive record {} exists with other content", record.id),
                        "purge it first to replace it, or give the new record another id",
                    ));
                }
                None => fresh.entry(segment::quarter_of(record.at)).or_default().push(record),
            }
        }
        if fresh.is_empty() {
            return Ok(report);
        }
        let current = self.current_segments()?;
        let mut writer = match writer {
            Some(writer) => writer,
            None => self.index.writer(false)?,
        };
        for (quarter, records) in fresh {
            let name = segment::file_name(&quarter, current.get(&quarter).copied().unwrap_or(1));
            let path = self.segments.join(&name);
            for frame_records in records.chunks(FRAME_RECORDS) {
                let frame = segment::encode(frame_records)?;
                let covered = writer.indexed_len(&name).unwrap_or(0);
                let offset = segment::append(&path, &frame, covered)?;
                writer.add(&name, offset, frame_records)?;
                writer.mark(&name, offset + frame.len() as u64);
                report.archived += frame_records.len();
            }
        }
        writer.commit(false)?;
        Ok(report)
    }

    /// The record `id`: [`Error::NotFound`] when the archive does not hold it.
    pub fn get(&self, id: &str) -> Result<ArchivedRecord> {
        self.index.refresh()?;
        self.retrying(|| self.read(id))?.ok_or_else(|| {
            Error::not_found(
                format!("archived record '{id}'"),
                "search the archive for it, or check the id",
            )
        })
    }

    /// The records of the memory `reference` demoted from the warm tier (ids
    /// `collection/id@<digest>`: one per version demoted), oldest first.
    pub fn demoted(&self, reference: &MemoryRef) -> Result<Vec<ArchivedRecord>> {
        self.index.refresh()?;
        let prefix = format!("{reference}@");
        let mut records = Vec::new();
        for location in self.retrying(|| self.index.with_id_prefix(&prefix))? {
            if let Some(record) = self.retrying(|| self.read(&location.id))? {
                records.push(record);
            }
        }
        records.sort_by_key(|record| record.memory.as_ref().map(|m| m.updated_at));
        Ok(records)
    }

    /// The best `limit` records for `text` among those `filter` lets through, best first.
    /// Blank text is an [`Error::Validation`].
    pub fn search(
        &self,
        text: &str,
        filter: &ArchiveFilter,
        limit: usize,
    ) -> Result<Vec<ArchiveHit>> {
        if text.trim().is_empty() {
            return Err(Error::validation(
                "the search text is empty",
                "give some words to search the archive for",
            ));
        }
        if limit == 0 {
            return Ok(Vec::new());
        }
        self.index.refresh()?;
        self.retrying(|| self.search_now(text, filter, limit))
    }

    /// Runs `read`; when it fails, reloads the index and runs it again once: a purge in
    /// another process (or thread) may have replaced the segment the index placed a record
    /// in between the lookup and the read.
    fn retrying<T>(&self, read: impl Fn() -> Result<T>) -> Result<T> {
        read().or_else(|_| {
            self.index.refresh()?;
            read()
        })
    }

    /// [`ColdArchive::search`] with the reader as it is.
    fn search_now(
        &self,
        text: &str,
        filter: &ArchiveFilter,
        limit: usize,
    ) -> Result<Vec<ArchiveHit>> {
        let found = self.index.search(text, filter, limit)?;
        // Each frame read once, for all of its hits.
        let mut wanted: BTreeMap<(&str, u64), Vec<&str>> = BTreeMap::new();
        for (location, _) in &found {
            wanted.entry((&location.segment, location.offset)).or_default().push(&location.id);
        }
        let mut records = HashMap::with_capacity(found.len());
        for ((name, offset), ids) in wanted {
            records.extend(segment::read_records(&self.segments.join(name), offset, &ids)?);
        }
        found
            .iter()
            .map(|(location, score)| {
                let record = records.remove(&location.id).ok_or_else(|| dangling(location))?;
                Ok(ArchiveHit { record, score: *score })
            })
            .collect()
    }

    /// Visits every record, segment by segment (oldest quarter first), in the order archived;
    /// a frame that cannot be read arrives as an `Err`, and the visit goes on.
    pub fn scan(
        &self,
        visit: &mut dyn FnMut(Result<ArchivedRecord>) -> ControlFlow<()>,
    ) -> Result<()> {
        for name in self.current_segments()?.iter().map(|(q, g)| segment::file_name(q, *g)) {
            for (_, frame) in segment::read_all(&self.segments.join(name))?.frames {
                let records = match frame {
                    Ok(records) => records,
                    Err(e) => {
                        if visit(Err(e)).is_break() {
                            return Ok(());
                        }
                        continue;
                    }
                };
                for record in records {
                    if visit(Ok(record)).is_break() {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }

    /// Removes the records `ids` from the archive: their segments are rewritten without them
    /// and the index compacted, so that no segment or index file keeps their text. Ids the
    /// archive does not hold are listed in the report. A record in a damaged frame is an
    /// [`Error::Corrupted`]: run [`ColdArchive::repair`] first.
    pub fn purge(&self, ids: &[String]) -> Result<PurgeReport> {
        let _guard = self.lock.acquire()?;
        self.index.refresh()?;
        // The writer recovery leaves is dropped: a purge merges without background merges.
        self.recover()?;
        let mut report = PurgeReport::default();
        let mut by_segment: BTreeMap<String, HashSet<String>> = BTreeMap::new();
        for id in ids {
            match self.index.locate(id)? {
                Some(location) => {
                    by_segment.entry(location.segment).or_default().insert(location.id);
                }
                None => report.missing.push(id.clone()),
            }
        }
        if by_segment.is_empty() {
            return Ok(report);
        }
        let mut writer = self.index.writer(true)?;
        let mut replaced = Vec::new();
        for (name, purged) in &by_segment {
            let (quarter, generation) = segment::parse_name(name).ok_or_else(|| unknown(name))?;
            let old = self.segments.join(name);
            let mut contents = segment::read_all(&old)?;
            // Damage may hide a purged record's text: it cannot be cleaned before `repair`.
            if contents.is_damaged() {
                return Err(Error::corrupted(
                    old,
                    None,
                    "the archive segment holding a record to purge is damaged",
                    "run `memcore repair` (it sets the damage aside in damaged/, which a purge \
                     does not read: remove those files by hand if they may hold the text), \
                     then purge again",
                ));
            }
            let mut kept_frames = Vec::new();
            let mut kept_records = Vec::new();
            for (info, frame) in std::mem::take(&mut contents.frames) {
                let records = frame?;
                let before = records.len();
                let kept: Vec<_> =
                    records.into_iter().filter(|r| !purged.contains(&r.id)).collect();
                report.purged += before - kept.len();
                // A frame without purged records is copied as it is, not compressed again.
                if kept.len() == before {
                    kept_frames.push(contents.slice(info.offset, info.end()).to_vec());
                } else if !kept.is_empty() {
                    kept_frames.push(segment::encode(&kept)?);
                } else {
                    continue;
                }
                kept_records.push(kept);
            }
            let new_name = segment::file_name(&quarter, next_generation(generation)?);
            let offsets = segment::write_new(&self.segments.join(&new_name), &kept_frames)?;
            writer.forget(name);
            for (offset, records) in offsets.iter().zip(&kept_records) {
                writer.add(&new_name, *offset, records)?;
            }
            let len = kept_frames.iter().map(|f| f.len() as u64).sum();
            writer.mark(&new_name, len);
            replaced.push(old);
            report.segments_rewritten += 1;
        }
        writer.commit(true)?;
        for old in replaced {
            remove_file_if_present(&old, "archive segment")?;
        }
        sync_dir(&self.segments)?;
        Ok(report)
    }

    /// Removes every record of `session`: see [`ColdArchive::purge`].
    pub fn purge_session(&self, session: &str) -> Result<PurgeReport> {
        crate::session::registry::check_name("session id", session)?;
        self.index.refresh()?;
        let filter =
            ArchiveFilter { sessions: vec![session.to_owned()], ..ArchiveFilter::default() };
        let ids: Vec<String> =
            self.index.matching(&filter)?.into_iter().map(|location| location.id).collect();
        self.purge(&ids)
    }

    /// Compares the segments with the index, reading every frame, while no writer (an
    /// archive, a purge, a repair) changes them: a writer holding the archive past the lock
    /// timeout is an [`Error::Conflict`].
    pub fn verify(&self) -> Result<ArchiveCheck> {
        let _guard = self.lock.acquire()?;
        self.index.refresh()?;
        let mut check = ArchiveCheck::default();
        let mut held: HashSet<(String, String, u64)> = HashSet::new();
        for (quarter, generation) in self.current_segments()? {
            let name = segment::file_name(&quarter, generation);
            let contents = segment::read_all(&self.segments.join(&name))?;
            check.segments += 1;
            check.torn_bytes += contents.layout.torn;
            for (start, end) in &contents.layout.gaps {
                check.damaged.push(format!("{name}@{start}: {} bytes hold no frame", end - start));
            }
            for (info, frame) in contents.frames {
                match frame {
                    Ok(records) => {
                        check.records += records.len();
                        held.extend(records.into_iter().map(|r| (r.id, name.clone(), info.offset)));
                    }
                    Err(e) => check.damaged.push(format!("{name}@{}: {e}", info.offset)),
                }
            }
        }
        let indexed: HashSet<(String, String, u64)> =
            self.index.all()?.into_iter().map(|l| (l.id, l.segment, l.offset)).collect();
        check.indexed = indexed.len();
        check.unindexed = held.difference(&indexed).count();
        check.dangling = indexed.difference(&held).count();
        Ok(check)
    }

    /// Cuts torn tails, sets damage aside (frames that cannot be read and ranges holding no
    /// frame, in `damaged/`: their records are lost from the archive) and rebuilds the index
    /// from the segments.
    pub fn repair(&self) -> Result<ArchiveRepair> {
        let _guard = self.lock.acquire()?;
        self.index.refresh()?;
        self.drop_old_generations()?;
        let mut repair = ArchiveRepair::default();
        let mut writer = self.index.writer(true)?;
        writer.clear()?;
        for (quarter, generation) in self.current_segments()? {
            let mut name = segment::file_name(&quarter, generation);
            let path = self.segments.join(&name);
            let mut contents = segment::read_all(&path)?;
            if contents.layout.torn > 0 {
                cut(&path, contents.layout.valid_len)?;
                repair.torn_bytes += contents.layout.torn;
            }
            if contents.is_damaged() {
                let damaged_dir = self.dir.join("damaged");
                create_private_dir_all(&damaged_dir)?;
                let mut set_aside = |start: u64, end: u64| {
                    repair.frames_set_aside += 1;
                    let file = damaged_dir.join(format!("{name}@{start}"));
                    write_atomic(&file, contents.slice(start, end))
                };
                for &(start, end) in &contents.layout.gaps {
                    set_aside(start, end)?;
                }
                let mut kept = Vec::new();
                for (info, frame) in &contents.frames {
                    match frame {
                        Ok(_) => kept.push(contents.slice(info.offset, info.end()).to_vec()),
                        Err(_) => set_aside(info.offset, info.end())?,
                    }
                }
                name = segment::file_name(&quarter, next_generation(generation)?);
                segment::write_new(&self.segments.join(&name), &kept)?;
                remove_file_if_present(&path, "archive segment")?;
                contents = segment::read_all(&self.segments.join(&name))?;
            }
            for (info, frame) in contents.frames {
                if let Ok(records) = frame {
                    writer.add(&name, info.offset, &records)?;
                    repair.reindexed += records.len();
                }
            }
            writer.mark(&name, contents.layout.valid_len);
        }
        writer.commit(true)?;
        sync_dir(&self.segments)?;
        Ok(repair)
    }

    /// Finishes what a writer that died left (the caller holds the lock): keeps the newest
    /// generation of each segment, indexes frames appended after the last commit, and
    /// compacts the index when it holds deleted entries (a purge that died before its
    /// compaction). A segment whose whole frames end before the index says is left as it is:
    /// it was damaged, and `verify` reports it. When there was nothing to do, returns the
    /// writer it opened (merging in the background as usual) for the caller to go on with.
    fn recover(&self) -> Result<Option<ArchiveWriter<'_>>> {
        let current: HashSet<String> = self
            .drop_old_generations()?
            .iter()
            .map(|(quarter, generation)| segment::file_name(quarter, *generation))
            .collect();
        let mut compact = self.index.holds_deleted()?;
        let mut writer = self.index.writer(compact)?;
        let mut changed = compact;
        for name in writer.segments() {
            if !current.contains(&name) {
                // Entries of a generation a purge replaced: compacted away, as it would have.
                writer.forget(&name);
                (changed, compact) = (true, true);
            }
        }
        for name in &current {
            let path = self.segments.join(name);
            let layout = segment::layout(&path)?;
            let from = writer.indexed_len(name);
            if from.is_some_and(|from| from >= layout.valid_len) {
                continue;
            }
            let from = from.unwrap_or(0);
            for info in layout.frames.iter().filter(|info| info.offset >= from) {
                match segment::read_frame(&path, info.offset) {
                    Ok(records) => writer.add(name, info.offset, &records)?,
                    // A damaged frame is left for `verify` to report and `repair` to set aside.
                    Err(Error::Corrupted { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
            writer.mark(name, layout.valid_len);
            changed = true;
        }
        if !changed {
            return Ok(Some(writer));
        }
        writer.commit(compact)?;
        Ok(None)
    }

    /// Removes every generation of a segment but its newest (a purge or repair that died
    /// after writing the new one); returns the newest of each.
    fn drop_old_generations(&self) -> Result<BTreeMap<String, u32>> {
        let current = self.current_segments()?;
        for (name, (quarter, generation)) in self.segment_files()? {
            if current.get(&quarter) != Some(&generation) {
                remove_file_if_present(&self.segments.join(name), "archive segment")?;
            }
        }
        Ok(current)
    }

    /// The newest generation of each quarter's segment.
    fn current_segments(&self) -> Result<BTreeMap<String, u32>> {
        let mut current: BTreeMap<String, u32> = BTreeMap::new();
        for (_, (quarter, generation)) in self.segment_files()? {
            let newest = current.entry(quarter).or_insert(generation);
            *newest = (*newest).max(generation);
        }
        Ok(current)
    }

    /// Every segment file, with its quarter and generation.
    fn segment_files(&self) -> Result<Vec<(String, (String, u32))>> {
        let listing = |e| Error::io(format!("listing {}", self.segments.display()), e);
        let mut files = Vec::new();
        for entry in std::fs::read_dir(&self.segments).map_err(listing)? {
            let name = entry.map_err(listing)?.file_name();
            if let Some(name) = name.to_str()
                && let Some(parsed) = segment::parse_name(name)
            {
                files.push((name.to_owned(), parsed));
            }
        }
        files.sort();
        Ok(files)
    }

    /// The record `id` if the index knows it (the reader as last refreshed).
    fn read(&self, id: &str) -> Result<Option<ArchivedRecord>> {
        let Some(location) = self.index.locate(id)? else { return Ok(None) };
        let path = self.segments.join(&location.segment);
        let mut found = segment::read_records(&path, location.offset, &[id])?;
        found.remove(id).map(Some).ok_or_else(|| dangling(&location))
    }
}

/// The generation after `generation`.
fn next_generation(generation: u32) -> Result<u32> {
    generation.checked_add(1).ok_or_else(|| {
        Error::unsupported(
            "an archive segment rewritten 4 billion times",
            "cold archive",
            "copy the archive's records into a new archive",
        )
    })
}

fn unknown(name: &str) -> Error {
    Error::index(
        format!("the archive's index names a segment {name} that is no segment file name"),
        None,
        "run `memcore repair` to rebuild the archive's index from its segments",
    )
}

fn dangling(location: &Location) -> Error {
    Error::index(
        format!(
            "the archive's index places record {} in {}@{}, which does not hold it",
            location.id, location.segment, location.offset
        ),
        None,
        "run `memcore repair` to rebuild the archive's index from its segments",
    )
}

/// Cuts the file at `path` to `len` bytes, durably.
fn cut(path: &Path, len: u64) -> Result<()> {
    let failed = |e| Error::io(format!("cutting the torn end of {}", path.display()), e);
    let file = std::fs::OpenOptions::new().write(true).open(path).map_err(failed)?;
    file.set_len(len).map_err(failed)?;
    file.sync_all().map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Timestamp, now};

    fn turn(id: &str, text: &str) -> ArchivedRecord {
        turn_at(id, "2026-11-01T10:00:00Z", text)
    }

    fn turn_at(id: &str, at: &str, text: &str) -> ArchivedRecord {
        let at: Timestamp = at.parse().unwrap_or_else(|_| now());
        ArchivedRecord::new(id, ArchivedKind::Turn, at, text).session("s1")
    }

    /// A record of another quarter, so that the index's segment written with the records
    /// of the test keeps a live entry (an index segment whose entries are all deleted is
    /// dropped whole, compacted or not).
    fn summer() -> ArchivedRecord {
        turn_at("s1/summer", "2026-07-01T10:00:00Z", "a summer remark")
    }

    fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(to)?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            if entry.path().is_file() {
                std::fs::copy(entry.path(), to.join(entry.file_name()))?;
            }
        }
        Ok(())
    }

    #[test]
    fn purge_compacts_the_purged_words_out_of_the_index_files() -> Result<()> {
        let dir = tempfile::tempdir().map_err(|e| Error::io("temp dir", e))?;
        let archive = ColdArchive::open(dir.path(), Duration::from_secs(5))?;
        let mut turns: Vec<ArchivedRecord> =
            (0..30).map(|n| turn(&format!("s1/{n}"), "routine knitting talk")).collect();
        turns.push(turn("s1/secret", "my password is zorbaxqq"));
        turns.push(summer());
        archive.archive(turns)?;
        archive.archive(vec![turn("s1/later", "more knitting")])?;
        assert!(archive.index.holds_word("zorbaxqq")?);
        archive.purge(&["s1/secret".to_owned()])?;
        assert!(!archive.index.holds_word("zorbaxqq")?);
        assert!(archive.index.holds_word("knitting")?);
        Ok(())
    }

    #[test]
    fn a_purge_finished_by_the_next_writer_compacts_too() -> Result<()> {
        let io = |e| Error::io("test files", e);
        let dir = tempfile::tempdir().map_err(io)?;
        let archive = ColdArchive::open(dir.path(), Duration::from_secs(5))?;
        archive.archive(vec![
            turn("s1/1", "the word is plumquartz"),
            turn("s1/2", "plain"),
            summer(),
        ])?;
        let segment = archive.segments.join(segment::file_name("2026-q4", 1));
        let saved = std::fs::read(&segment).map_err(io)?;
        let index_before = tempfile::tempdir().map_err(io)?;
        copy_dir(&dir.path().join("index"), index_before.path()).map_err(io)?;
        archive.purge(&["s1/1".to_owned()])?;
        drop(archive);
        std::fs::write(&segment, saved).map_err(io)?;
        std::fs::remove_dir_all(dir.path().join("index")).map_err(io)?;
        copy_dir(index_before.path(), &dir.path().join("index")).map_err(io)?;

        let archive = ColdArchive::open(dir.path(), Duration::from_secs(5))?;
        assert!(archive.index.holds_word("plumquartz")?);
        archive.archive(vec![turn("s1/3", "later")])?;
        assert!(!archive.index.holds_word("plumquartz")?);
        assert!(archive.verify()?.consistent());
        Ok(())
    }
}
