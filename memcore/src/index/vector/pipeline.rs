//! Loading a large log on two threads: this one reads, checks and parses the records while a
//! second applies them (decodes the floats into the rows, their sign bits, the key map).
//!
//! Why: at 100k rows reading and parsing took about 190 ms and applying about 200 ms, one
//! after the other, while a fresh process waited for both before its first semantic search.
//! Records go over in batches, whose buffers come back to be reused (fresh memory costs a page
//! fault per 4 KB here).

use std::fs::File;
use std::path::Path;
use std::sync::mpsc;

use super::log::{self, Entry, Span};
use super::state::State;
use crate::Result;
use crate::index::DocMeta;

/// Logs shorter than this are read on one thread (a second one would cost more than it saves).
const MIN_BYTES: u64 = 8 << 20;
/// Records per batch.
const BATCH: usize = 512;

/// A record read, owned.
enum Owned {
    /// An add, and where its record is in the log; the vector is the next one in
    /// [`Batch::vectors`].
    Add(DocMeta, Span),
    /// A removal of this key.
    Remove(String),
}

/// Records read, waiting to be applied.
#[derive(Default)]
struct Batch {
    /// The records, in log order.
    entries: Vec<Owned>,
    /// The vectors of the adds, in order, `dimension` little-endian f32 each.
    vectors: Vec<u8>,
}

impl Batch {
    /// Takes `entry`, copying what it borrows.
    fn push(&mut self, entry: Entry<'_>) {
        match entry {
            Entry::Add { meta, vector, record } => {
                self.vectors.extend_from_slice(vector);
                self.entries.push(Owned::Add(meta, record));
            }
            Entry::Remove { key } => self.entries.push(Owned::Remove(key.to_owned())),
        }
    }

    /// Applies the records to `state` in order and empties the batch for reuse.
    fn apply_to(&mut self, state: &mut State, vector_len: usize) {
        let mut vectors = self.vectors.chunks_exact(vector_len);
        for entry in self.entries.drain(..) {
            match entry {
                Owned::Add(meta, record) => {
                    // Every add pushed its vector, of this length (read_records checks it).
                    if let Some(vector) = vectors.next() {
                        state.apply(Entry::Add { meta, vector, record });
                    }
                }
                Owned::Remove(key) => state.apply(Entry::Remove { key: &key }),
            }
        }
        self.vectors.clear();
    }
}

/// Reads the records of `file` between `from` and `to` into `state`, as
/// [`log::read_file_records`] does (same result, same errors), on two threads when the range is
/// large. Returns the offset just after the last intact record.
pub(super) fn read_into(
    file: &File,
    path: &Path,
    from: u64,
    to: u64,
    dimension: usize,
    state: &mut State,
) -> Result<u64> {
    if to.saturating_sub(from) < MIN_BYTES {
        return log::read_file_records(file, path, from, to, dimension, &mut |entry| {
            state.apply(entry);
        });
    }
    let vector_len = dimension * 4;
    std::thread::scope(|scope| {
        let (full, to_apply) = mpsc::sync_channel::<Batch>(2);
        let (emptied, to_refill) = mpsc::channel::<Batch>();
        let applier = scope.spawn(move || {
            for mut batch in to_apply {
                batch.apply_to(state, vector_len);
                // The reader may be gone (it failed): then the batch is just dropped.
                let _ = emptied.send(batch);
            }
        });
        let mut batch = Batch::default();
        let read = log::read_file_records(file, path, from, to, dimension, &mut |entry| {
            batch.push(entry);
            if batch.entries.len() >= BATCH {
                let next = to_refill.try_recv().unwrap_or_default();
                // The applier only stops when this side hangs up.
                let _ = full.send(std::mem::replace(&mut batch, next));
            }
        });
        if read.is_ok() {
            let _ = full.send(batch);
        }
        drop(full);
        if let Err(panic) = applier.join() {
            // Applying does not panic; if it ever did, re-raise it on the caller.
            std::panic::resume_unwind(panic);
        }
        read
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::vector::log::Header;
    use crate::index::vector::tests::meta;

    /// A 384-d vector of its own for `i`.
    fn vector(i: usize) -> Vec<f32> {
        (0..384).map(|d| ((i * 31 + d * 7) % 97) as f32 / 97.0 - 0.5).collect()
    }

    /// A log of `rows` adds (every fifth key added twice) and a removal every seventh row.
    fn log_file(dir: &Path, rows: usize) -> (std::path::PathBuf, u64, u64) {
        let path = dir.join("vectors.log");
        let header = Header { dimension: 384, model_id: "m".into(), generation: 7 };
        let mut bytes = header.encode();
        let start = bytes.len() as u64;
        for i in 0..rows {
            log::encode_add(
                &mut bytes,
                &meta(&format!("m/{}", i % (rows - rows / 5)), &[]),
                &vector(i),
            )
            .expect("encode");
            if i % 7 == 0 {
                log::encode_remove(&mut bytes, &format!("m/{}", i / 2));
            }
        }
        std::fs::write(&path, &bytes).expect("write");
        (path, start, bytes.len() as u64)
    }

    #[test]
    fn two_threads_load_what_one_does() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (path, start, len) = log_file(dir.path(), 6_000);
        assert!(len - start >= MIN_BYTES, "large enough for two threads");
        let file = File::open(&path).expect("open");
        let mut one = State::default();
        let end_one = log::read_file_records(&file, &path, start, len, 384, &mut |e| one.apply(e))
            .expect("read");
        let mut two = State::default();
        // Cut short by a torn record: both stop at the same place.
        let torn = len - 100;
        let end_two = read_into(&file, &path, start, torn, 384, &mut two).expect("read");
        let mut one_torn = State::default();
        let end_one_torn =
            log::read_file_records(&file, &path, start, torn, 384, &mut |e| one_torn.apply(e))
                .expect("read");
        assert_eq!(end_two, end_one_torn);
        assert!(end_two < torn && end_one == len);
        assert_eq!(two.metas, one_torn.metas);
        assert_eq!(two.by_key, one_torn.by_key);
        assert_eq!(two.dead, one_torn.dead);
        assert_eq!(two.row_count(), one_torn.row_count());
        for row in [0, 1, 4_000, two.row_count() - 1] {
            assert_eq!(two.rows.vector(row), one_torn.rows.vector(row));
        }
        assert_eq!(two.guard, one_torn.guard);
    }
}
