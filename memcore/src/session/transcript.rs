//! Conversation transcripts: Claude Code session files and a plain generic JSONL, read into
//! [`Transcript`]s of [`TranscriptMessage`]s.
//!
//! A Claude Code line carries `type`, `uuid`, `timestamp`, `sessionId`, `gitBranch`,
//! `version`, `cwd` and a `message` whose `content` is a string or a list of blocks (`text`,
//! `tool_use`, `tool_result`, `thinking`). A generic line is `{role, content, timestamp?}`.
//! Records that are not messages (`summary`, `system`, snapshots) are counted and left out;
//! lines that are not JSON, or messages without text, are skipped and reported with their
//! line number, never dropped silently.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Error, Result, Timestamp};

/// The largest transcript memcore reads, in bytes.
pub const MAX_TRANSCRIPT_BYTES: usize = 256 << 20;
/// How many skipped lines a transcript reports one by one (the rest are counted).
const MAX_REPORTED_SKIPS: usize = 100;

/// Which kind of transcript a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TranscriptFormat {
    /// Decided by the first message line.
    #[default]
    Auto,
    /// A Claude Code session (`~/.claude/projects/<project>/<session>.jsonl`).
    ClaudeCode,
    /// One `{role, content, timestamp}` object per line.
    Generic,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct TranscriptMessage {
    /// The message's id: Claude Code's `uuid`, else `line-N`.
    pub uuid: String,
    /// Who spoke: `user`, `assistant`, `system`, `tool`, ...
    pub role: String,
    /// The message's text (tool calls and results written as text).
    pub content: String,
    /// When it was written, if the transcript says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Timestamp>,
}

impl TranscriptMessage {
    /// A message from its parts.
    pub fn new(
        uuid: impl Into<String>,
        role: impl Into<String>,
        content: impl Into<String>,
    ) -> Self {
        Self { uuid: uuid.into(), role: role.into(), content: content.into(), timestamp: None }
    }
}

/// A line of a transcript that was not read, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SkippedLine {
    /// The line number, from 1.
    pub line: usize,
    /// Why it was skipped.
    pub reason: String,
}

/// What a transcript says about its session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SessionMetadata {
    /// The git branch the session ran on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_branch: Option<String>,
    /// The project: the last component of the session's working directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_name: Option<String>,
    /// The Claude Code version that wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claude_version: Option<String>,
}

/// A transcript as read.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Transcript {
    /// The format it was read as.
    pub format: TranscriptFormat,
    /// Its messages, in order.
    pub messages: Vec<TranscriptMessage>,
    /// The session id it names (Claude Code's `sessionId`), if any.
    pub session_id: Option<String>,
    /// What it says about its session.
    pub metadata: SessionMetadata,
    /// Lines that were not read, with why (the first 100).
    pub skipped: Vec<SkippedLine>,
    /// How many lines were skipped in all.
    pub skipped_count: usize,
    /// Records that are not messages (summaries, snapshots), left out.
    pub ignored: usize,
}

/// Reads `text` as a transcript of `format`.
///
/// A blank line is ignored; a line that is not a JSON object, or a message with no text, is
/// skipped and reported. A transcript with no message at all is a validation error.
///
/// ```
/// use memcore::session::{parse_transcript, TranscriptFormat};
///
/// let text = r#"{"role": "user", "content": "Use Postgres.", "timestamp": "2026-01-15T10:00:00Z"}
/// not json
/// {"role": "assistant", "content": "Done."}"#;
/// let transcript = parse_transcript(text, TranscriptFormat::Auto)?;
/// assert_eq!(transcript.format, TranscriptFormat::Generic);
/// assert_eq!(transcript.messages.len(), 2);
/// assert_eq!(transcript.skipped[0].line, 2);
/// # Ok::<(), memcore::Error>(())
/// ```
pub fn parse_transcript(text: &str, format: TranscriptFormat) -> Result<Transcript> {
    let mut transcript = Transcript {
        format,
        messages: Vec::new(),
        session_id: None,
        metadata: SessionMetadata::default(),
        skipped: Vec::new(),
        skipped_count: 0,
        ignored: 0,
    };
    let mut seen = std::collections::HashSet::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        match read_line(&mut transcript, line, number) {
            Ok(Some(mut message)) => {
                // Ids name messages in keepit markers and versions: a repeated one is
                // replaced by the line number.
                if !seen.insert(message.uuid.clone()) {
                    message.uuid = format!("line-{number}");
                    seen.insert(message.uuid.clone());
                }
                transcript.messages.push(message);
            }
            Ok(None) => transcript.ignored += 1,
            Err(reason) => {
                transcript.skipped_count += 1;
                if transcript.skipped.len() < MAX_REPORTED_SKIPS {
                    transcript.skipped.push(SkippedLine { line: number, reason });
                }
            }
        }
    }
    if transcript.messages.is_empty() {
        return Err(Error::validation(
            format!(
                "the transcript holds no message ({} lines skipped, {} records not messages)",
                transcript.skipped_count, transcript.ignored
            ),
            "give a Claude Code session file or JSONL lines of {\"role\", \"content\", \
             \"timestamp\"}",
        ));
    }
    if transcript.format == TranscriptFormat::Auto {
        transcript.format = TranscriptFormat::Generic;
    }
    Ok(transcript)
}

