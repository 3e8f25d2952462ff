//! Signal detection (seed 002, section 1.2): phrases that say a text holds a decision, a
//! learning, a blocker, a resolution, a preference or an explicit request to remember.
//!
//! Every pattern of the seed's tables is compiled once, case-insensitively. One pass of a
//! [`RegexSet`] says which patterns occur at all; only those are then searched for their
//! matches, so detection is linear in the text. Matches inside markdown code (fenced or
//! indented blocks, inline spans) are not signals. Of two matches of the same type that
//! overlap, the more confident one is kept.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::LazyLock;

use regex::{Regex, RegexSet};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::format::{code_ranges, in_ranges};
use crate::text::{CharCounter, Window, extract};

/// What kind of memorable thing a signal points at.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum SignalType {
    /// A decision was made.
    Decision,
    /// Something was learned.
    Learning,
    /// An obstacle was met.
    Blocker,
    /// An issue was resolved.
    Resolution,
    /// A preference was expressed.
    Preference,
    /// Capture was asked for explicitly (a phrase such as "remember this", or a marker).
    Explicit,
}

impl SignalType {
    /// Every type, in the seed's order.
    pub const ALL: [SignalType; 6] = [
        Self::Decision,
        Self::Learning,
        Self::Blocker,
        Self::Resolution,
        Self::Preference,
        Self::Explicit,
    ];

    /// The lower-case name: `decision`, `learning`, ...
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Decision => "decision",
            Self::Learning => "learning",
            Self::Blocker => "blocker",
            Self::Resolution => "resolution",
            Self::Preference => "preference",
            Self::Explicit => "explicit",
        }
    }

    /// The namespace (collection) the seed suggests for it: `decisions`, `learnings`,
    /// `blockers`, `solutions`, `preferences`, `notes`.
    pub fn namespace(self) -> &'static str {
        match self {
            Self::Decision => "decisions",
            Self::Learning => "learnings",
            Self::Blocker => "blockers",
            Self::Resolution => "solutions",
            Self::Preference => "preferences",
            Self::Explicit => "notes",
        }
    }

    /// The memory `type` a capture of this signal is stored with: `decision`, `learning`,
    /// `blocker`, `resolution`, `preference`, or `note` for an explicit one.
    pub fn memory_type(self) -> &'static str {
        match self {
            Self::Explicit => "note",
            other => other.as_str(),
        }
    }
}

/// One pattern of the seed's tables.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignalPattern {
    /// The signal it detects.
    pub kind: SignalType,
    /// The regular expression, as the seed writes it (compiled case-insensitively).
    pub pattern: &'static str,
    /// The confidence of a match before adjustments.
    pub base_confidence: f64,
}

/// Shorthand for the table below.
const fn pattern(kind: SignalType, pattern: &'static str, base_confidence: f64) -> SignalPattern {
    SignalPattern { kind, pattern, base_confidence }
}

use SignalType::{Blocker, Decision, Explicit, Learning, Preference, Resolution};

