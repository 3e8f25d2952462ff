//! The decay engine: how memories age (ARCHITECTURE.md section 7).
//!
//! - **Status machine** (seed 002, 6.1): [`crate::Status`] and its transition table; moving
//!   to `archived` compresses the content (`archive`-style, losslessly) and moving back
//!   restores it. [`crate::Memcore::transition`] is the entry point.
//! - **Temporal decay** (seed 002, 6.2): [`DecayConfig::relevance`], a half-life for every
//!   memory or a rate and floor per type. Search's recency boost multiplies it in
//!   ([`crate::Recency`]); the lifecycle archives what falls below a minimum.
//! - **Lifecycle** (seed 002, 6.3): [`plan_step`] decides one memory, [`LifecycleOptions`]
//!   and [`LifecycleReport`] are the request and answer of
//!   [`crate::Memcore::process_lifecycle`] (dry run or real).
//! - **Keepit markers** (seed 004, 4.1-4.2, 5.4): [`extract_markers`], [`validate_weight`],
//!   [`KeepitLevel`], [`survival_threshold`], [`set_weight`] and [`preview`].
//!
//! Everything here is pure: no I/O, time passed in, so every figure is reproducible.

mod archive;
mod keepit;
mod lifecycle;
mod requests;
mod temporal;

pub use archive::ARCHIVE_KEY;
pub use keepit::{
    Aggressiveness, DEFAULT_MAX_DISTANCE, DistanceThreshold, KeepitLevel, KeepitMarker,
    KeepitPreview, MarkerPreview, PreviewSettings, extract_markers, preview, set_weight,
    survival_threshold, survives, validate_weight,
};
pub(crate) use keepit::{lenient_markers, tag_end};
pub use lifecycle::{
    LifecycleAction, LifecycleConfig, LifecycleOptions, LifecycleReport, LifecycleStats,
    LifecycleStep, exempt_from_aging, is_pinned, plan_step,
};
pub(crate) use requests::one_source;
pub use requests::{
    KeepitMarkers, KeepitPreviewRequest, KeepitSetRequest, KeepitSource, TransitionRequest,
};
pub use temporal::{DEFAULT_HALF_LIFE_DAYS, DecayConfig, TypeDecay, age_days, half_life_decay};
pub(crate) use temporal::{check_half_life, recency_factor};

use crate::{Memory, MemoryUpdate, Result, Status};

/// `change` as it must be written to `memory` with the lifecycle's side effects: entering
/// `archived` from active or resolved compresses the content (when `compress` and it saves
/// space); leaving archived or tombstone for a live status brings the original back (unless
/// the change gives new content). The result only applies to `memory`'s current version.
pub(crate) fn with_status_effects(
    memory: &Memory,
    change: &MemoryUpdate,
    compress: bool,
) -> Result<MemoryUpdate> {
    let mut change = change.clone();
    change.expected_version.get_or_insert(memory.version);
    let Some(target) = change.status else {
        return Ok(change);
    };
    memory.status.check_transition(target)?;
    let live = |status| matches!(status, Status::Active | Status::Resolved);
    let key = ARCHIVE_KEY.to_owned();
    if live(target) && memory.metadata.contains_key(ARCHIVE_KEY) {
        if change.content.is_none() {
            change.content = archive::original(memory)?;
        }
        change.metadata.insert(key, serde_json::Value::Null);
    } else if target == Status::Archived
        && live(memory.status)
        && compress
        && change.content.is_none()
        && let Some((stub, kept)) = archive::compress(memory)
    {
        change.content = Some(stub);
        change.metadata.insert(key, kept);
    }
    Ok(change)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Collection, Limits, NewMemory};

    #[test]
    fn archiving_round_trips_through_updates() {
        let content = "# Notes\n\n".to_owned() + &"The cache is warmed at boot. ".repeat(40);
        let limits = Limits::default();
        let now = crate::now();
        let memory = NewMemory::new(content.clone())
            .into_memory(&Collection::default(), &limits, now)
            .unwrap();
        let archive =
            with_status_effects(&memory, &MemoryUpdate::new().status(Status::Archived), true)
                .unwrap();
        assert_eq!(archive.expected_version, Some(1));
        let archived = archive.apply(&memory, &limits, now).unwrap();
        assert!(archived.content.starts_with("[ARCHIVED]"));
        let tombstone =
            with_status_effects(&archived, &MemoryUpdate::new().status(Status::Tombstone), true)
                .unwrap();
        let tombstoned = tombstone.apply(&archived, &limits, now).unwrap();
        assert!(tombstoned.content.starts_with("[ARCHIVED]"));
        let restore =
            with_status_effects(&tombstoned, &MemoryUpdate::new().status(Status::Active), true)
                .unwrap();
        let restored = restore.apply(&tombstoned, &limits, now).unwrap();
        assert_eq!(restored.content, content);
        assert!(!restored.metadata.contains_key(ARCHIVE_KEY));
        assert_eq!(restored.version, 4);
        // Without compression the content stays; an invalid move names the allowed ones.
        let plain =
            with_status_effects(&memory, &MemoryUpdate::new().status(Status::Archived), false)
                .unwrap();
        assert_eq!(plain.content, None);
        let err =
            with_status_effects(&archived, &MemoryUpdate::new().status(Status::Resolved), true)
                .unwrap_err();
        assert_eq!(err.recovery(), "from archived it can go to: active, tombstone");
    }
}
