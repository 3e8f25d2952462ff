//! Automatic lifecycle processing (seed 002, 6.3): which memories to archive, tombstone or
//! delete, by age and relevance, as a plan that a dry run returns and a real run carries out.
//!
//! Ages count from a memory's last change (`updated_at`): archiving and tombstoning are
//! changes, so "tombstone archived memories after 180 days" counts from the archiving.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::keepit::has_pinned_marker;
use super::temporal::{DecayConfig, age_days};
use crate::error::{ErrorInfo, serialize_infos};
use crate::{Error, Memory, MemoryRef, Result, Status, Timestamp};

/// The lifecycle thresholds (`lifecycle:` in `.memcore.yaml`); the seed's by default.
///
/// ```yaml
/// lifecycle:
///   archive_after_days: 90      # active or resolved, unchanged this long
///   min_relevance: 0.1          # ... or less relevant than this (see `decay:`)
///   tombstone_after_days: 180   # archived this long
///   delete_after_days: 365      # tombstoned this long: moved to the trash
///   compress_archived: true     # keep archived content compressed (restored exactly)
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LifecycleConfig {
    /// Archive active and resolved memories unchanged for more than this many days.
    pub archive_after_days: f64,
    /// Archive active and resolved memories whose relevance is below this, 0.0 to 1.0.
    pub min_relevance: f64,
    /// Tombstone memories archived for more than this many days.
    pub tombstone_after_days: f64,
    /// Delete (move to the trash) memories tombstoned for more than this many days.
    pub delete_after_days: f64,
    /// Compress the content of archived memories, keeping the original to restore.
    pub compress_archived: bool,
}

impl Default for LifecycleConfig {
    fn default() -> Self {
        Self {
            archive_after_days: 90.0,
            min_relevance: 0.1,
            tombstone_after_days: 180.0,
            delete_after_days: 365.0,
            compress_archived: true,
        }
    }
}

impl LifecycleConfig {
    /// A validation error for a threshold that is negative, NaN or infinite, or a minimum
    /// relevance outside `0.0..=1.0`.
    pub fn validate(&self) -> Result<()> {
        for (name, days) in [
            ("archive_after_days", self.archive_after_days),
            ("tombstone_after_days", self.tombstone_after_days),
            ("delete_after_days", self.delete_after_days),
        ] {
            if !(days.is_finite() && days >= 0.0) {
                return Err(Error::validation(
                    format!("invalid lifecycle threshold {name}: {days}"),
                    format!("give {name} as a number of days, 0 or more"),
                ));
            }
        }
        if !(0.0..=1.0).contains(&self.min_relevance) {
            return Err(Error::validation(
                format!("invalid lifecycle threshold min_relevance: {}", self.min_relevance),
                "give min_relevance from 0.0 (never archive by relevance) to 1.0",
            ));
        }
        Ok(())
    }
}

/// What a lifecycle run does (the `lifecycle` request). Thresholds left unset come from the
/// store's `lifecycle:` config.
///
/// ```
/// use memcore::decay::LifecycleOptions;
/// let plan_only = LifecycleOptions::new().dry_run(true).collection("journal");
/// assert!(plan_only.dry_run);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct LifecycleOptions {
    /// Only plan: return what a real run would do, change nothing.
    pub dry_run: bool,
    /// The time to judge ages at; the handle's clock when unset (tests and previews pass a
    /// future time instead of waiting). A real run also writes at this time: the memories
    /// it changes get it as `updated_at`, so running again at the same time does nothing
    /// more, and ages later count from it.
    pub now: Option<Timestamp>,
    /// Only these collections (all when empty).
    pub collections: Vec<String>,
    /// Overrides `archive_after_days`.
    pub archive_after_days: Option<f64>,
    /// Overrides `min_relevance`.
    pub min_relevance: Option<f64>,
    /// Overrides `tombstone_after_days`.
    pub tombstone_after_days: Option<f64>,
    /// Overrides `delete_after_days`.
    pub delete_after_days: Option<f64>,
    /// Overrides `compress_archived`.
    pub compress: Option<bool>,
}

impl LifecycleOptions {
    /// A real run over every collection with the store's thresholds, judged now.
    pub fn new() -> Self {
        Self::default()
    }

    /// Only plan (`true`) or carry the plan out.
    #[must_use]
    pub fn dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    /// Judges ages at `now` instead of the handle's clock.
    #[must_use]
    pub fn now(mut self, now: Timestamp) -> Self {
        self.now = Some(now);
        self
    }