/// Every pattern of seed 002's tables, with its base confidence, in the seed's order.
pub const PATTERNS: [SignalPattern; 44] = [
    pattern(Decision, r"\b(I|we)\s+(decided|chose|selected|picked|opted)\s+(to|for|on)\b", 0.90),
    pattern(Decision, r"\bthe decision (is|was) (to|that)\b", 0.88),
    pattern(Decision, r"\bwe('ll| will)\s+go with\b", 0.85),
    pattern(Decision, r"\bafter (considering|evaluating|weighing),?\s+(I|we)\b", 0.85),
    pattern(Decision, r"\b(I|we) went with\b", 0.80),
    pattern(Decision, r"\bfinal(ly)? (choosing|decided|settled on)\b", 0.82),
    pattern(Decision, r"\bmade the call to\b", 0.80),
    pattern(
        Learning,
        r"\b(I|we)\s+(learned|realized|discovered|found out)\s+(that|about)?\b",
        0.90,
    ),
    pattern(Learning, r"\bTIL\b", 0.95),
    pattern(Learning, r"\bturns out\b", 0.85),
    pattern(Learning, r"\bkey (insight|takeaway|learning)[:\s]", 0.92),
    pattern(Learning, r"\binteresting(ly)?[,:]?\s+", 0.70),
    pattern(Learning, r"\bI (didn't|never) (know|realize)\b", 0.80),
    pattern(Learning, r"\bnow I (know|understand)\b", 0.82),
    pattern(Learning, r"\baha moment\b", 0.88),
    pattern(Blocker, r"\bblocked (by|on)\b", 0.92),
    pattern(Blocker, r"\bstuck (on|with)\b", 0.88),
    pattern(Blocker, r"\bcan('t| not)\s+.{1,30}\s+because\b", 0.85),
    pattern(Blocker, r"\b(this|that) (is )?blocking\b", 0.90),
    pattern(Blocker, r"\bissue (with|is)[:\s]", 0.75),
    pattern(Blocker, r"\bproblem[:\s]", 0.70),
    pattern(Blocker, r"\b(I'm|we're) (having trouble|struggling) with\b", 0.80),
    pattern(Blocker, r"\bcan't (figure out|get|make)\b", 0.78),
    pattern(Resolution, r"\b(fixed|resolved|solved) (the|this|that|it)\b", 0.92),
    pattern(Resolution, r"\bworkaround[:\s]", 0.88),
    pattern(Resolution, r"\bsolution[:\s]", 0.85),
    pattern(Resolution, r"\bfigured (it )?out\b", 0.88),
    pattern(Resolution, r"\bthat (worked|fixed it)\b", 0.85),
    pattern(Resolution, r"\bgot it (working|to work)\b", 0.82),
    pattern(Resolution, r"\bthe (fix|solution) (was|is)\b", 0.85),
    pattern(Resolution, r"\bfinally got\b", 0.75),
    pattern(Preference, r"\bI (always )?(prefer|like) to\b", 0.88),
    pattern(Preference, r"\bmy preference is\b", 0.90),
    pattern(Preference, r"\bI('d| would) (rather|prefer)\b", 0.88),
    pattern(Preference, r"\bI (don't )?like (when|how|it when)\b", 0.75),
    pattern(Preference, r"\bI want (to|it to)\b", 0.70),
    pattern(Preference, r"\bI (need|require)\b", 0.68),
    pattern(Explicit, r"\bremember (this|that)\b", 0.98),
    pattern(Explicit, r"\bsave (this|that)( (for|as))?\b", 0.95),
    pattern(Explicit, r"\bnote (that|this)[:\s]?", 0.92),
    pattern(Explicit, r"\bfor (future|later) reference\b", 0.90),
    pattern(Explicit, r"\bdon't forget\b", 0.88),
    pattern(Explicit, r"\bkeep (this )?in mind\b", 0.85),
    pattern(Explicit, r"\bimportant[:\s]", 0.75),
];

/// Words in a context that make a signal more likely meant (seed: +0.05, matched anywhere in
/// the lower-cased context, as the seed does).
const REINFORCERS: [&str; 6] = ["important", "critical", "key", "essential", "must", "need"];

/// The compiled patterns: the set that finds which occur, and each one to find its matches.
struct Compiled {
    /// All of [`PATTERNS`], for one pass over the text.
    set: RegexSet,
    /// Each of [`PATTERNS`], in order.
    each: Vec<Regex>,
}

/// The patterns, compiled on first use.
static COMPILED: LazyLock<Compiled> = LazyLock::new(|| {
    let sources: Vec<String> = PATTERNS.iter().map(|p| format!("(?i){}", p.pattern)).collect();
    // The patterns are literals of this file; `every_pattern_compiles` tests them.
    let set = RegexSet::new(&sources).unwrap_or_else(|e| unreachable!("signal patterns: {e}"));
    let each = sources
        .iter()
        .map(|source| Regex::new(source).unwrap_or_else(|e| unreachable!("{source}: {e}")))
        .collect();
    Compiled { set, each }
});

