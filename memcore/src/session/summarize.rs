//! Summarisers: the [`Summarizer`] trait compression goes through, its deterministic
//! extractive default ([`ExtractiveSummarizer`]), and [`CallbackSummarizer`], which turns a
//! function from JSON to text (a Python callable, a C function pointer, an LLM call) into one.

use std::collections::{HashMap, HashSet};
use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::transcript::TranscriptMessage;
use crate::compose::TokenCounter;
use crate::decay::Aggressiveness;
use crate::{Error, Result};

/// What a summariser is asked: a run of messages to bring down to about `target_tokens`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SummaryRequest {
    /// The messages, in order.
    pub messages: Vec<TranscriptMessage>,
    /// The tokens they take.
    pub input_tokens: usize,
    /// About how many tokens the summary should take (without the passages in `keep`).
    pub target_tokens: usize,
    /// The ratio asked for.
    pub compaction_ratio: f64,
    /// How hard to squeeze.
    pub aggressiveness: Aggressiveness,
    /// Keepit passages memcore keeps verbatim beside the summary: do not repeat them.
    pub keep: Vec<String>,
}

/// One message of a summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SummaryMessage {
    /// Who spoke (`summary` for a summariser's own text).
    pub role: String,
    /// The text.
    pub content: String,
    /// The original message it comes from, for extracts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_uuid: Option<String>,
}

impl SummaryMessage {
    /// A message of `role` with `content`.
    pub fn new(role: impl Into<String>, content: impl Into<String>) -> Self {
        Self { role: role.into(), content: content.into(), source_uuid: None }
    }
}

impl From<SummaryMessage> for TranscriptMessage {
    /// A version's message as a transcript message, to be compressed further.
    fn from(message: SummaryMessage) -> Self {
        TranscriptMessage::new(
            message.source_uuid.unwrap_or_default(),
            message.role,
            message.content,
        )
    }
}

/// Summarises runs of conversation for compression versions.
///
/// It must not panic (a panic is caught and reported as [`Error::Callback`], the store
/// unchanged) and should return fewer tokens than it was given.
pub trait Summarizer: Send + Sync + Debug {
    /// The name recorded as the version's `settings.model`.
    fn name(&self) -> &str;

    /// The summary of `request.messages`, in about `request.target_tokens` tokens.
    fn summarize(
        &self,
        request: &SummaryRequest,
        counter: &dyn TokenCounter,
    ) -> Result<Vec<SummaryMessage>>;
}

/// A target from which a summariser must say something: below it an empty summary is fine.
const MIN_SUMMARY_TOKENS: usize = 8;

/// `messages` as text of about `target_tokens` tokens: joined whole when they fit, else
/// through `summarizer` (checked as [`run_summarizer`] does), and cut to twice the target
/// whatever it returns (a summary often feeds the next one). One line per message:
/// `role: content`, or the content alone for role `summary` or no role.
pub(crate) fn condense(
    summarizer: &dyn Summarizer,
    messages: Vec<TranscriptMessage>,
    target_tokens: usize,
) -> Result<String> {
    let counter = crate::compose::EstimateCounter;
    let input_tokens: usize = messages.iter().map(|m| counter.count(&m.content)).sum();
    if input_tokens <= target_tokens {
        return Ok(join_lines(&messages));
    }
    let request = SummaryRequest {
        messages,
        input_tokens,
        target_tokens,
        compaction_ratio: input_tokens as f64 / target_tokens.max(1) as f64,
        aggressiveness: Aggressiveness::Moderate,
        keep: Vec::new(),
    };
    let summary = run_summarizer(summarizer, &request, &counter)?;
    let messages: Vec<TranscriptMessage> =
        summary.into_iter().map(|m| TranscriptMessage::new("", m.role, m.content)).collect();
    let text = join_lines(&messages);
    let cap = target_tokens.saturating_mul(2);
    Ok(crate::compose::truncate_to_tokens(&text, cap, &counter).unwrap_or_default().to_owned())
}