    /// Adds a collection to process (all when none is added).
    #[must_use]
    pub fn collection(mut self, collection: impl Into<String>) -> Self {
        self.collections.push(collection.into());
        self
    }

    /// The thresholds of this run: the options over `config`, validated.
    pub fn thresholds(&self, config: &LifecycleConfig) -> Result<LifecycleConfig> {
        let thresholds = LifecycleConfig {
            archive_after_days: self.archive_after_days.unwrap_or(config.archive_after_days),
            min_relevance: self.min_relevance.unwrap_or(config.min_relevance),
            tombstone_after_days: self.tombstone_after_days.unwrap_or(config.tombstone_after_days),
            delete_after_days: self.delete_after_days.unwrap_or(config.delete_after_days),
            compress_archived: self.compress.unwrap_or(config.compress_archived),
        };
        thresholds.validate()?;
        Ok(thresholds)
    }
}

/// What the lifecycle does to one memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LifecycleAction {
    /// Active or resolved to archived (content compressed when configured).
    Archive,
    /// Archived to tombstone.
    Tombstone,
    /// A tombstone deleted: moved to the trash (restore brings it back).
    Delete,
}

/// One step of a lifecycle plan: a memory, where it goes and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct LifecycleStep {
    /// The memory.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// What happens to it.
    pub action: LifecycleAction,
    /// Its status now.
    pub from: Status,
    /// Its status after (none: deleted).
    pub to: Option<Status>,
    /// Why, in words: which threshold it passed.
    pub reason: String,
    /// Days since its last change.
    pub age_days: f64,
    /// Its relevance by the decay settings, 0.0 to 1.0.
    pub relevance: f64,
    /// The version the decision was made on; a real run skips a memory changed since.
    pub version: u64,
}

/// The counts of a lifecycle run (the seed's `LifecycleStats`, plus failures).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct LifecycleStats {
    /// Memories looked at.
    pub scanned: usize,
    /// Archived (or, in a dry run, to be).
    pub archived: usize,
    /// Tombstoned.
    pub tombstoned: usize,
    /// Deleted (moved to the trash).
    pub deleted: usize,
    /// Left as they were (including pinned memories and ones changed during the run).
    pub skipped: usize,
    /// Memories that could not be read or changed (see `errors`).
    pub failed: usize,
}

impl LifecycleStats {
    /// Counts one step done (or planned).
    pub(crate) fn count(&mut self, action: LifecycleAction) {
        match action {
            LifecycleAction::Archive => self.archived += 1,
            LifecycleAction::Tombstone => self.tombstoned += 1,
            LifecycleAction::Delete => self.deleted += 1,
        }
    }
}

/// What a lifecycle run did, or in a dry run would do.
#[derive(Debug, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct LifecycleReport {
    /// Whether this was a dry run (nothing changed).
    pub dry_run: bool,
    /// The time ages were judged at.
    pub now: Timestamp,
    /// The counts.
    pub stats: LifecycleStats,
    /// Each memory that changed (or would), in store order.
    pub steps: Vec<LifecycleStep>,
    /// What went wrong: memories that could not be read, and failed writes (one error per
    /// write; a batch of steps shares one). The run went on without them.
    #[serde(serialize_with = "serialize_infos")]
    #[schemars(with = "Vec<ErrorInfo>")]
    pub errors: Vec<Error>,
}

/// Whether `memory` is pinned: importance 1.0 or a `##keepit1.00##` marker. Pinned memories
/// are never archived.
pub fn is_pinned(memory: &Memory) -> bool {
    memory.importance.is_some_and(|importance| importance >= 1.0)
        || has_pinned_marker(&memory.content)
}

/// Whether `memory` never ages: pinned, an agent's profile, or part of a document (its
/// record, chunks and ratings follow the document's file, not the lifecycle: `docs_purge`
/// removes them). The lifecycle and tiered compaction leave such memories where they are.
pub fn exempt_from_aging(memory: &Memory) -> bool {
    crate::docs::is_document_memory(memory) || crate::agent::is_profile(memory) || is_pinned(memory)
}

