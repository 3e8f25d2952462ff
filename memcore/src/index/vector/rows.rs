//! The rows' float vectors: in memory, in fixed-size chunks that the graph thread shares
//! instead of copying, or, for a large log, left in the log file and read when a search
//! scores them.
//!
//! Why chunks: a graph starting over 100k rows needs all of them. With one contiguous `Vec`,
//! the index had to copy 150 MB for the graph thread while holding its write lock, and every
//! search meanwhile waited (the first searches after a large ingest took 70-80 ms instead of
//! 8). A snapshot of [`Rows`] is a list of reference-counted chunks: taking one costs a few
//! pointer copies. A chunk is never changed while shared: appending to a shared last chunk
//! copies that chunk (at most [`CHUNK_ROWS`] rows) first. Fixed-size chunks also never
//! reallocate, where a growing `Vec` copied everything it held at each doubling.
//!
//! Why rows on disk: the floats are most of a query process's memory (150 MB at 100k MiniLM
//! rows), yet a search scores only a few of them exactly: the sign-bit scan a short list of 2%,
//! the graph its candidates. So a process that loads a large log keeps only where each row's
//! record is in the file (16 bytes a row) and reads the records it scores with `pread`,
//! neighbours in the file in one read, checking each record's hash again as when the log was
//! loaded: bytes damaged since are an error, never scores of garbage nor a compaction that
//! copies them into a new log. The page cache keeps them warm, shared by every process
//! and dropped under memory pressure. Not a memory map: on this machine's kernel a handful of
//! scattered reads of a mapped log made the whole file resident in the process (the page cache
//! maps large folios), which is what this avoids. The offsets stay valid for the life of the
//! file handle: the log only grows, records that were read intact are never cut off, and a
//! replaced log is a new file (the handle keeps the old one).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use super::log::{self, Span};

/// Rows per chunk (a power of two: finding a row is a shift and a mask).
pub(super) const CHUNK_ROWS: usize = 1024;

/// Longest stretch of unwanted bytes read rather than skipped with a second read.
const MAX_GAP: u64 = 4096;

/// Longest single read of rows on disk.
const MAX_READ: u64 = 1 << 20;

/// Fixed-length items in chunks of [`CHUNK_ROWS`]; `Clone` shares every chunk.
#[derive(Debug, Clone)]
pub(super) struct Chunks<T> {
    /// Values per item; set by the first item pushed.
    width: usize,
    /// Full chunks, then the one being filled.
    chunks: Vec<Arc<Vec<T>>>,
    /// Items held.
    len: usize,
}

impl<T> Default for Chunks<T> {
    fn default() -> Self {
        Self { width: 0, chunks: Vec::new(), len: 0 }
    }
}

impl<T: Copy> Chunks<T> {
    /// Item `i`.
    ///
    /// # Panics
    ///
    /// When `i` is not below the number of items, as slice indexing does.
    #[inline]
    pub(super) fn get(&self, i: usize) -> &[T] {
        assert!(i < self.len, "row {i} of {}", self.len);
        let start = (i % CHUNK_ROWS) * self.width;
        &self.chunks[i / CHUNK_ROWS][start..start + self.width]
    }

    /// Appends the item `fill` writes (it must append exactly one item's values) and returns
    /// it.
    fn push_with(&mut self, width: usize, fill: impl FnOnce(&mut Vec<T>)) -> &[T] {
        if self.len == 0 {
            self.width = width;
        }
        debug_assert_eq!(width, self.width, "items of one width");
        let capacity = CHUNK_ROWS * self.width;
        match self.chunks.last_mut() {
            Some(last) if !self.len.is_multiple_of(CHUNK_ROWS) => {
                // Copies the chunk if a snapshot shares it; the copy gets the full capacity.
                let chunk = Arc::make_mut(last);
                chunk.reserve_exact(capacity - chunk.len());
                fill(chunk);
            }
            _ => {
                let mut chunk = Vec::with_capacity(capacity);
                fill(&mut chunk);
                self.chunks.push(Arc::new(chunk));
            }
        }
        self.len += 1;
        self.get(self.len - 1)
    }
}

/// Where the records of rows kept on disk are.
#[derive(Debug, Clone)]
struct OnDisk {
    /// The log, open for reading.
    file: Arc<File>,
    /// Each row's record: offset and length.
    records: Chunks<u64>,
    /// The last row pushed, decoded (what [`Rows::push_encoded`] returns).
    last: Vec<f32>,
}

impl OnDisk {
    /// Where the record of `row` is.
    fn record(&self, row: u32) -> Span {
        let record = self.records.get(row as usize);
        Span { at: record[0], len: record[1] }
    }
}

/// Row-major float vectors of one dimension, in memory or in the log.
///
/// `Clone` is the cheap snapshot: it shares every chunk.
#[derive(Debug, Default, Clone)]
pub(super) struct Rows {
    /// Floats per row; set by the first row pushed.
    dim: usize,
    /// The rows, when they are kept in memory.
    memory: Chunks<f32>,
    /// Set when the rows are kept in the log instead.
    disk: Option<OnDisk>,
}

