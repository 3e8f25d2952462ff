//! The tiered store's tiers (seed 003): hot (the working set of a session), warm (an
//! indexed store) and cold ([`ColdArchive`]: compressed, append-only, searchable by full
//! text), and the timeline of sessions. Built so far: the hot and cold tiers and the timeline.

mod cold;
mod hot;
mod timeline;

pub use cold::{
    ArchiveCheck, ArchiveFilter, ArchiveHit, ArchiveRepair, ArchiveReport, ArchivedKind,
    ArchivedRecord, ColdArchive, MAX_RECORD_ID_LEN, PurgeReport,
};
pub use hot::{
    DEFAULT_HOT_CONTEXT_TURNS, DEFAULT_HOT_SUMMARY_TOKENS, HotNote, HotSession, HotTier, HotTurn,
};
pub use timeline::{Timeline, TimelineEntry, TimelineFilter, TimelineKind};
