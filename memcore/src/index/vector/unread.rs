//! Writing without reading: a process that has only written (a hook, `memcore put`) appends
//! to the log without loading it.
//!
//! Why: loading the log reads every row (about 400 ms at 100k memories), and a process that
//! only stores a memory needs none of them, only where the intact records end, to append
//! there (a record torn by a crash must be cut off first). Every writer records that end, with
//! the log's generation, in a small marker file (`vectors.end`) after its append is durable. A
//! process that has not loaded the log trusts the marker when it names the log's generation
//! and the file's current length: nothing was appended since, and nothing torn is left after
//! it. Otherwise (no marker, a crash after an append, another generation) it loads the log as
//! before. The marker is written after the append is synced and replaced atomically, so it
//! is never ahead of the durable log; a lost or stale one only costs a load.
//!
//! A process switches to the loaded state on its first read (a search, a comparison with the
//! full-text index); until then it keeps no rows, and so never compacts the log or runs a
//! graph.

use std::path::Path;

use super::VectorIndex;
use super::log;
use super::state::{LogPos, State};
use crate::Result;
use crate::store::fsutil::write_temp;

/// The marker's file name, in the index directory.
const END_FILE: &str = "vectors.end";

impl VectorIndex {
    /// Appends `buf` (encoded records) without loading the log, when where it ends is known;
    /// `false` when it is not (the caller loads the log and appends as a loaded process).
    pub(super) fn append_unread(&self, state: &mut State, buf: &[u8]) -> Result<bool> {
        let Some(pos) = self.trusted_end(state)? else { return Ok(false) };
        let end = log::append(&self.path, pos.id, pos.offset, buf)?;
        state.unread = Some(LogPos { offset: end, seen_len: end, ..pos });
        record_end(&self.dir, pos.generation, end);
        Ok(true)
    }

    /// Where the log's intact records end, when that is known without reading them: this
    /// process's own last append, an empty log, or a marker naming the log's generation and
    /// current length.
    fn trusted_end(&self, state: &State) -> Result<Option<LogPos>> {
        let Some((file, id, len)) = log::open(&self.path)? else { return Ok(None) };
        // The header every time: a replaced log may reuse an inode, never a generation.
        let (header, start) = self.checked_header(&file)?;
        let own = state.unread.is_some_and(|pos| {
            pos.id == id && pos.generation == header.generation && pos.offset == len
        });
        let trusted = own || len == start || read_end(&self.dir) == Some((header.generation, len));
        Ok(trusted.then_some(LogPos {
            id,
            generation: header.generation,
            offset: len,
            seen_len: len,
        }))
    }
}

/// Records, for processes that have not loaded the log, that the log of `generation` ends
/// with intact records at `end`. Best effort: without a marker they load the log.
pub(super) fn record_end(dir: &Path, generation: u64, end: u64) {
    let path = dir.join(END_FILE);
    if let Ok(temp) = write_temp(&path, format!("{generation:016x} {end}\n").as_bytes()) {
        let _ = temp.persist(&path);
    }
}

/// The generation and end the marker in `dir` names, if it is there and readable.
fn read_end(dir: &Path) -> Option<(u64, u64)> {
    let text = std::fs::read_to_string(dir.join(END_FILE)).ok()?;
    let (generation, end) = text.trim().split_once(' ')?;
    Some((u64::from_str_radix(generation, 16).ok()?, end.parse().ok()?))
}