impl Rows {
    /// Rows kept in the log `file`: [`Rows::push_encoded`] records where each vector is in it.
    pub(super) fn on_disk(file: Arc<File>) -> Self {
        Self {
            disk: Some(OnDisk { file, records: Chunks::default(), last: Vec::new() }),
            ..Self::default()
        }
    }

    /// Number of rows.
    pub(super) fn len(&self) -> usize {
        match &self.disk {
            Some(disk) => disk.records.len,
            None => self.memory.len,
        }
    }

    /// The rows, when they are held in memory.
    pub(super) fn in_memory(&self) -> Option<&Chunks<f32>> {
        self.disk.is_none().then_some(&self.memory)
    }

    /// Appends a row from its encoding in the log (little-endian `f32`s), in the add record
    /// `record` of the log file, and returns it.
    pub(super) fn push_encoded(&mut self, encoded: &[u8], record: Span) -> &[f32] {
        if self.len() == 0 {
            self.dim = encoded.len() / 4;
        }
        debug_assert_eq!(encoded.len(), self.dim * 4, "rows of one dimension");
        match &mut self.disk {
            None => self.memory.push_with(self.dim, |chunk| log::decode_vector(encoded, chunk)),
            Some(disk) => {
                disk.records.push_with(2, |chunk| chunk.extend([record.at, record.len]));
                disk.last.clear();
                log::decode_vector(encoded, &mut disk.last);
                &disk.last
            }
        }
    }

