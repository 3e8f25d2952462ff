//! Compressing a run of messages into a version (pure but for the summariser): tiers, keepit
//! survival by seed 004's threshold, the summariser for the rest, and the version's text.

use std::collections::BTreeMap;

use super::records::KeepitStats;
use super::settings::{CompressionSettings, KeepitMode, TierConfig};
use super::summarize::{Summarizer, SummaryMessage, SummaryRequest, run_summarizer};
use super::transcript::TranscriptMessage;
use crate::compose::TokenCounter;
use crate::decay::{DEFAULT_MAX_DISTANCE, lenient_markers, survival_threshold, survives, tag_end};
use crate::{Error, Result};

/// A compression, before it is stored.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Compressed {
    /// The version's messages.
    pub(crate) messages: Vec<SummaryMessage>,
    /// Tokens of the input (after skipped messages).
    pub(crate) input_tokens: usize,
    /// Tokens of the output.
    pub(crate) output_tokens: usize,
    /// What happened to keepit markers.
    pub(crate) keepit_stats: KeepitStats,
    /// The markers kept verbatim.
    pub(crate) survived: Vec<MarkerKey>,
    /// The markers summarised.
    pub(crate) summarized: Vec<MarkerKey>,
}

/// A keepit marker as compression sees it: its message and text (what identifies it across
/// versions, where its place among the message's markers changes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MarkerKey {
    /// The original message's uuid.
    pub(crate) message_uuid: String,
    /// The marked text.
    pub(crate) content: String,
}

impl Compressed {
    /// Input tokens over output tokens, to two decimals.
    pub(crate) fn ratio(&self) -> f64 {
        let ratio = self.input_tokens as f64 / self.output_tokens.max(1) as f64;
        (ratio * 100.0).round() / 100.0
    }
}

/// A piece of the output and the input message it stands at.
struct Placed {
    position: usize,
    message: SummaryMessage,
}

/// Compresses `messages` with `settings` through `summarizer`.
///
/// Each tier's messages keep their surviving keepit passages verbatim (tag included, so a
/// later compression of the version sees them again) and the summariser is asked for the
/// rest in `tokens / ratio` tokens less what the passages take.
pub(crate) fn compress(
    messages: &[TranscriptMessage],
    settings: &CompressionSettings,
    summarizer: &dyn Summarizer,
    counter: &dyn TokenCounter,
) -> Result<Compressed> {
    let tiers = settings.tiers()?;
    let input = messages.get(settings.skip_first_messages..).unwrap_or_default();
    if input.is_empty() {
        return Err(Error::validation(
            format!(
                "nothing to compress: skip_first_messages {} leaves none of {} messages",
                settings.skip_first_messages,
                messages.len()
            ),
            "skip fewer messages",
        ));
    }
    let mut placed = Vec::new();
    let mut stats = KeepitStats::default();
    let (mut survived, mut summarized) = (Vec::new(), Vec::new());
    let mut input_tokens = 0;
    let mut start = 0;
    for tier in &tiers {
        let end = ((input.len() as f64 * tier.end_percent / 100.0).ceil() as usize)
            .clamp(start, input.len());
        let segment = &input[start..end];
        let tier_out = compress_tier(segment, start, tier, settings, summarizer, counter)?;
        input_tokens += tier_out.input_tokens;
        placed.extend(tier_out.placed);
        for (weight, kept) in tier_out.weights {
            let slot = stats.weights.entry(weight).or_default();
            *slot += usize::from(kept);
        }
        stats.preserved += tier_out.survived.len();
        stats.summarized += tier_out.summarized.len();
        survived.extend(tier_out.survived);
        summarized.extend(tier_out.summarized);
        start = end;
    }
    placed.sort_by_key(|p| p.position);
    let messages = merge_adjacent(placed.into_iter().map(|p| p.message));
    let output_tokens = messages.iter().map(|m| counter.count(&m.content)).sum();
    Ok(Compressed {
        messages,
        input_tokens,
        output_tokens,
        keepit_stats: stats,
        survived,
        summarized,
    })
}