/// One detected signal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct CaptureSignal {
    /// What it signals.
    #[serde(rename = "type")]
    pub kind: SignalType,
    /// The text the pattern matched (for a marker, the marker).
    #[serde(rename = "match")]
    pub matched: String,
    /// How sure detection is, 0.0 to 1.0 (three decimals).
    pub confidence: f64,
    /// The words around the match (a marker's: the text it marks), `...` where cut.
    pub context: String,
    /// The namespace (collection) it suggests.
    pub namespace: String,
    /// Where the match starts, in bytes of UTF-8.
    pub start: usize,
    /// Where the match ends, in bytes.
    pub end: usize,
    /// [`CaptureSignal::start`] in characters (Unicode scalar values), for bindings that
    /// index strings by character.
    pub start_char: usize,
    /// [`CaptureSignal::end`] in characters.
    pub end_char: usize,
}

/// The seed's confidence adjustments, on a match of `match_chars` characters in `context`
/// (the context's words, without the `...` that mark a cut): +0.02 for a match longer than
/// 20 characters, -0.05 for one shorter than 5; +0.02 when the context ends a sentence
/// (`.`, `!`, `?`); -0.05 for a context shorter than 20 characters; +0.05 when it holds a
/// reinforcing word (`important`, `critical`, `key`, `essential`, `must`, `need`). Each step
/// stays within 0.0..=1.0; the result is rounded to three decimals.
pub fn score_confidence(base: f64, match_chars: usize, context: &str) -> f64 {
    let mut confidence = base;
    if match_chars > 20 {
        confidence = (confidence + 0.02).min(1.0);
    } else if match_chars < 5 {
        confidence = (confidence - 0.05).max(0.0);
    }
    if context.ends_with(['.', '!', '?']) {
        confidence = (confidence + 0.02).min(1.0);
    }
    if context.chars().count() < 20 {
        confidence = (confidence - 0.05).max(0.0);
    }
    let lower = context.to_lowercase();
    if REINFORCERS.iter().any(|word| lower.contains(word)) {
        confidence = (confidence + 0.05).min(1.0);
    }
    round3(confidence)
}

/// `x` rounded to three decimals.
pub(crate) fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The most signals one text gives: the first in text order (a text of 10 MB of "TIL" would
/// otherwise make millions).
pub const MAX_SIGNALS: usize = 10_000;

/// One match of a pattern: the pattern's index, the match, its confidence and context.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    /// Index into [`PATTERNS`].
    pattern: usize,
    /// The match, in bytes of the text.
    range: Range<usize>,
    /// The adjusted confidence.
    confidence: f64,
    /// The context around it.
    pub(crate) window: Window,
}

/// The signals of `text` outside markdown code, in text order (at most [`MAX_SIGNALS`]),
/// each with the context of `window` characters either side.
///
/// ```
/// use memcore::capture::{SignalType, detect_signals};
///
/// let signals = detect_signals("We decided to use PostgreSQL for the queue.", 100);
/// assert_eq!(signals[0].kind, SignalType::Decision);
/// assert_eq!(signals[0].matched, "We decided to");
/// assert_eq!(signals[0].confidence, 0.92); // 0.90, +0.02 for a complete sentence
/// ```
pub fn detect_signals(text: &str, window: usize) -> Vec<CaptureSignal> {
    detect_with_windows(text, window).into_iter().map(|(signal, _)| signal).collect()
}

/// [`detect_signals`], each signal with its context window in `text`.
pub(crate) fn detect_with_windows(text: &str, window: usize) -> Vec<(CaptureSignal, Window)> {
    let compiled = &*COMPILED;
    let occurring = compiled.set.matches(text);
    if !occurring.matched_any() {
        return Vec::new();
    }
    let code = code_ranges(text);
    let mut found: Vec<Found> = Vec::new();
    for pattern in occurring.iter() {
        for hit in compiled.each[pattern].find_iter(text) {
            if !in_ranges(&code, hit.start()) {
                found.push(Found {
                    pattern,
                    range: hit.range(),
                    confidence: 0.0,
                    window: Window::default(),
                });
            }
        }
    }
    let mut found = keep_strongest_per_overlap(found, |f| {
        // The context's words adjust the confidence, which decides between overlapping ones.
        f.window = extract(text, f.range.clone(), window);
        let chars = text[f.range.clone()].chars().count();
        f.confidence =
            score_confidence(PATTERNS[f.pattern].base_confidence, chars, f.window.words(text));
    });
    found.sort_by_key(|f| (f.range.start, f.pattern));
    found.truncate(MAX_SIGNALS);
    let mut chars = CharCounter::default();
    found
        .into_iter()
        .map(|f| {
            let kind = PATTERNS[f.pattern].kind;
            let start_char = chars.at(text, f.range.start);
            let signal = CaptureSignal {
                kind,
                matched: text[f.range.clone()].to_owned(),
                confidence: f.confidence,
                context: f.window.render(text),
                namespace: kind.namespace().to_owned(),
                start: f.range.start,
                end: f.range.end,
                start_char,
                end_char: start_char + text[f.range.clone()].chars().count(),
            };
            (signal, f.window)
        })
        .collect()
}