/// The messages as text, one per line (`role: content`; a summary as it is).
fn join_lines(messages: &[TranscriptMessage]) -> String {
    let lines: Vec<String> = messages
        .iter()
        .map(|m| match m.role.as_str() {
            "summary" | "" => m.content.clone(),
            role => format!("{role}: {}", m.content),
        })
        .collect();
    lines.join("\n")
}

/// What a summariser that failed must do instead.
const SUMMARIZER_RECOVERY: &str = "fix the callback (it must return text shorter than its \
     input and not fail), or leave it out to use the built-in extractive summariser";

/// Runs `summarizer`, turning a panic into an error and checking what it returns: some text,
/// and no more tokens than it was given.
pub(crate) fn run_summarizer(
    summarizer: &dyn Summarizer,
    request: &SummaryRequest,
    counter: &dyn TokenCounter,
) -> Result<Vec<SummaryMessage>> {
    let name = summarizer.name().to_owned();
    let messages = catch_unwind(AssertUnwindSafe(|| summarizer.summarize(request, counter)))
        .map_err(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_owned());
            Error::callback(
                format!("the summariser {name:?} panicked: {what}"),
                SUMMARIZER_RECOVERY,
            )
        })??;
    let messages: Vec<SummaryMessage> =
        messages.into_iter().filter(|m| !m.content.trim().is_empty()).collect();
    if messages.is_empty()
        && !request.messages.is_empty()
        && request.target_tokens >= MIN_SUMMARY_TOKENS
    {
        return Err(Error::callback(
            format!("the summariser {name:?} returned an empty summary"),
            SUMMARIZER_RECOVERY,
        ));
    }
    let tokens: usize = messages.iter().map(|m| counter.count(&m.content)).sum();
    if tokens > request.input_tokens.max(1) {
        return Err(Error::callback(
            format!(
                "the summariser {name:?} returned {tokens} tokens for {} tokens of input",
                request.input_tokens
            ),
            SUMMARIZER_RECOVERY,
        ));
    }
    Ok(messages)
}

/// The deterministic default: keeps the sentences that say most about the session, in their
/// original order and messages, until the target is reached.
///
/// A sentence's score is the sum, over its distinct words, of `ln(1 + tf) * ln(1 + N / df)`
/// (`tf`: the word's count in the input, `df`: the messages holding it, `N`: the messages),
/// divided by the square root of its word count: sentences dense in the session's own
/// vocabulary rank first. Sentences are taken by score (ties by position) while they fit.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExtractiveSummarizer;

/// A sentence of the input.
struct Unit<'a> {
    message: usize,
    text: &'a str,
    score: f64,
    tokens: usize,
}

impl Summarizer for ExtractiveSummarizer {
    fn name(&self) -> &str {
        "extractive"
    }

    fn summarize(
        &self,
        request: &SummaryRequest,
        counter: &dyn TokenCounter,
    ) -> Result<Vec<SummaryMessage>> {
        let messages = &request.messages;
        let mut units: Vec<Unit<'_>> = messages
            .iter()
            .enumerate()
            .flat_map(|(message, m)| {
                sentences(&m.content).map(move |text| Unit { message, text, score: 0.0, tokens: 0 })
            })
            .collect();
        score_units(&mut units, messages.len());
        for unit in &mut units {
            unit.tokens = counter.count(unit.text);
        }
        let mut order: Vec<usize> = (0..units.len()).collect();
        order.sort_by(|&a, &b| units[b].score.total_cmp(&units[a].score).then(a.cmp(&b)));
        let mut chosen = vec![false; units.len()];
        let mut left = request.target_tokens;
        for &index in &order {
            let cost = units[index].tokens;
            if cost > 0 && cost <= left {
                chosen[index] = true;
                left -= cost;
            }
        }
        if !chosen.contains(&true)
            && let Some(&best) = order.first()
            && let Some(cut) = cut_to_tokens(units[best].text, request.target_tokens, counter)
        {
            // Not one sentence fits: the best one, cut at a word.
            units[best].text = cut;
            chosen[best] = true;
        }
        let mut out: Vec<SummaryMessage> = Vec::new();
        let mut current: Option<usize> = None;
        for (unit, _) in units.iter().zip(&chosen).filter(|(_, chosen)| **chosen) {
            if current == Some(unit.message) {
                if let Some(last) = out.last_mut() {
                    last.content.push(' ');
                    last.content.push_str(unit.text);
                }
            } else {
                let source = &messages[unit.message];
                out.push(SummaryMessage {
                    role: source.role.clone(),
                    content: unit.text.to_owned(),
                    source_uuid: Some(source.uuid.clone()),
                });
                current = Some(unit.message);
            }
        }
        Ok(out)
    }
}

