//! The capture engine's settings: the `capture:` section of a store's config.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::SignalType;
use crate::{Collection, Error, Result};

/// The namespaces seed 002 defines (section 1.5) and the ones its signal types suggest.
const DEFAULT_NAMESPACES: [&str; 13] = [
    "blockers",
    "decisions",
    "elicitation",
    "inception",
    "learnings",
    "notes",
    "patterns",
    "preferences",
    "progress",
    "research",
    "retrospective",
    "reviews",
    "solutions",
];

/// How captures are decided (seed 002, sections 1.3-1.5), as `capture:` in a store's config.
///
/// ```yaml
/// capture:
///   namespaces: [decisions, learnings, blockers, solutions, preferences, notes, progress]
///   auto_threshold: 0.95       # a signal this confident is captured without asking
///   suggest_threshold: 0.70    # one this confident is suggested; below, skipped
///   novelty_threshold: 0.3     # novelty (1 - highest similarity) below this: a duplicate
///   similarity_threshold: 0.7  # a similarity this high to a stored memory: a duplicate
///   novelty_k: 5               # stored memories compared with each capture
///   context_chars: 100         # characters of context either side of a signal
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CaptureConfig {
    /// The namespaces (collections) captures may go to; must include the six the signal
    /// types suggest (`decisions`, `learnings`, `blockers`, `solutions`, `preferences`,
    /// `notes`).
    pub namespaces: Vec<String>,
    /// A capture at least this confident is `auto` (stored by `apply`).
    pub auto_threshold: f64,
    /// A capture at least this confident (or an explicit one) is `suggest`; below, `skip`.
    pub suggest_threshold: f64,
    /// A capture less novel than this duplicates a stored memory.
    pub novelty_threshold: f64,
    /// A capture at least this similar (cosine) to a stored memory duplicates it.
    pub similarity_threshold: f64,
    /// How many stored memories each capture is compared with.
    pub novelty_k: usize,
    /// Characters of context taken either side of a signal.
    pub context_chars: usize,
}

impl Default for CaptureConfig {
    fn default() -> Self {
        Self {
            namespaces: DEFAULT_NAMESPACES.map(String::from).to_vec(),
            auto_threshold: 0.95,
            suggest_threshold: 0.70,
            novelty_threshold: 0.3,
            similarity_threshold: 0.7,
            novelty_k: 5,
            context_chars: 100,
        }
    }
}

/// The most stored memories a capture is compared with.
const MAX_NOVELTY_K: usize = 100;
/// The widest context either side of a signal, in characters.
const MAX_CONTEXT_CHARS: usize = 10_000;

impl CaptureConfig {
    /// A validation error for a threshold outside `0.0..=1.0` (or a suggest threshold above
    /// the auto one), a `novelty_k` outside 1 to 100, a context wider than 10,000
    /// characters, or namespaces that are not collection names or leave out one the signal
    /// types need.
    pub fn validate(&self) -> Result<()> {
        for (name, value) in [
            ("auto_threshold", self.auto_threshold),
            ("suggest_threshold", self.suggest_threshold),
            ("novelty_threshold", self.novelty_threshold),
            ("similarity_threshold", self.similarity_threshold),
        ] {
            if !(0.0..=1.0).contains(&value) {
                return Err(Error::validation(
                    format!("invalid capture.{name}: {value}"),
                    format!("give capture.{name} as a number from 0.0 to 1.0"),
                ));
            }
        }
        if self.suggest_threshold > self.auto_threshold {
            return Err(Error::validation(
                "capture.suggest_threshold is above capture.auto_threshold",
                "make the suggest threshold at most the auto threshold (defaults 0.70 and 0.95)",
            ));
        }
        if !(1..=MAX_NOVELTY_K).contains(&self.novelty_k) {
            return Err(Error::validation(
                format!("invalid capture.novelty_k: {}", self.novelty_k),
                format!("give capture.novelty_k from 1 to {MAX_NOVELTY_K} (default 5)"),
            ));
        }
        if self.context_chars > MAX_CONTEXT_CHARS {
            return Err(Error::validation(
                format!("invalid capture.context_chars: {}", self.context_chars),
                format!("give capture.context_chars up to {MAX_CONTEXT_CHARS} (default 100)"),
            ));
        }
        for name in &self.namespaces {
            Collection::new(name.as_str()).map_err(|e| {
                Error::validation(
                    format!("capture.namespaces: `{name}` is not a collection name: {e}"),
                    e.recovery(),
                )
            })?;
        }
        if let Some(missing) =
            SignalType::ALL.iter().map(|t| t.namespace()).find(|ns| !self.has_namespace(ns))
        {
            return Err(Error::validation(
                format!("capture.namespaces leaves out `{missing}`, which a signal type needs"),
                "keep decisions, learnings, blockers, solutions, preferences and notes in \
                 capture.namespaces, and add your own",
            ));
        }
        Ok(())
    }

    /// Whether `name` is a configured namespace.
    pub fn has_namespace(&self, name: &str) -> bool {
        self.namespaces.iter().any(|ns| ns == name)
    }

    /// A validation error unless `name` is a configured namespace.
    pub(crate) fn check_namespace(&self, name: &str) -> Result<()> {
        if name.trim().is_empty() {
            return Err(Error::validation(
                "namespace cannot be empty",
                format!("use one of: {}", self.namespaces.join(", ")),
            ));
        }
        if !self.has_namespace(name) {
            return Err(Error::validation(
                format!("invalid namespace: `{name}`"),
                format!(
                    "use one of: {} (or add it to capture.namespaces in the store's config)",
                    self.namespaces.join(", ")
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_hold_every_signal_namespace() {
        CaptureConfig::default().validate().unwrap();
    }

    #[test]
    fn bad_settings_are_validation_errors() {
        let bad = [
            CaptureConfig { auto_threshold: 1.5, ..Default::default() },
            CaptureConfig { suggest_threshold: 0.99, ..Default::default() },
            CaptureConfig { novelty_k: 0, ..Default::default() },
            CaptureConfig { context_chars: 1_000_000, ..Default::default() },
            CaptureConfig { namespaces: vec!["Bad Name".into()], ..Default::default() },
            CaptureConfig { namespaces: vec!["decisions".into()], ..Default::default() },
        ];
        for config in bad {
            assert!(config.validate().is_err(), "{config:?}");
        }
    }
}
