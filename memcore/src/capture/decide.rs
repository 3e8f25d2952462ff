//! The capture decision (seed 002, section 1.4): which signals become captures, whether to
//! store them at once, suggest them or skip them, and the captures themselves with summary,
//! tags and a confidence weighed by novelty.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::novelty::{Novelty, overlap, words};
use super::signals::round3;
use super::{CaptureConfig, CaptureSignal, SignalType};
use crate::text::{Window, one_line, sentence_around};
use crate::{MemoryRef, Result};

/// The most captures one text makes (the most confident; the rest are skipped, saying so).
pub const MAX_CAPTURES: usize = 100;

/// The longest suggested summary, in characters (seed: 200).
pub(crate) const SUGGESTED_SUMMARY_CHARS: usize = 200;

/// What to do with a capture, or with a text as a whole.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum CaptureAction {
    /// Not worth a memory.
    Skip,
    /// Worth suggesting; store it if the user agrees.
    Suggest,
    /// Store it without asking.
    Auto,
}

impl CaptureAction {
    /// The action for a signal of `kind` this `confidence`: auto from `auto_threshold`,
    /// suggest from `suggest_threshold`, else skip; an explicit signal is at least suggest.
    pub fn for_signal(kind: SignalType, confidence: f64, config: &CaptureConfig) -> Self {
        let action = if confidence >= config.auto_threshold {
            Self::Auto
        } else if confidence >= config.suggest_threshold {
            Self::Suggest
        } else {
            Self::Skip
        };
        if kind == SignalType::Explicit { action.max(Self::Suggest) } else { action }
    }
}

/// A memory the text is worth, as it would be stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SuggestedCapture {
    /// The signal it comes from: its index in [`CaptureDecision::signals`].
    pub signal: usize,
    /// The signal's type.
    #[serde(rename = "type")]
    pub kind: SignalType,
    /// Auto (stored by `apply`) or suggest (stored by `apply_suggested` too).
    pub action: CaptureAction,
    /// The namespace (collection) it goes to.
    pub namespace: String,
    /// One line, at most 200 characters (stored as the title; the stored summary is cut to
    /// `limits.max_summary_chars`).
    pub summary: String,
    /// The memory's content.
    pub content: String,
    /// The signal type, the technologies it names, and the tags asked for.
    pub tags: Vec<String>,
    /// The signal's confidence weighed by novelty: `c * (0.5 + 0.5 * novelty)`.
    pub confidence: f64,
    /// How new it is.
    pub novelty: Novelty,
}

/// A signal that did not become a capture, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SkippedCapture {
    /// The signal: its index in [`CaptureDecision::signals`].
    pub signal: usize,
    /// Why it was skipped.
    pub reason: String,
    /// Its novelty, where it was checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub novelty: Option<Novelty>,
}

/// What `capture` decided about a text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct CaptureDecision {
    /// The strongest action among the captures: auto, suggest or skip.
    pub action: CaptureAction,
    /// Why, in a few words (`confidence 0.92`, `all signals are duplicates`, ...).
    pub reason: String,
    /// Every signal found, in text order.
    pub signals: Vec<CaptureSignal>,
    /// The captures worth a memory, in text order.
    pub captures: Vec<SuggestedCapture>,
    /// Signals confident enough to capture that were not, and why.
    pub skipped: Vec<SkippedCapture>,
    /// The memories stored (with `apply`), in the order of `captures`.
    pub stored: Vec<MemoryRef>,
    /// Things the caller should know, e.g. that novelty fell back to word overlap.
    pub warnings: Vec<String>,
}

/// A signal with what capturing it would store.
#[derive(Debug, Clone)]
pub(crate) struct Proposal {
    /// The signal.
    pub(crate) signal: CaptureSignal,
    /// The content to store.
    pub(crate) content: String,
    /// Its summary, if it has one of its own; else one is made from the content.
    pub(crate) summary: Option<String>,
    /// Whether its namespace was written explicitly (a marker's, a `/capture`'s), so that a
    /// request's namespace does not replace it.
    pub(crate) fixed_namespace: bool,
}

impl Proposal {
    /// A signal detected in `text`: the words of its context `window` are the content, the
    /// sentence holding the match its summary.
    pub(crate) fn detected(text: &str, signal: CaptureSignal, window: &Window) -> Self {
        let content = window.words(text).to_owned();
        // The sentence is looked for within the context only: in a text without sentence
        // ends, a search of the whole text per signal would be quadratic.
        // A match ending in white space (`interestingly, `) may end past the trimmed words.
        let offset = window.range().start;
        let start = (signal.start - offset).min(content.len());
        let end = (signal.end - offset).min(content.len());
        let sentence = sentence_around(&content, start..end);
        let summary = Some(one_line(sentence, SUGGESTED_SUMMARY_CHARS));
        Self { signal, content, summary, fixed_namespace: false }
    }
}

