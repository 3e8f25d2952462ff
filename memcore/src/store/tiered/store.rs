//! [`TieredStore`]: the third backend (seed 003). Memories live in the warm tier, an ordinary
//! [`FileStore`] (so text, vector and link indexes work as on any store); [`Tiers`] adds the
//! hot tier of live sessions, the cold archive of transcripts and the timeline, under
//! `<store>/.memcore/tiers/`, and is offered to [`crate::Memcore`] through
//! [`MemoryStore::tiers`].

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::{AuditLog, ColdArchive, HotTier, Timeline};
use crate::config::TieredConfig;
use crate::session::ExtractiveSummarizer;
use crate::store::lock::{LockGuard, StoreLock};
use crate::store::{
    ChangeFeed, CommitAttachment, FileStore, Hydration, MemoryStore, NotesSync, PutMode,
    SharedVectors, StoreHistory, TrashEntry, Visitor,
};
use crate::{Collection, Config, Memory, MemoryRef, MemoryUpdate, Result, Timestamp};

/// The directory of the tiers, inside the store's private directory.
const TIERS_DIR: &str = "tiers";

/// The hot and cold tiers and the timeline of a tiered store.
#[derive(Debug)]
pub struct Tiers {
    dir: PathBuf,
    settings: TieredConfig,
    hot: HotTier,
    cold: ColdArchive,
    timeline: Timeline,
    audit: AuditLog,
    maintenance: StoreLock,
}

impl Tiers {
    /// Opens the tiers in `dir` (created if missing): live sessions resume from their
    /// snapshots, and the cold archive recovers from an interrupted write.
    pub fn open(
        dir: impl AsRef<Path>,
        settings: &TieredConfig,
        lock_timeout: Duration,
    ) -> Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        let hot = HotTier::open(dir.join("hot"), settings.hot_context_turns)?.with_summarizer(
            settings
                .rolling_summary
                .then(|| Arc::new(ExtractiveSummarizer) as Arc<dyn crate::session::Summarizer>),
            settings.hot_summary_tokens,
        );
        let cold = ColdArchive::open(dir.join("cold"), lock_timeout)?;
        let timeline = Timeline::open(dir.join("timeline.jsonl"), lock_timeout);
        let audit = AuditLog::open(dir.join("audit.jsonl"), lock_timeout);
        let maintenance = StoreLock::new(&dir.join("maintenance.lock"), lock_timeout);
        Ok(Self { dir, settings: settings.clone(), hot, cold, timeline, audit, maintenance })
    }

    /// Where the tiers are.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The settings they were opened with.
    pub fn settings(&self) -> &TieredConfig {
        &self.settings
    }

    /// The live sessions.
    pub fn hot(&self) -> &HotTier {
        &self.hot
    }

    /// The archive of transcripts and demoted memories.
    pub fn cold(&self) -> &ColdArchive {
        &self.cold
    }

    /// The timeline of sessions and events.
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// The purge audit log.
    pub fn audit(&self) -> &AuditLog {
        &self.audit
    }

    /// Waits for and takes the lock compactions and purges hold throughout (in every
    /// process), so that one never works from what the other is removing.
    pub(crate) fn maintenance(&self) -> Result<LockGuard<'_>> {
        self.maintenance.acquire()
    }
}

/// A store of hot, warm and cold tiers: a [`FileStore`] (the warm tier, which every
/// [`MemoryStore`] method reaches) and its [`Tiers`].
///
/// ```
/// use memcore::{Backend, Memcore};
/// let dir = tempfile::tempdir()?;
/// let memcore = Memcore::builder().path(dir.path()).backend(Backend::Tiered).open()?;
/// assert_eq!(memcore.backend(), "tiered");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct TieredStore {
    warm: FileStore,
    tiers: Tiers,
}

impl TieredStore {
    /// Opens the tiered store at `root` (created if missing): the warm tier is the file
    /// store there, the other tiers are in `<root>/.memcore/tiers/`.
    pub fn open(root: impl AsRef<Path>, config: &Config) -> Result<Self> {
        let warm = FileStore::open(root, config)?;
        let lock_timeout = Duration::from_millis(config.lock_timeout_ms);
        let tiers = Tiers::open(warm.private_dir().join(TIERS_DIR), &config.tiered, lock_timeout)?;
        Ok(Self { warm, tiers })
    }

    /// The warm tier.
    pub fn warm(&self) -> &FileStore {
        &self.warm
    }
}

impl MemoryStore for TieredStore {
    fn backend(&self) -> &'static str {
        "tiered"
    }

    fn root(&self) -> &Path {
        self.warm.root()
    }

    fn private_dir(&self) -> &Path {
        self.warm.private_dir()
    }

    fn put(&self, memory: Memory, mode: PutMode) -> Result<Memory> {
        self.warm.put(memory, mode)
    }

    fn put_many(&self, memories: Vec<Memory>, mode: PutMode) -> Result<Vec<Memory>> {
        self.warm.put_many(memories, mode)
    }

    fn get(&self, reference: &MemoryRef) -> Result<Arc<Memory>> {
        self.warm.get(reference)
    }

    fn get_many(&self, references: &[MemoryRef]) -> Result<Vec<Result<Arc<Memory>>>> {
        self.warm.get_many(references)
    }

    fn update(
        &self,
        reference: &MemoryRef,
        change: &MemoryUpdate,
        now: Timestamp,
    ) -> Result<Memory> {
        self.warm.update(reference, change, now)
    }

    fn update_many(
        &self,
        changes: &[(MemoryRef, MemoryUpdate)],
        now: Timestamp,
    ) -> Result<Vec<Memory>> {
        self.warm.update_many(changes, now)
    }

    fn name_mismatches(&self) -> Result<Vec<String>> {
        self.warm.name_mismatches()
    }

    fn remove_leftovers(&self) -> Result<usize> {
        self.warm.remove_leftovers()
    }

    fn delete(&self, reference: &MemoryRef, now: Timestamp) -> Result<TrashEntry> {
        self.warm.delete(reference, now)
    }

    fn restore(&self, reference: &MemoryRef) -> Result<Arc<Memory>> {
        self.warm.restore(reference)
    }

    fn expunge(&self, reference: &MemoryRef) -> Result<usize> {
        self.warm.expunge(reference)
    }

    fn expunge_many(&self, references: &[MemoryRef]) -> Result<usize> {
        self.warm.expunge_many(references)
    }

    fn collections(&self) -> Result<Vec<Collection>> {
        self.warm.collections()
    }

    fn scan(&self, collection: Option<&Collection>, visit: &mut Visitor<'_>) -> Result<()> {
        self.warm.scan(collection, visit)
    }

    fn history(&self) -> Option<&dyn StoreHistory> {
        self.warm.history()
    }

    fn commits(&self) -> Option<&dyn CommitAttachment> {
        self.warm.commits()
    }

    fn hydration(&self) -> Option<&dyn Hydration> {
        self.warm.hydration()
    }

    fn change_feed(&self) -> Option<&dyn ChangeFeed> {
        self.warm.change_feed()
    }

    fn notes_sync(&self) -> Option<&dyn NotesSync> {
        self.warm.notes_sync()
    }

    fn atomic_batches(&self) -> bool {
        self.warm.atomic_batches()
    }

    fn shared_vectors(&self) -> Option<Arc<dyn SharedVectors>> {
        self.warm.shared_vectors()
    }

    fn tiers(&self) -> Option<&Tiers> {
        Some(&self.tiers)
    }
}
