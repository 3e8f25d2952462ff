//! The tiered store's tiers (seed 003): hot (the working set of a session), warm (an
//! indexed store) and cold ([`ColdArchive`]: compressed, append-only, searchable by full
//! text), and the timeline of sessions, composed by [`TieredStore`].

mod audit;
mod cold;
pub(crate) mod compaction;
mod hot;
mod jsonl;
mod recall;
mod requests;
mod retrieve;
mod store;
mod timeline;

pub use audit::AuditLog;
pub use cold::{
    ArchiveCheck, ArchiveFilter, ArchiveHit, ArchiveRepair, ArchiveReport, ArchivedKind,
    ArchivedRecord, ColdArchive, MAX_RECORD_ID_LEN, PurgeReport,
};
pub use hot::{
    DEFAULT_HOT_CONTEXT_TURNS, DEFAULT_HOT_SUMMARY_TOKENS, HotEvidence, HotNote, HotRetrieval,
    HotSession, HotTier, HotTurn,
};
pub(crate) use hot::{MAX_RECORDED_QUERY_CHARS, as_messages, next_label, not_live};
pub use recall::{RecallHit, RecallRequest, RecallResults, Tier, TierScope};
pub use requests::{
    AuditRecord, CompactRequest, CompactionReport, DigestStep, PurgeRequest, RetainReport,
    RetainRequest, SessionEndReport, SessionEndRequest, SessionNoteKind, SessionNoteRequest,
    SessionStartRequest, SessionTurnRequest, TimelineListing, TimelineRequest,
};
pub use retrieve::{Retrieval, RetrieveRequest, RetrievedPassage};
pub use store::{TieredStore, Tiers};
pub use timeline::{Timeline, TimelineEntry, TimelineFilter, TimelineKind};