/// Decides about `proposals` (all signals of one text, in text order): those confident
/// enough (or explicit) are checked for novelty with `novelty_of(namespace, content)`, most
/// confident first; a duplicate of a stored memory, or of a stronger capture of this text in
/// the same namespace, is skipped with the reason.
pub(crate) fn decide(
    proposals: Vec<Proposal>,
    config: &CaptureConfig,
    extra_tags: &[String],
    mut novelty_of: impl FnMut(&str, &str) -> Result<Novelty>,
) -> Result<CaptureDecision> {
    let capturable = |p: &Proposal| {
        CaptureAction::for_signal(p.signal.kind, p.signal.confidence, config) != CaptureAction::Skip
    };
    let mut order: Vec<usize> =
        (0..proposals.len()).filter(|&i| capturable(&proposals[i])).collect();
    order.sort_by(|&a, &b| {
        proposals[b].signal.confidence.total_cmp(&proposals[a].signal.confidence)
    });

    let mut captures: Vec<SuggestedCapture> = Vec::new();
    let mut kept_words: Vec<(String, HashSet<String>, usize)> = Vec::new();
    let mut skipped = Vec::new();
    for index in order {
        let proposal = &proposals[index];
        let namespace = proposal.signal.namespace.as_str();
        if captures.len() >= MAX_CAPTURES {
            skipped.push(SkippedCapture {
                signal: index,
                reason: format!("over the {MAX_CAPTURES} captures one text may make"),
                novelty: None,
            });
            continue;
        }
        let own = words(&proposal.content);
        let repeated = kept_words.iter().find(|(ns, kept, kept_index)| {
            ns == namespace
                && (proposals[*kept_index].content.trim() == proposal.content.trim()
                    || overlap(&own, kept) >= config.similarity_threshold)
        });
        if let Some((_, _, stronger)) = repeated {
            skipped.push(SkippedCapture {
                signal: index,
                reason: format!("repeats the capture of signal {stronger} in this text"),
                novelty: None,
            });
            continue;
        }
        let novelty = novelty_of(namespace, &proposal.content)?;
        if !novelty.is_novel {
            let reason = match novelty.similar.first() {
                Some(like) => {
                    format!("duplicate of {} (similarity {:.2})", like.reference, like.similarity)
                }
                None => "not novel enough".to_owned(),
            };
            skipped.push(SkippedCapture { signal: index, reason, novelty: Some(novelty) });
            continue;
        }
        kept_words.push((namespace.to_owned(), own, index));
        captures.push(suggestion(index, proposal, novelty, config, extra_tags));
    }
    captures.sort_by_key(|capture| capture.signal);
    skipped.sort_by_key(|skip| skip.signal);

    let checked: HashSet<usize> = skipped.iter().map(|skip| skip.signal).collect();
    let highest = proposals
        .iter()
        .enumerate()
        .filter(|(index, _)| !checked.contains(index))
        .map(|(_, p)| p.signal.confidence)
        .reduce(f64::max);
    let (action, reason) = match highest {
        _ if proposals.is_empty() => (CaptureAction::Skip, "no capture signals".to_owned()),
        None => (CaptureAction::Skip, "all signals are duplicates".to_owned()),
        Some(confidence) => {
            let action = captures.iter().map(|c| c.action).max().unwrap_or(CaptureAction::Skip);
            (action, format!("confidence {confidence:.2}"))
        }
    };
    Ok(CaptureDecision {
        action,
        reason,
        signals: proposals.into_iter().map(|p| p.signal).collect(),
        captures,
        skipped,
        stored: Vec::new(),
        warnings: Vec::new(),
    })
}

/// The capture of `proposal` (signal `index`).
fn suggestion(
    index: usize,
    proposal: &Proposal,
    novelty: Novelty,
    config: &CaptureConfig,
    extra_tags: &[String],
) -> SuggestedCapture {
    let signal = &proposal.signal;
    let mut tags = vec![signal.kind.as_str().to_owned()];
    tags.extend(technology_tags(&proposal.content).into_iter().map(str::to_owned));
    tags.extend(extra_tags.iter().cloned());
    let mut seen = HashSet::new();
    tags.retain(|tag| seen.insert(tag.clone()));
    SuggestedCapture {
        signal: index,
        kind: signal.kind,
        action: CaptureAction::for_signal(signal.kind, signal.confidence, config),
        namespace: signal.namespace.clone(),
        summary: match &proposal.summary {
            Some(summary) if !summary.trim().is_empty() => summary.trim().to_owned(),
            _ => one_line(&proposal.content, SUGGESTED_SUMMARY_CHARS),
        },
        content: proposal.content.clone(),
        tags,
        confidence: round3(signal.confidence * (0.5 + 0.5 * novelty.score)),
        novelty,
    }
}

