//! How relevant a memory still is, by its age: seed 002's exponential decay with a half-life,
//! or a per-type rate and floor. Both search's recency boost and the lifecycle use it.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Error, Memory, Result, Timestamp};

/// Seconds in a day.
const SECONDS_PER_DAY: f64 = 86_400.0;

/// Days from `from` to `now`; 0.0 when `from` is in the future (a clock set before the
/// memory's creation or last change treats the memory as brand new, never as negative age).
///
/// ```
/// use chrono::Duration;
/// let now = memcore::now();
/// assert_eq!(memcore::decay::age_days(now - Duration::hours(36), now), 1.5);
/// assert_eq!(memcore::decay::age_days(now + Duration::days(2), now), 0.0);
/// ```
pub fn age_days(from: Timestamp, now: Timestamp) -> f64 {
    (now - from).num_milliseconds().max(0) as f64 / 1000.0 / SECONDS_PER_DAY
}

/// Seed 002's temporal decay: `0.5 ^ (age_days / half_life_days)`, 1.0 when new, 0.5 after
/// one half-life, towards 0.0 with age.
///
/// ```
/// assert_eq!(memcore::decay::half_life_decay(30.0, 30.0), 0.5);
/// assert_eq!(memcore::decay::half_life_decay(0.0, 30.0), 1.0);
/// ```
pub fn half_life_decay(age_days: f64, half_life_days: f64) -> f64 {
    0.5_f64.powf(age_days / half_life_days)
}

/// The decay of one memory type: a daily `rate` and a `floor`, so relevance is
/// `max(floor, rate ^ age_days)`: a journal entry (0.90, 0.10) fades within weeks, a fact
/// (0.98, 0.20) over months and never below a fifth.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeDecay {
    /// The share of relevance kept per day, in `(0, 1]`.
    pub rate: f64,
    /// The relevance it never falls below, in `[0, 1]`.
    pub floor: f64,
}

impl TypeDecay {
    /// The relevance after `age_days`: `max(floor, rate ^ age_days)`.
    ///
    /// ```
    /// use memcore::decay::TypeDecay;
    /// let journal = TypeDecay { rate: 0.9, floor: 0.1 };
    /// assert!((journal.relevance(1.0) - 0.9).abs() < 1e-12);
    /// assert_eq!(journal.relevance(365.0), 0.1);
    /// ```
    pub fn relevance(self, age_days: f64) -> f64 {
        self.rate.powf(age_days).max(self.floor)
    }

    /// A validation error unless the rate is in `(0, 1]` and the floor in `[0, 1]`.
    fn check(self, kind: &str) -> Result<()> {
        let rate_ok = self.rate > 0.0 && self.rate <= 1.0;
        let floor_ok = (0.0..=1.0).contains(&self.floor);
        if rate_ok && floor_ok {
            return Ok(());
        }
        Err(Error::validation(
            format!("invalid decay for type `{kind}`: rate {}, floor {}", self.rate, self.floor),
            "give a daily rate above 0 and at most 1 (0.98 keeps 98% a day) and a floor from \
             0 to 1",
        ))
    }
}

/// The decay settings (`decay:` in `.memcore.yaml`): a half-life for every memory, and
/// rates for the types that decay their own way.
///
/// ```yaml
/// decay:
///   half_life_days: 30
///   types:
///     journal: { rate: 0.90, floor: 0.10 }
///     fact: { rate: 0.98, floor: 0.20 }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DecayConfig {
    /// Days after which the relevance of a memory without a type rate halves (default 30).
    pub half_life_days: f64,
    /// Per-type rates and floors, by the memory's `type`; these replace the half-life for
    /// memories of that type. Default: journal 0.90/0.10, fact 0.98/0.20.
    pub types: BTreeMap<String, TypeDecay>,
}

/// The half-life when none is configured.
pub const DEFAULT_HALF_LIFE_DAYS: f64 = 30.0;

impl Default for DecayConfig {
    fn default() -> Self {
        let types = [
            ("journal", TypeDecay { rate: 0.90, floor: 0.10 }),
            ("fact", TypeDecay { rate: 0.98, floor: 0.20 }),
        ];
        Self {
            half_life_days: DEFAULT_HALF_LIFE_DAYS,
            types: types.into_iter().map(|(kind, decay)| (kind.to_owned(), decay)).collect(),
        }
    }
}

impl DecayConfig {
    /// A validation error for a half-life that is not a positive number or a type rate or
    /// floor out of range.
    pub fn validate(&self) -> Result<()> {
        check_half_life(self.half_life_days)?;
        self.types.iter().try_for_each(|(kind, decay)| decay.check(kind))
    }