    /// Hands the vector of each row of `wanted` to `each`, in order. Rows on disk are read
    /// with as few reads as their places in the file allow: `wanted` in ascending order reads
    /// neighbours together.
    ///
    /// # Errors
    ///
    /// A failed read of the log (cut short behind this process's back), or
    /// [`std::io::ErrorKind::InvalidData`] for a record that is no longer intact.
    ///
    /// # Panics
    ///
    /// When a row is not below [`Rows::len`], as slice indexing does.
    pub(super) fn visit(
        &self,
        wanted: &[u32],
        each: &mut dyn FnMut(u32, &[f32]),
    ) -> std::io::Result<()> {
        let Some(disk) = &self.disk else {
            for &row in wanted {
                each(row, self.memory.get(row as usize));
            }
            return Ok(());
        };
        let (mut bytes, mut floats) = (Vec::new(), Vec::with_capacity(self.dim));
        let mut rest = wanted;
        while let Some(&first) = rest.first() {
            let start = disk.record(first).at;
            let mut end = start + disk.record(first).len;
            let mut run = 1;
            for &row in &rest[1..] {
                let Span { at, len } = disk.record(row);
                if at < end || at - end > MAX_GAP || at + len - start > MAX_READ {
                    break;
                }
                end = at + len;
                run += 1;
            }
            bytes.resize((end - start) as usize, 0);
            disk.file.read_exact_at(&mut bytes, start)?;
            for &row in &rest[..run] {
                let Span { at, len } = disk.record(row);
                let from = (at - start) as usize;
                let record = &bytes[from..from + len as usize];
                let Some(vector) = log::intact_add_vector(record, self.dim) else {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("the record at byte {at} was damaged after it was read"),
                    ));
                };
                floats.clear();
                log::decode_vector(vector, &mut floats);
                each(row, &floats);
            }
            rest = &rest[run..];
        }
        Ok(())
    }

    /// The vector of `row`, copied (for tests).
    #[cfg(test)]
    pub(super) fn vector(&self, row: usize) -> Vec<f32> {
        let mut out = Vec::new();
        self.visit(&[row as u32], &mut |_, v| out = v.to_vec()).expect("read the row");
        out
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;
    use crate::index::vector::tests::meta;

    /// Where rows in memory say they are (unused).
    const NOWHERE: Span = Span { at: 0, len: 0 };

    fn encode(vector: &[f32]) -> Vec<u8> {
        vector.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn row(i: usize) -> Vec<f32> {
        vec![i as f32, -(i as f32), 0.5]
    }

    #[test]
    fn rows_are_read_back_across_chunks() {
        let mut rows = Rows::default();
        for i in 0..CHUNK_ROWS * 2 + 3 {
            assert_eq!(rows.push_encoded(&encode(&row(i)), NOWHERE), row(i).as_slice());
        }
        assert_eq!(rows.len(), CHUNK_ROWS * 2 + 3);
        assert_eq!(rows.memory.chunks.len(), 3);
        for i in [0, CHUNK_ROWS - 1, CHUNK_ROWS, CHUNK_ROWS * 2 + 2] {
            assert_eq!(rows.vector(i), row(i));
        }
    }

    #[test]
    fn a_snapshot_does_not_see_later_rows_and_shares_full_chunks() {
        let mut rows = Rows::default();
        for i in 0..CHUNK_ROWS + 1 {
            rows.push_encoded(&encode(&row(i)), NOWHERE);
        }
        let snapshot = rows.clone();
        rows.push_encoded(&encode(&row(7_000)), NOWHERE);
        assert_eq!(snapshot.len(), CHUNK_ROWS + 1);
        assert_eq!(rows.vector(CHUNK_ROWS + 1), row(7_000));
        assert_eq!(snapshot.vector(CHUNK_ROWS), row(CHUNK_ROWS));
        // The full chunk is shared; the one appended to was copied.
        let (now, then) = (&rows.memory.chunks, &snapshot.memory.chunks);
        assert!(Arc::ptr_eq(&now[0], &then[0]));
        assert!(!Arc::ptr_eq(&now[1], &then[1]));
        assert_eq!(then[1].len(), 3);
        assert_eq!(now[1].capacity(), CHUNK_ROWS * 3);
    }

    #[test]
    #[should_panic(expected = "row 1 of 1")]
    fn a_row_past_the_end_panics_like_indexing() {
        let mut rows = Rows::default();
        rows.push_encoded(&encode(&row(0)), NOWHERE);
        let _ = rows.memory.get(1);
    }

    /// A file of `n` add records separated by `gap` bytes of filler, and the rows on disk
    /// over it.
    fn disk_rows(n: usize, gap: impl Fn(usize) -> usize) -> (tempfile::NamedTempFile, Rows) {
        let mut file = tempfile::NamedTempFile::new().expect("temp file");
        let mut rows = Rows::on_disk(Arc::new(file.reopen().expect("reopen")));
        let mut at = 0u64;
        for i in 0..n {
            let filler = vec![0xAB; gap(i)];
            file.write_all(&filler).expect("write");
            at += filler.len() as u64;
            let mut record = Vec::new();
            log::encode_add(&mut record, &meta(&format!("m/r{i}"), &[]), &row(i)).expect("encode");
            file.write_all(&record).expect("write");
            let span = Span { at, len: record.len() as u64 };
            let vector = &record[record.len() - 12..];
            assert_eq!(rows.push_encoded(vector, span), row(i).as_slice());
            at += span.len;
        }
        file.flush().expect("flush");
        (file, rows)
    }

    #[test]
    fn rows_on_disk_are_read_back_near_and_far_apart() {
        // Gaps of a few bytes (read together), of more than MAX_GAP (read apart), and enough
        // rows close together to pass MAX_READ.
        let gap = |i: usize| match i % 5 {
            0 => MAX_GAP as usize + 1,
            _ => 1 + i % 3,
        };
        let (_file, rows) = disk_rows(CHUNK_ROWS * 12, gap);
        assert!(rows.in_memory().is_none());
        assert_eq!(rows.len(), CHUNK_ROWS * 12);
        let wanted: Vec<u32> = (0..rows.len() as u32).filter(|r| r % 3 != 1).collect();
        let mut seen = Vec::new();
        rows.visit(&wanted, &mut |r, v| {
            assert_eq!(v, row(r as usize).as_slice(), "row {r}");
            seen.push(r);
        })
        .expect("read");
        assert_eq!(seen, wanted);
        // Out of order and repeated rows are read too, each on its own.
        let odd = [9, 2, 2, 7_000];
        let mut seen = Vec::new();
        rows.visit(&odd, &mut |r, v| {
            assert_eq!(v, row(r as usize).as_slice());
            seen.push(r);
        })
        .expect("read");
        assert_eq!(seen, odd);
    }

    #[test]
    fn a_snapshot_of_rows_on_disk_does_not_see_later_rows() {
        let (_file, mut rows) = disk_rows(CHUNK_ROWS + 1, |_| 7);
        let snapshot = rows.clone();
        rows.push_encoded(&encode(&row(0)), NOWHERE);
        assert_eq!((snapshot.len(), rows.len()), (CHUNK_ROWS + 1, CHUNK_ROWS + 2));
        assert_eq!(snapshot.vector(CHUNK_ROWS), row(CHUNK_ROWS));
    }

    #[test]
    fn a_log_cut_short_or_damaged_behind_the_rows_is_an_error_not_a_panic() {
        let (file, rows) = disk_rows(10, |_| 3);
        // One byte of row 4's vector changed: its record's hash no longer matches.
        let at = rows.disk.as_ref().expect("on disk").record(4);
        let last = at.at + at.len - 1;
        file.as_file().write_all_at(&[0x7F], last).expect("damage");
        let failed = rows.visit(&[3, 4], &mut |_, _| {}).expect_err("damaged");
        assert_eq!(failed.kind(), std::io::ErrorKind::InvalidData);
        assert!(failed.to_string().contains(&format!("byte {}", at.at)), "{failed}");
        rows.visit(&[3, 5], &mut |_, _| {}).expect("the rows around it are intact");
        file.as_file().set_len(20).expect("truncate");
        let failed = rows.visit(&[8, 9], &mut |_, _| {}).expect_err("cut short");
        assert_eq!(failed.kind(), std::io::ErrorKind::UnexpectedEof);
    }
}
