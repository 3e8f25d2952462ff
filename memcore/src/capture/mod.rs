//! The capture engine (seed 002, section 1): what in a text is worth remembering, whether it
//! is new, and whether to store it now, suggest it, or skip it; offline, without an LLM.
//!
//! - Markers: `[remember]` and `[remember:<namespace>]` mark text explicitly; when a text
//!   has markers, only they count.
//! - [`detect_signals`]: otherwise, the seed's 44 signal phrases with their base confidences
//!   and adjustments, outside markdown code.
//! - [`Novelty`]: each capture is compared with the stored memories of its namespace
//!   (collection) through memcore's own search.
//! - [`CaptureDecision`]: auto (at least 0.95), suggest (0.70 to 0.95, or any explicit
//!   capture) or skip, per capture and for the text; `Memcore::capture` stores the auto
//!   captures (and optionally the suggested ones) when asked.
//!
//! Everything here but the novelty search is pure; the facade is
//! [`Memcore::capture`](crate::Memcore::capture).

mod config;
mod decide;
mod markers;
mod novelty;
mod requests;
pub(crate) mod signals;

pub use config::CaptureConfig;
pub use decide::{
    CaptureAction, CaptureDecision, MAX_CAPTURES, SkippedCapture, SuggestedCapture, technology_tags,
};
pub use novelty::{Novelty, NoveltyMethod, SimilarMemory};
pub use requests::CaptureRequest;
pub use signals::{
    CaptureSignal, MAX_SIGNALS, PATTERNS, SignalPattern, SignalType, detect_signals,
    score_confidence,
};

pub(crate) use decide::{Proposal, SUGGESTED_SUMMARY_CHARS, decide};
pub(crate) use markers::{Marker, find_markers, find_retrieve_markers};
pub(crate) use novelty::{overlap, words};