/// The seed's technology tags and the words that give them.
const TECHNOLOGIES: [(&str, &[&str]); 10] = [
    ("python", &["python", "pip", "pytest", "django", "flask"]),
    ("javascript", &["javascript", "js", "node", "npm", "react", "vue"]),
    ("typescript", &["typescript", "ts"]),
    ("database", &["database", "sql", "postgres", "mysql", "sqlite", "mongodb"]),
    ("api", &["api", "rest", "graphql", "endpoint"]),
    ("docker", &["docker", "container", "kubernetes", "k8s"]),
    ("git", &["git", "commit", "branch", "merge", "rebase"]),
    ("testing", &["test", "unittest", "pytest", "jest", "testing"]),
    ("performance", &["performance", "optimization", "cache", "fast", "slow"]),
    ("security", &["security", "auth", "authentication", "encryption"]),
];

/// The technology tags of `text`: a tag for each technology one of whose keywords is a whole
/// word of the text, in any case (whole words, so `ts` does not fire inside `its`).
pub fn technology_tags(text: &str) -> Vec<&'static str> {
    let words: HashSet<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect();
    TECHNOLOGIES
        .iter()
        .filter(|(_, keywords)| keywords.iter().any(|keyword| words.contains(*keyword)))
        .map(|(tag, _)| *tag)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::novelty::{NoveltyMethod, SimilarMemory};
    use crate::capture::signals::detect_with_windows;

    fn proposals(text: &str) -> Vec<Proposal> {
        detect_with_windows(text, 100)
            .into_iter()
            .map(|(signal, window)| Proposal::detected(text, signal, &window))
            .collect()
    }

    fn novel(_: &str, _: &str) -> Result<Novelty> {
        Ok(Novelty::unchecked())
    }

    #[test]
    fn thresholds_decide_and_explicit_is_at_least_suggest() {
        let config = CaptureConfig::default();
        use SignalType::*;
        assert_eq!(CaptureAction::for_signal(Learning, 0.95, &config), CaptureAction::Auto);
        assert_eq!(CaptureAction::for_signal(Learning, 0.949, &config), CaptureAction::Suggest);
        assert_eq!(CaptureAction::for_signal(Learning, 0.70, &config), CaptureAction::Suggest);
        assert_eq!(CaptureAction::for_signal(Learning, 0.69, &config), CaptureAction::Skip);
        assert_eq!(CaptureAction::for_signal(Explicit, 0.5, &config), CaptureAction::Suggest);
    }

    #[test]
    fn a_confident_novel_signal_is_a_capture_with_tags() {
        let text = "We decided to move the job queue from Redis to Postgres for durability.";
        let decision = decide(proposals(text), &CaptureConfig::default(), &[], novel).unwrap();
        assert_eq!(decision.action, CaptureAction::Suggest);
        assert_eq!(decision.reason, "confidence 0.92");
        let capture = &decision.captures[0];
        assert_eq!(capture.namespace, "decisions");
        assert_eq!(capture.tags, ["decision", "database"]);
        assert_eq!(capture.summary, text);
        assert_eq!(capture.confidence, 0.92);
    }

    #[test]
    fn duplicates_are_skipped_with_the_reason() {
        let dup = |_: &str, _: &str| {
            let like = SimilarMemory { reference: "decisions/queue".parse()?, similarity: 0.91 };
            Ok(Novelty::of(vec![like], NoveltyMethod::Semantic, &CaptureConfig::default()))
        };
        let text = "We decided to move the job queue from Redis to Postgres for durability.";
        let decision = decide(proposals(text), &CaptureConfig::default(), &[], dup).unwrap();
        assert_eq!(decision.action, CaptureAction::Skip);
        assert_eq!(decision.reason, "all signals are duplicates");
        assert_eq!(decision.skipped[0].reason, "duplicate of decisions/queue (similarity 0.91)");
    }

    #[test]
    fn novelty_weighs_the_suggested_confidence() {
        let half = |_: &str, _: &str| {
            let like = SimilarMemory { reference: "decisions/x".parse()?, similarity: 0.5 };
            Ok(Novelty::of(vec![like], NoveltyMethod::Semantic, &CaptureConfig::default()))
        };
        let text = "We decided to move the job queue from Redis to Postgres for durability.";
        let decision = decide(proposals(text), &CaptureConfig::default(), &[], half).unwrap();
        assert_eq!(decision.captures[0].confidence, 0.69); // 0.92 * 0.75
    }

    #[test]
    fn no_signals_skip() {
        let decision = decide(proposals("Hello there!"), &CaptureConfig::default(), &[], novel);
        let decision = decision.unwrap();
        assert_eq!(
            (decision.action, decision.reason.as_str()),
            (CaptureAction::Skip, "no capture signals")
        );
    }

    #[test]
    fn technology_tags_are_whole_words() {
        assert_eq!(
            technology_tags("its tests use Pytest on Docker"),
            ["python", "docker", "testing"]
        );
        assert!(technology_tags("its").is_empty());
    }
}