/// What one tier gives.
struct TierOutput {
    placed: Vec<Placed>,
    input_tokens: usize,
    /// `(weight, kept)` of each marker.
    weights: Vec<(String, bool)>,
    survived: Vec<MarkerKey>,
    summarized: Vec<MarkerKey>,
}

/// One tier: `segment` starts at `offset` in the input.
fn compress_tier(
    segment: &[TranscriptMessage],
    offset: usize,
    tier: &TierConfig,
    settings: &CompressionSettings,
    summarizer: &dyn Summarizer,
    counter: &dyn TokenCounter,
) -> Result<TierOutput> {
    let threshold = survival_threshold(
        tier.aggressiveness,
        tier.compaction_ratio,
        settings.distance(),
        DEFAULT_MAX_DISTANCE,
    );
    let mut out = TierOutput {
        placed: Vec::new(),
        input_tokens: 0,
        weights: Vec::new(),
        survived: Vec::new(),
        summarized: Vec::new(),
    };
    let mut rest = Vec::with_capacity(segment.len());
    let mut kept_tokens = 0;
    for (index, message) in segment.iter().enumerate() {
        out.input_tokens += counter.count(&message.content);
        let mut remaining = String::new();
        let mut from = 0;
        // A malformed tag was reported at registration; it is text here, and the
        // well-formed markers around it still count.
        for marker in lenient_markers(&message.content) {
            let kept = match settings.keepit_mode {
                KeepitMode::Decay => survives(marker.weight, threshold),
                KeepitMode::PreserveAll => true,
                KeepitMode::Ignore => false,
            };
            out.weights.push((format!("{:.2}", marker.weight), kept));
            remaining.push_str(&message.content[from..marker.start]);
            let key =
                MarkerKey { message_uuid: message.uuid.clone(), content: marker.content.clone() };
            if kept {
                let passage = message.content[marker.start..marker.end].trim();
                kept_tokens += counter.count(passage);
                from = marker.end;
                let mut piece = SummaryMessage::new(message.role.clone(), passage);
                piece.source_uuid = Some(message.uuid.clone());
                out.placed.push(Placed { position: offset + index, message: piece });
                out.survived.push(key);
            } else {
                // The tag goes; its text is the summariser's like any other.
                from = tag_end(&message.content, &marker);
                out.summarized.push(key);
            }
        }
        remaining.push_str(&message.content[from..]);
        if !remaining.trim().is_empty() {
            let mut rest_message = message.clone();
            rest_message.content = remaining;
            rest.push((offset + index, rest_message));
        }
    }
    let wanted = (out.input_tokens as f64 / tier.compaction_ratio).round() as usize;
    let target = wanted.saturating_sub(kept_tokens);
    if target == 0 || rest.is_empty() {
        return Ok(out);
    }
    let positions: BTreeMap<String, usize> =
        rest.iter().map(|(at, m)| (m.uuid.clone(), *at)).collect();
    let messages: Vec<TranscriptMessage> = rest.into_iter().map(|(_, m)| m).collect();
    let rest_tokens = messages.iter().map(|m| counter.count(&m.content)).sum();
    let request = SummaryRequest {
        messages,
        input_tokens: rest_tokens,
        target_tokens: target,
        compaction_ratio: tier.compaction_ratio,
        aggressiveness: tier.aggressiveness,
        keep: out.placed.iter().map(|p| p.message.content.clone()).collect(),
    };
    for message in run_summarizer(summarizer, &request, counter)? {
        // An extract stands where its message stood; free text at the tier's start.
        let position = message
            .source_uuid
            .as_ref()
            .and_then(|uuid| positions.get(uuid))
            .copied()
            .unwrap_or(offset);
        out.placed.push(Placed { position, message });
    }
    Ok(out)
}

/// Pieces of the same message next to each other, joined.
fn merge_adjacent(pieces: impl Iterator<Item = SummaryMessage>) -> Vec<SummaryMessage> {
    let mut out: Vec<SummaryMessage> = Vec::new();
    for piece in pieces {
        match out.last_mut() {
            Some(last) if last.source_uuid.is_some() && last.source_uuid == piece.source_uuid => {
                last.content.push(' ');
                last.content.push_str(&piece.content);
            }
            _ => out.push(piece),
        }
    }
    out
}

