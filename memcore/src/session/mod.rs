//! The session registry of seed 004: whole conversations kept immutable, compressed into
//! versions, and composed into one context for a new session.
//!
//! - [`parse_transcript`] reads Claude Code session files and generic `{role, content,
//!   timestamp}` JSONL ([`transcript`](self)): malformed lines are skipped and reported.
//! - [`crate::Memcore::session_add`] copies the transcript into the registry (checked by
//!   SHA-256 whenever it is read) and records its tokens, messages, times and keepit markers.
//! - [`crate::Memcore::session_compress`] makes a version ([`CompressionSettings`]: uniform or
//!   tiered, keepit decay by seed 004's survival threshold) through a [`Summarizer`]: the
//!   deterministic [`ExtractiveSummarizer`], or a callback ([`CallbackSummarizer`]).
//! - [`score_version`] and [`select_best_version`] are seed 004 section 4.3, exactly;
//!   [`crate::Memcore::session_compose`] is its section 4.4; [`crate::Memcore::session_prune`]
//!   deletes versions, refusing (unless forced) those compositions use.
//!
//! The files are laid out as the registry module describes (`<private dir>/sessions/`).

mod compress;
mod records;
pub(crate) mod registry;
mod requests;
mod select;
mod settings;
mod summarize;
mod transcript;

/// Live sessions of a tiered store (the hot tier; [`crate::Memcore::session_start`]).
pub use crate::store::{
    SessionEndReport, SessionEndRequest, SessionNoteKind, SessionNoteRequest, SessionStartRequest,
    SessionTurnRequest,
};
pub(crate) use compress::{Compressed, MarkerKey, compress, render_jsonl, render_markdown};
pub use records::{
    CompositionComponent, CompositionRecord, CompressionRecord, KeepitStats, Recompression,
    SessionKeepit, SessionRecord,
};
pub(crate) use records::{Manifest, VersionsFile};
pub use requests::{
    ComponentRequest, CompositionContext, CompositionOutput, CompositionRequest, PruneResult,
    SessionAddRequest, SessionComposeRequest, SessionCompressRequest, SessionListing,
    SessionPruneRequest, SessionRequest, SessionSummary, SessionVersionRequest, SummarizerChoice,
    VersionContent,
};
pub use select::{
    MIN_SELECTION_SCORE, Selection, SelectionCriteria, score_version, select_best_version,
};
pub use settings::{CompressionMode, CompressionSettings, KeepitMode, TierConfig, TierPreset};
pub(crate) use summarize::condense;
pub use summarize::{
    CallbackSummarizer, ExtractiveSummarizer, Summarizer, SummaryCallback, SummaryMessage,
    SummaryRequest,
};
pub use transcript::{
    MAX_TRANSCRIPT_BYTES, SessionMetadata, SkippedLine, Transcript, TranscriptFormat,
    TranscriptMessage, parse_transcript,
};