/// Scores every match with `score`, then drops every match overlapped by a more confident
/// one of the same type (the earlier one on a tie): the kept matches of a type do not
/// overlap, so one ordered map per type answers "does this overlap a kept one" in O(log n).
fn keep_strongest_per_overlap(
    mut found: Vec<Found>,
    mut score: impl FnMut(&mut Found),
) -> Vec<Found> {
    found.iter_mut().for_each(&mut score);
    found.sort_by(|a, b| {
        b.confidence
            .total_cmp(&a.confidence)
            .then(a.range.start.cmp(&b.range.start))
            .then(a.pattern.cmp(&b.pattern))
    });
    let mut kept_ends: BTreeMap<(SignalType, usize), usize> = BTreeMap::new();
    let mut kept = Vec::new();
    for candidate in found {
        let kind = PATTERNS[candidate.pattern].kind;
        let (start, end) = (candidate.range.start, candidate.range.end);
        // The kept match of this type starting last before `end` is the only one that can
        // overlap: kept ones are disjoint, so earlier ones end before it starts.
        let overlapped = kept_ends
            .range((kind, 0)..(kind, end))
            .next_back()
            .is_some_and(|(_, &kept_end)| kept_end > start);
        if !overlapped {
            kept_ends.insert((kind, start), end);
            kept.push(candidate);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(COMPILED.each.len(), PATTERNS.len());
        assert_eq!(COMPILED.set.len(), PATTERNS.len());
    }

    #[test]
    fn adjustments_move_confidence_as_the_seed_says() {
        let neutral = "a context of more than twenty characters";
        assert_eq!(score_confidence(0.80, 10, neutral), 0.80);
        assert_eq!(score_confidence(0.80, 21, neutral), 0.82);
        assert_eq!(score_confidence(0.80, 4, neutral), 0.75);
        assert_eq!(score_confidence(0.80, 10, "a context of more than twenty."), 0.82);
        assert_eq!(score_confidence(0.80, 10, "too short"), 0.75);
        assert_eq!(score_confidence(0.80, 10, "this is a critical context here"), 0.85);
        assert_eq!(score_confidence(0.98, 21, "It is critical, remember this."), 1.0);
        assert_eq!(score_confidence(0.02, 4, "short"), 0.0);
    }

    #[test]
    fn code_is_not_a_signal() {
        let text = "Run `we decided to` literally.\n\n```\nTIL nothing\n```\n";
        assert!(detect_signals(text, 100).is_empty());
    }

    #[test]
    fn overlapping_matches_of_one_type_keep_the_strongest() {
        // "after weighing, we" (0.85) and "we went with" (0.80) share "we": one decision.
        let signals = detect_signals("After weighing, we went with Rust for the parser.", 100);
        let decisions: Vec<_> = signals.iter().filter(|s| s.kind == SignalType::Decision).collect();
        assert_eq!(decisions.len(), 1, "{signals:?}");
        assert_eq!(decisions[0].matched, "After weighing, we");
    }

    #[test]
    fn positions_in_bytes_and_characters() {
        let text = "Café notes: we decided to keep the old schema for now, honestly.";
        let signal = &detect_signals(text, 100)[0];
        assert_eq!(&text[signal.start..signal.end], "we decided to");
        assert_eq!(signal.start_char, signal.start - 1);
        assert_eq!(signal.end_char - signal.start_char, "we decided to".len());
    }
}
