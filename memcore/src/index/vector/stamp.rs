//! The level stamp: a file that says the vectors were level with the full-text index, so a
//! new process need not compare the two before its first semantic search.
//!
//! Why: that comparison reads every key and content hash of both indexes (about 280 ms at
//! 100k memories), and every process made it before its first semantic search, although the
//! vectors lag only after a write that could not embed (no model, semantic search off, the
//! model failing) or a model change. Such writes remove the stamp, under the index lock,
//! before they finish; a comparison that found the vectors level (or made them so) writes it,
//! under the same lock. The stamp names the log generation it was made for: a log that was
//! replaced by something that does not restamp it (cleared for a reindex, deleted, another
//! model's) no longer matches, and the comparison runs again. Compaction keeps a valid stamp
//! valid.

use std::io::ErrorKind;
use std::path::Path;

use super::VectorIndex;
use super::state::State;
use crate::store::fsutil::{sync_dir, write_atomic};
use crate::{Error, Result};

/// The stamp's file name, in the index directory.
const STAMP_FILE: &str = "level";

impl VectorIndex {
    /// Whether the vectors are stamped level with the full-text index at the log generation
    /// this process has read.
    pub(crate) fn stamped_level(&self) -> bool {
        self.stamp_names(&self.state.read())
    }

    /// Stamps the vectors level with the full-text index, durably. The caller holds the index
    /// lock and has just compared the two (or made them level).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the stamp cannot be written.
    pub(crate) fn stamp_level(&self) -> Result<()> {
        match self.state.read().known_generation() {
            Some(generation) => self.write_stamp(generation),
            None => Ok(()),
        }
    }

    /// Whether the stamp on disk names the generation `state` has read.
    pub(super) fn stamp_names(&self, state: &State) -> bool {
        let Some(generation) = state.generation() else { return false };
        std::fs::read_to_string(self.dir.join(STAMP_FILE))
            .is_ok_and(|stamp| stamp.trim() == format!("{generation:016x}"))
    }

    /// Writes the stamp for `generation`.
    pub(super) fn write_stamp(&self, generation: u64) -> Result<()> {
        write_atomic(&self.dir.join(STAMP_FILE), format!("{generation:016x}\n").as_bytes())
    }
}

/// Removes the stamp of the vector index in `dir`, durably: the vectors may lag. The caller
/// holds the index lock. (A function of the directory: a process without the model never
/// opens the vectors, yet its writes must say they lag.)
///
/// # Errors
///
/// [`Error::Io`] when the stamp is there and cannot be removed.
pub(crate) fn remove_level_stamp(dir: &Path) -> Result<()> {
    match std::fs::remove_file(dir.join(STAMP_FILE)) {
        Ok(()) => sync_dir(dir),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(
            format!("removing the vector index's level stamp in {}", dir.display()),
            e,
        )),
    }
}
