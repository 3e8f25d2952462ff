//! The tiered store's tiers (seed 003): hot (the working set of a session), warm (an
//! indexed store) and cold ([`ColdArchive`]: compressed, append-only, searchable by full
//! text). Built so far: the cold tier.

mod cold;

pub use cold::{
    ArchiveCheck, ArchiveFilter, ArchiveHit, ArchiveRepair, ArchiveReport, ArchivedKind,
    ArchivedRecord, ColdArchive, MAX_RECORD_ID_LEN, PurgeReport,
};