/// The step the lifecycle takes for `memory` at `now`, if any (seed 002's order: delete
/// before tombstone before archive).
pub fn plan_step(
    memory: &Memory,
    now: Timestamp,
    decay: &DecayConfig,
    thresholds: &LifecycleConfig,
) -> Option<LifecycleStep> {
    let age = age_days(memory.updated_at, now);
    let relevance = decay.relevance(memory, now);
    let step = |action, to, reason: String| LifecycleStep {
        reference: memory.reference(),
        action,
        from: memory.status,
        to,
        reason,
        age_days: age,
        relevance,
        version: memory.version,
    };
    let days = |d: f64| format!("{d:.0} days");
    match memory.status {
        Status::Tombstone if age > thresholds.delete_after_days => Some(step(
            LifecycleAction::Delete,
            None,
            format!(
                "tombstoned {} ago (deleted after {})",
                days(age),
                days(thresholds.delete_after_days)
            ),
        )),
        Status::Archived if age > thresholds.tombstone_after_days => Some(step(
            LifecycleAction::Tombstone,
            Some(Status::Tombstone),
            format!(
                "archived {} ago (tombstoned after {})",
                days(age),
                days(thresholds.tombstone_after_days)
            ),
        )),
        Status::Active | Status::Resolved => {
            let reason = if age > thresholds.archive_after_days {
                format!(
                    "unchanged for {} (archived after {})",
                    days(age),
                    days(thresholds.archive_after_days)
                )
            } else if relevance < thresholds.min_relevance {
                format!("relevance {relevance:.3} is below {}", thresholds.min_relevance)
            } else {
                return None;
            };
            // Only a memory that is due is read for a pin (a scan of its content).
            if exempt_from_aging(memory) {
                return None;
            }
            Some(step(LifecycleAction::Archive, Some(Status::Archived), reason))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;
    use crate::{Collection, Limits, NewMemory};

    fn memory(kind: Option<&str>, status: Status, days_ago: i64, now: Timestamp) -> Memory {
        let mut new = NewMemory::new("Some plain text worth keeping for a while.");
        new.kind = kind.map(str::to_owned);
        let mut memory = new.into_memory(&Collection::default(), &Limits::default(), now).unwrap();
        memory.status = status;
        memory.updated_at = now - Duration::days(days_ago);
        memory
    }

    #[test]
    fn follows_the_seed_thresholds() {
        let now = crate::now();
        let (decay, limits) = (DecayConfig::default(), LifecycleConfig::default());
        let action = |m: &Memory| plan_step(m, now, &decay, &limits).map(|s| s.action);
        use LifecycleAction::*;
        assert_eq!(action(&memory(None, Status::Active, 89, now)), None);
        assert_eq!(action(&memory(None, Status::Active, 91, now)), Some(Archive));
        assert_eq!(action(&memory(None, Status::Resolved, 91, now)), Some(Archive));
        assert_eq!(action(&memory(None, Status::Archived, 179, now)), None);
        assert_eq!(action(&memory(None, Status::Archived, 181, now)), Some(Tombstone));
        assert_eq!(action(&memory(None, Status::Tombstone, 364, now)), None);
        assert_eq!(action(&memory(None, Status::Tombstone, 366, now)), Some(Delete));
        // A clock before the last change: age 0, nothing to do.
        assert_eq!(action(&memory(None, Status::Active, -30, now)), None);
    }

    #[test]
    fn low_relevance_archives_early_and_pins_hold() {
        let now = crate::now();
        let decay = DecayConfig { half_life_days: 5.0, ..DecayConfig::default() };
        let limits = LifecycleConfig::default();
        let old = memory(None, Status::Active, 20, now);
        let step = plan_step(&old, now, &decay, &limits).unwrap();
        assert!(step.reason.starts_with("relevance 0.062 is below 0.1"), "{}", step.reason);
        // A fact's floor (0.2) keeps it above the minimum relevance.
        assert!(
            plan_step(&memory(Some("fact"), Status::Active, 20, now), now, &decay, &limits)
                .is_none()
        );
        let mut pinned = memory(None, Status::Active, 400, now);
        pinned.importance = Some(1.0);
        assert!(plan_step(&pinned, now, &decay, &limits).is_none());
        pinned.importance = None;
        pinned.content = "##keepit1.00## the WAL must never be dropped".into();
        assert!(is_pinned(&pinned));
        assert!(plan_step(&pinned, now, &decay, &limits).is_none());
    }

    #[test]
    fn options_override_and_are_checked() {
        let config = LifecycleConfig::default();
        let options = LifecycleOptions { archive_after_days: Some(7.0), ..Default::default() };
        assert_eq!(options.thresholds(&config).unwrap().archive_after_days, 7.0);
        for bad in [
            LifecycleOptions { tombstone_after_days: Some(-1.0), ..Default::default() },
            LifecycleOptions { delete_after_days: Some(f64::NAN), ..Default::default() },
            LifecycleOptions { min_relevance: Some(1.5), ..Default::default() },
        ] {
            assert!(bad.thresholds(&config).is_err());
        }
    }
}