/// One line: a message, `None` for a record that is not one, or why it was skipped.
fn read_line(
    transcript: &mut Transcript,
    line: &str,
    number: usize,
) -> std::result::Result<Option<TranscriptMessage>, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not a JSON object: {e}"))?;
    let Value::Object(record) = &value else {
        return Err("not a JSON object".to_owned());
    };
    if transcript.format == TranscriptFormat::Auto {
        let claude_type = record.contains_key("type") && !record.contains_key("role");
        if record.contains_key("message") || record.contains_key("sessionId") || claude_type {
            transcript.format = TranscriptFormat::ClaudeCode;
        } else if record.contains_key("role") {
            transcript.format = TranscriptFormat::Generic;
        }
    }
    match transcript.format {
        TranscriptFormat::ClaudeCode => claude_line(transcript, &value, number),
        _ => generic_line(&value, number).map(Some),
    }
}

/// A generic `{role, content, timestamp}` line.
fn generic_line(value: &Value, number: usize) -> std::result::Result<TranscriptMessage, String> {
    let role = value
        .get("role")
        .and_then(Value::as_str)
        .ok_or("no `role` string (a generic line is {\"role\", \"content\", \"timestamp\"})")?;
    let content = value.get("content").map(content_text).unwrap_or_default();
    if content.trim().is_empty() {
        return Err("the message has no text".to_owned());
    }
    let timestamp = timestamp_of(value)?;
    let uuid = value
        .get("id")
        .and_then(Value::as_str)
        .map_or_else(|| format!("line-{number}"), str::to_owned);
    Ok(TranscriptMessage { uuid, role: role.to_owned(), content, timestamp })
}

/// A Claude Code line: a message of type `user` or `assistant`, else `None`.
fn claude_line(
    transcript: &mut Transcript,
    value: &Value,
    number: usize,
) -> std::result::Result<Option<TranscriptMessage>, String> {
    let field = |name: &str| value.get(name).and_then(Value::as_str);
    if transcript.session_id.is_none() {
        transcript.session_id = field("sessionId").map(str::to_owned);
    }
    let metadata = &mut transcript.metadata;
    if metadata.git_branch.is_none() {
        metadata.git_branch = field("gitBranch").filter(|b| !b.is_empty()).map(str::to_owned);
    }
    if metadata.claude_version.is_none() {
        metadata.claude_version = field("version").map(str::to_owned);
    }
    if metadata.project_name.is_none() {
        metadata.project_name = field("cwd")
            .and_then(|cwd| cwd.rsplit('/').find(|part| !part.is_empty()))
            .map(str::to_owned);
    }
    let Some(message) = value.get("message") else {
        return Ok(None);
    };
    let role = message
        .get("role")
        .and_then(Value::as_str)
        .or_else(|| field("type"))
        .ok_or("the message has no role")?;
    let content = message.get("content").map(content_text).unwrap_or_default();
    if content.trim().is_empty() {
        return Err("the message has no text".to_owned());
    }
    let timestamp = timestamp_of(value)?;
    let uuid = field("uuid").map_or_else(|| format!("line-{number}"), str::to_owned);
    Ok(Some(TranscriptMessage { uuid, role: role.to_owned(), content, timestamp }))
}

/// The `timestamp` of a line, if it has one.
fn timestamp_of(value: &Value) -> std::result::Result<Option<Timestamp>, String> {
    match value.get("timestamp") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => crate::parse_timestamp(text)
            .map(Some)
            .ok_or_else(|| format!("the timestamp {text:?} is not an RFC 3339 time")),
        Some(other) => Err(format!("the timestamp {other} is not a string")),
    }
}

/// The text of a message's content: a string, or blocks joined by blank lines (tool calls
/// and results as `[tool NAME] input` and `[tool result] text`; thinking left out).
fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(block_text)
            .filter(|t| !t.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => String::new(),
    }
}