/// `text` cut to `max_tokens`: at a sentence or word boundary, else (text without spaces,
/// such as CJK) at the last character that fits; `None` when not even one does.
fn cut_to_tokens<'t>(
    text: &'t str,
    max_tokens: usize,
    counter: &dyn TokenCounter,
) -> Option<&'t str> {
    crate::compose::truncate_to_tokens(text, max_tokens, counter).or_else(|| {
        let ends: Vec<usize> = text.char_indices().map(|(at, c)| at + c.len_utf8()).collect();
        let fitting = ends.partition_point(|&end| counter.count(&text[..end]) <= max_tokens);
        let end = *ends.get(fitting.checked_sub(1)?)?;
        Some(&text[..end])
    })
}

/// The sentences of `text`: split after `.`, `!`, `?` before white space, after `。`, `！`,
/// `？`, and at line breaks; trimmed, blank ones left out.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let mut cuts = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next_is_space = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        if c == '\n'
            || matches!(c, '。' | '！' | '？')
            || (matches!(c, '.' | '!' | '?') && next_is_space)
        {
            let end = at + c.len_utf8();
            cuts.push(&text[start..end]);
            start = end;
        }
    }
    cuts.push(&text[start..]);
    cuts.into_iter().map(str::trim).filter(|s| !s.is_empty())
}

/// The words of a sentence that carry meaning: lower-cased, three letters or more.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
}

/// Scores every unit as [`ExtractiveSummarizer`] describes.
fn score_units(units: &mut [Unit<'_>], message_count: usize) {
    let mut tf: HashMap<String, usize> = HashMap::new();
    let mut df: HashMap<String, HashSet<usize>> = HashMap::new();
    for unit in units.iter() {
        for word in words(unit.text) {
            *tf.entry(word.clone()).or_default() += 1;
            df.entry(word).or_default().insert(unit.message);
        }
    }
    let n = message_count.max(1) as f64;
    let weight: HashMap<&str, f64> = tf
        .iter()
        .map(|(word, &count)| {
            let holders = df.get(word).map_or(1, HashSet::len) as f64;
            (word.as_str(), (1.0 + count as f64).ln() * (1.0 + n / holders).ln())
        })
        .collect();
    for unit in units.iter_mut() {
        let all: Vec<String> = words(unit.text).collect();
        if all.is_empty() {
            continue;
        }
        let distinct: HashSet<&str> = all.iter().map(String::as_str).collect();
        let sum: f64 = distinct.iter().map(|w| weight.get(w).copied().unwrap_or(0.0)).sum();
        unit.score = sum / (all.len() as f64).sqrt();
    }
}

/// The function a [`CallbackSummarizer`] calls: the [`SummaryRequest`] as JSON in, the
/// summary's text out (or an error message).
pub type SummaryCallback = dyn Fn(&str) -> std::result::Result<String, String> + Send + Sync;

/// A summariser that is a function from JSON to text: how Python callables and C function
/// pointers (and any LLM call) summarise. The text becomes one message of role `summary`.
///
/// ```
/// use std::sync::Arc;
/// use memcore::session::CallbackSummarizer;
///
/// let summarizer = CallbackSummarizer::new("first-words", Arc::new(|request: &str| {
///     let request: serde_json::Value = serde_json::from_str(request).map_err(|e| e.to_string())?;
///     Ok(request["messages"][0]["content"].as_str().unwrap_or("").chars().take(40).collect())
/// }));
/// # let _ = summarizer;
/// ```
pub struct CallbackSummarizer {
    name: String,
    callback: std::sync::Arc<SummaryCallback>,
}

impl CallbackSummarizer {
    /// A summariser named `name` calling `callback`.
    pub fn new(name: impl Into<String>, callback: std::sync::Arc<SummaryCallback>) -> Self {
        Self { name: name.into(), callback }
    }
}

impl Debug for CallbackSummarizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallbackSummarizer").field("name", &self.name).finish_non_exhaustive()
    }
}