    /// How relevant `memory` is at `now`, from 1.0 (just written) towards 0.0: its type's
    /// rate and floor if it has one, else the half-life. Age counts from the last change
    /// (`updated_at`), so editing a memory makes it fresh again.
    pub fn relevance(&self, memory: &Memory, now: Timestamp) -> f64 {
        self.relevance_of(memory.kind.as_deref(), memory.updated_at, now, self.half_life_days)
    }

    /// [`DecayConfig::relevance`] from the parts that matter, with the half-life given.
    pub(crate) fn relevance_of(
        &self,
        kind: Option<&str>,
        updated_at: Timestamp,
        now: Timestamp,
        half_life_days: f64,
    ) -> f64 {
        let age = age_days(updated_at, now);
        match kind.and_then(|kind| self.types.get(kind)) {
            Some(decay) => decay.relevance(age),
            None => half_life_decay(age, half_life_days),
        }
    }
}

/// A validation error unless `days` is a positive, finite half-life.
pub(crate) fn check_half_life(days: f64) -> Result<()> {
    if days.is_finite() && days > 0.0 {
        return Ok(());
    }
    Err(Error::validation(
        format!("invalid half-life: {days} days"),
        "give a positive number of days (30 halves relevance every month)",
    ))
}

/// The recency factor multiplied into a search score: `(1 - weight) + weight * relevance`,
/// so a weight of 0 leaves scores alone and 1 makes them proportional to relevance.
pub(crate) fn recency_factor(relevance: f64, weight: f64) -> f64 {
    (1.0 - weight) + weight * relevance
}

#[cfg(test)]
mod tests {
    use chrono::Duration;
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn half_life_matches_seed_table() {
        let now = crate::now();
        let table =
            [(0, 1.0), (7, 0.84), (15, 0.71), (30, 0.5), (60, 0.25), (90, 0.125), (180, 0.016)];
        for (days, expected) in table {
            let decay = half_life_decay(age_days(now - Duration::days(days), now), 30.0);
            // The seed prints two or three decimals (and truncates 0.8508 to 0.84).
            assert!((decay - expected).abs() < 0.011, "{days} days: {decay}");
        }
        assert_eq!(age_days(now + Duration::days(3), now), 0.0);
    }

    #[test]
    fn types_use_their_rate_and_floor() {
        let config = DecayConfig::default();
        let now = crate::now();
        let then = now - Duration::days(10);
        let journal = config.relevance_of(Some("journal"), then, now, 30.0);
        assert!((journal - 0.9_f64.powi(10)).abs() < 1e-9);
        let fact = config.relevance_of(Some("fact"), now - Duration::days(400), now, 30.0);
        assert_eq!(fact, 0.2);
        let plain = config.relevance_of(Some("plan"), now - Duration::days(30), now, 30.0);
        assert!((plain - 0.5).abs() < 1e-12);
        assert_eq!(recency_factor(0.25, 0.0), 1.0);
        assert_eq!(recency_factor(0.25, 1.0), 0.25);
    }

    #[test]
    fn rejects_bad_settings() {
        for half_life in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let config = DecayConfig { half_life_days: half_life, ..DecayConfig::default() };
            assert!(config.validate().is_err(), "{half_life}");
        }
        for (rate, floor) in [(0.0, 0.1), (1.5, 0.1), (f64::NAN, 0.1), (0.9, -0.1), (0.9, 1.1)] {
            let mut config = DecayConfig::default();
            config.types.insert("x".into(), TypeDecay { rate, floor });
            let err = config.validate().unwrap_err();
            assert!(err.to_string().contains("type `x`"), "{err}");
        }
    }

    proptest! {
        #[test]
        fn decay_falls_with_age_and_stays_in_range(
            a in 0.0..10_000.0f64, b in 0.0..10_000.0f64, half_life in 0.01..1_000.0f64,
            rate in 0.01..=1.0f64, floor in 0.0..=1.0f64,
        ) {
            let (young, old) = if a <= b { (a, b) } else { (b, a) };
            let (y, o) = (half_life_decay(young, half_life), half_life_decay(old, half_life));
            prop_assert!(o <= y && (0.0..=1.0).contains(&o) && (0.0..=1.0).contains(&y));
            let decay = TypeDecay { rate, floor };
            let (y, o) = (decay.relevance(young), decay.relevance(old));
            prop_assert!(o <= y && o >= floor && y <= 1.0);
        }

        #[test]
        fn longer_half_life_decays_slower(age in 0.0..1_000.0f64, h in 0.1..500.0f64) {
            prop_assert!(half_life_decay(age, h * 2.0) >= half_life_decay(age, h));
        }
    }
}