/// The text of one content block.
fn block_text(block: &Value) -> Option<String> {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("text");
    match kind {
        "text" => block.get("text").and_then(Value::as_str).map(str::to_owned),
        "tool_use" => {
            let name = block.get("name").and_then(Value::as_str).unwrap_or("tool");
            let input = block.get("input").map(Value::to_string).unwrap_or_default();
            Some(format!("[tool {name}] {input}"))
        }
        "tool_result" => {
            let text = block.get("content").map(content_text).unwrap_or_default();
            Some(format!("[tool result] {text}"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE: &str = r#"{"type":"summary","summary":"Earlier work","leafUuid":"x"}
{"parentUuid":null,"cwd":"/home/dac/github/myapp","sessionId":"abc123","version":"1.0.30","gitBranch":"main","type":"user","message":{"role":"user","content":"Use Postgres ##keepit0.80## because of JSONB."},"uuid":"u1","timestamp":"2026-01-15T10:00:00.000Z"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Agreed."},{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]},"uuid":"u2","timestamp":"2026-01-15T10:01:00Z"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"Cargo.toml"}]},"uuid":"u3","timestamp":"2026-01-15T10:02:00Z"}
{"type":"user","message":{"role":"user","content":[]},"uuid":"u4"}
{broken
"#;

    #[test]
    fn claude_code_sessions_are_read_with_their_metadata() {
        let transcript = parse_transcript(CLAUDE, TranscriptFormat::Auto).expect("parses");
        assert_eq!(transcript.format, TranscriptFormat::ClaudeCode);
        assert_eq!(transcript.session_id.as_deref(), Some("abc123"));
        assert_eq!(transcript.metadata.git_branch.as_deref(), Some("main"));
        assert_eq!(transcript.metadata.project_name.as_deref(), Some("myapp"));
        assert_eq!(transcript.metadata.claude_version.as_deref(), Some("1.0.30"));
        let texts: Vec<&str> = transcript.messages.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Use Postgres ##keepit0.80## because of JSONB.",
                "Agreed.\n\n[tool Bash] {\"command\":\"ls\"}",
                "[tool result] Cargo.toml"
            ]
        );
        assert_eq!(transcript.messages[1].uuid, "u2");
        assert_eq!(transcript.ignored, 1);
        let skipped: Vec<usize> = transcript.skipped.iter().map(|s| s.line).collect();
        assert_eq!(skipped, [5, 6]);
        assert_eq!(transcript.skipped_count, 2);
    }

    #[test]
    fn a_file_without_messages_is_an_error_and_bad_timestamps_are_skipped() {
        assert!(parse_transcript("", TranscriptFormat::Auto).is_err());
        assert!(parse_transcript("[1, 2]\n\"text\"", TranscriptFormat::Auto).is_err());
        let text = "{\"role\":\"user\",\"content\":\"a\",\"timestamp\":\"yesterday\"}\n\
                    {\"role\":\"user\",\"content\":\"b\"}";
        let transcript = parse_transcript(text, TranscriptFormat::Generic).expect("parses");
        assert_eq!(transcript.messages.len(), 1);
        assert!(transcript.skipped[0].reason.contains("yesterday"));
    }

    proptest::proptest! {
        #[test]
        fn any_text_parses_or_is_refused_without_panicking(text in "\\PC{0,300}") {
            let _ = parse_transcript(&text, TranscriptFormat::Auto);
        }

        #[test]
        fn json_lines_of_any_shape_never_panic(
            lines in proptest::collection::vec(
                proptest::prop_oneof![
                    "\\{\"role\": \"(user|assistant)\", \"content\": \"\\PC{0,40}\"\\}",
                    "\\{\"type\": \"user\", \"message\": \\{\"content\": \\[\\{\"type\": \"(text|tool_use|tool_result)\"\\}\\]\\}\\}",
                    "\\{\"timestamp\": \"\\PC{0,12}\", \"role\": 1\\}",
                    "\\PC{0,30}",
                ],
                0..12,
            )
        ) {
            let text = lines.join("\n");
            if let Ok(transcript) = parse_transcript(&text, TranscriptFormat::Auto) {
                let mut uuids: Vec<&str> = transcript.messages.iter().map(|m| m.uuid.as_str()).collect();
                uuids.sort_unstable();
                uuids.dedup();
                proptest::prop_assert_eq!(uuids.len(), transcript.messages.len(), "message ids are unique");
            }
        }
    }
}