/// A version's markdown: a heading, then each message as `**role**: text`.
pub(crate) fn render_markdown(heading: &str, messages: &[SummaryMessage]) -> String {
    let mut out = format!("# {heading}\n\n");
    for message in messages {
        out.push_str(&format!("**{}**: {}\n\n", message.role, message.content.trim()));
    }
    out
}

/// A version's JSONL: one `{role, content, source_uuid}` object per line.
pub(crate) fn render_jsonl(messages: &[SummaryMessage]) -> Result<String> {
    let mut out = String::new();
    for message in messages {
        let line = serde_json::to_string(message).map_err(|e| {
            Error::validation(format!("a message could not be written: {e}"), "report this")
        })?;
        out.push_str(&line);
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compose::EstimateCounter;
    use crate::session::{ExtractiveSummarizer, TierPreset};

    fn messages() -> Vec<TranscriptMessage> {
        let filler =
            "We looked at logs and traces and talked through options at length. ".repeat(8);
        vec![
            TranscriptMessage::new(
                "a",
                "user",
                format!("{filler} ##keepit0.80## Use Postgres for JSONB."),
            ),
            TranscriptMessage::new(
                "b",
                "assistant",
                format!("{filler} ##keepit0.25## Maybe try Redis later."),
            ),
            TranscriptMessage::new(
                "c",
                "user",
                format!("{filler} ##keepit1.00## Never drop the WAL."),
            ),
        ]
    }

    #[test]
    fn surviving_markers_are_kept_verbatim_and_the_rest_is_summarised() {
        // The seed's example 2: aggressive 30:1 at distance 5 -> threshold 0.65.
        let mut settings = CompressionSettings::uniform(30.0);
        settings.session_distance = Some(5);
        let out = compress(&messages(), &settings, &ExtractiveSummarizer, &EstimateCounter)
            .expect("compresses");
        let uuids =
            |keys: &[MarkerKey]| keys.iter().map(|k| k.message_uuid.clone()).collect::<Vec<_>>();
        assert_eq!(uuids(&out.survived), ["a", "c"]);
        assert_eq!(uuids(&out.summarized), ["b"]);
        assert_eq!(out.summarized[0].content, "Maybe try Redis later.");
        assert_eq!((out.keepit_stats.preserved, out.keepit_stats.summarized), (2, 1));
        let weights: Vec<(&str, usize)> =
            out.keepit_stats.weights.iter().map(|(w, n)| (w.as_str(), *n)).collect();
        assert_eq!(weights, [("0.25", 0), ("0.80", 1), ("1.00", 1)]);
        let text: String =
            out.messages.iter().map(|m| m.content.clone()).collect::<Vec<_>>().join("\n");
        assert!(text.contains("##keepit0.80## Use Postgres for JSONB."), "{text}");
        assert!(text.contains("##keepit1.00## Never drop the WAL."), "{text}");
        assert!(!text.contains("##keepit0.25##"), "a summarised marker loses its tag: {text}");
        assert!(out.output_tokens < out.input_tokens);
        assert!(out.ratio() > 1.0);
    }

    #[test]
    fn preserve_all_ignore_and_tiers() {
        let mut settings = CompressionSettings::uniform(30.0);
        settings.keepit_mode = KeepitMode::PreserveAll;
        let all = compress(&messages(), &settings, &ExtractiveSummarizer, &EstimateCounter)
            .expect("compresses");
        assert_eq!(all.keepit_stats.preserved, 3);
        settings.keepit_mode = KeepitMode::Ignore;
        let none = compress(&messages(), &settings, &ExtractiveSummarizer, &EstimateCounter)
            .expect("compresses");
        assert_eq!(none.keepit_stats.preserved, 0);
        let tiered = CompressionSettings::tiered(TierPreset::Gentle);
        let out = compress(&messages(), &tiered, &ExtractiveSummarizer, &EstimateCounter)
            .expect("compresses");
        assert!(out.output_tokens < out.input_tokens);
        let skip_all =
            CompressionSettings { skip_first_messages: 3, ..CompressionSettings::uniform(5.0) };
        assert!(compress(&messages(), &skip_all, &ExtractiveSummarizer, &EstimateCounter).is_err());
    }
}