impl Summarizer for CallbackSummarizer {
    fn name(&self) -> &str {
        &self.name
    }

    fn summarize(
        &self,
        request: &SummaryRequest,
        _counter: &dyn TokenCounter,
    ) -> Result<Vec<SummaryMessage>> {
        let json = serde_json::to_string(request).map_err(|e| {
            Error::callback(
                format!("the summary request could not be written: {e}"),
                SUMMARIZER_RECOVERY,
            )
        })?;
        let text = (self.callback)(&json).map_err(|message| {
            Error::callback(
                format!("the summariser {:?} failed: {message}", self.name),
                SUMMARIZER_RECOVERY,
            )
        })?;
        Ok(vec![SummaryMessage::new("summary", text)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compose::EstimateCounter;

    fn request(messages: &[(&str, &str)], target: usize) -> SummaryRequest {
        let messages: Vec<TranscriptMessage> = messages
            .iter()
            .enumerate()
            .map(|(i, (role, text))| TranscriptMessage::new(format!("m{i}"), *role, *text))
            .collect();
        let input_tokens = messages.iter().map(|m| EstimateCounter.count(&m.content)).sum();
        SummaryRequest {
            messages,
            input_tokens,
            target_tokens: target,
            compaction_ratio: 4.0,
            aggressiveness: Aggressiveness::Light,
            keep: vec![],
        }
    }

    #[test]
    fn the_extractive_summary_keeps_salient_sentences_in_order_within_the_target() {
        let request = request(
            &[
                (
                    "user",
                    "Hello there. The database migration to Postgres failed on the index build.",
                ),
                (
                    "assistant",
                    "Okay. I will rerun the Postgres migration with a smaller index build batch.",
                ),
                ("user", "Thanks!"),
            ],
            20,
        );
        let summary =
            run_summarizer(&ExtractiveSummarizer, &request, &EstimateCounter).expect("summarises");
        let tokens: usize = summary.iter().map(|m| EstimateCounter.count(&m.content)).sum();
        assert!(tokens <= 20, "{summary:?}");
        assert!(summary.iter().any(|m| m.content.contains("Postgres")), "{summary:?}");
        assert!(
            summary.iter().all(|m| !m.content.contains("The database")),
            "the second best is left out: {summary:?}"
        );
        let again =
            run_summarizer(&ExtractiveSummarizer, &request, &EstimateCounter).expect("summarises");
        assert_eq!(summary, again, "deterministic");
    }

    #[derive(Debug)]
    struct Panicking;

    impl Summarizer for Panicking {
        fn name(&self) -> &str {
            "panicking"
        }
        fn summarize(
            &self,
            _: &SummaryRequest,
            _: &dyn TokenCounter,
        ) -> Result<Vec<SummaryMessage>> {
            panic!("model exploded")
        }
    }

    #[test]
    fn failing_panicking_and_garbage_summarisers_are_errors() {
        let words = "Some words to summarise here, and a few more of them. ".repeat(4);
        let request = request(&[("user", words.as_str())], 10);
        let err = run_summarizer(&Panicking, &request, &EstimateCounter).expect_err("panics");
        assert!(err.to_string().contains("model exploded"), "{err}");
        let failing = CallbackSummarizer::new(
            "failing",
            std::sync::Arc::new(|_: &str| Err("quota".to_owned())),
        );
        assert!(
            run_summarizer(&failing, &request, &EstimateCounter)
                .expect_err("fails")
                .to_string()
                .contains("quota")
        );
        let empty =
            CallbackSummarizer::new("empty", std::sync::Arc::new(|_: &str| Ok("  ".to_owned())));
        assert!(run_summarizer(&empty, &request, &EstimateCounter).is_err());
        let long =
            CallbackSummarizer::new("long", std::sync::Arc::new(|_: &str| Ok("word ".repeat(100))));
        assert!(run_summarizer(&long, &request, &EstimateCounter).is_err());
    }
}
