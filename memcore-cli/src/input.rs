//! Reading what the command line points at: markdown from a file or standard input, and
//! `--metadata` JSON.

use std::io::Read;
use std::path::Path;

use memcore::Metadata;
use serde_json::Value;

use crate::failure::Failure;

/// Whether `path` is `-`, standard input.
pub(crate) fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// How messages name `path`: `standard input` for `-`, else the path.
pub(crate) fn name(path: &Path) -> String {
    if is_stdin(path) { "standard input".to_owned() } else { path.display().to_string() }
}

/// Room for frontmatter beside the content when a markdown file is read as a memory.
pub(crate) const FRONTMATTER_ALLOWANCE: u64 = 64 * 1024;

/// The text of the file at `path`, or of standard input when `path` is `-`, read up to
/// `limit` bytes: more is a validation error (exit 3) naming the limit, so a runaway input
/// (`/dev/zero`, a wrong file) is never read whole. `what` says what the limit is for.
pub(crate) fn read_text(path: &Path, limit: u64, what: &str) -> Result<String, Failure> {
    let unreadable = |err: &std::io::Error| Failure::unreadable(Path::new(&name(path)), err);
    let mut bytes = Vec::new();
    let read = if is_stdin(path) {
        std::io::stdin().take(limit + 1).read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|file| file.take(limit + 1).read_to_end(&mut bytes))
    };
    read.map_err(|err| unreadable(&err))?;
    if bytes.len() as u64 > limit {
        return Err(memcore::Error::validation(
            format!("{} is larger than {limit} bytes, the most {what}", name(path)),
            "give a smaller input (split the content into several memories), or raise \
             limits.max_content_bytes in the store's config",
        )
        .into());
    }
    String::from_utf8(bytes).map_err(|err| {
        let err = std::io::Error::new(std::io::ErrorKind::InvalidData, err);
        unreadable(&err)
    })
}

/// Parses `--metadata`: a JSON object whose keys become extra frontmatter keys.
pub(crate) fn parse_metadata(text: &str) -> Result<Metadata, String> {
    const EXAMPLE: &str = r#"give a JSON object, e.g. '{"priority_score": 3, "source": "review"}'"#;
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map.into_iter().collect()),
        Ok(other) => Err(format!("expected a JSON object, got {other}; {EXAMPLE}")),
        Err(err) => Err(format!("invalid JSON ({err}); {EXAMPLE}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_must_be_a_json_object() {
        let parsed = parse_metadata(r#"{"a": 1, "b": null}"#).unwrap();
        assert_eq!(parsed["a"], 1);
        assert!(parsed["b"].is_null());
        assert!(parse_metadata("[1]").unwrap_err().contains("expected a JSON object"));
        assert!(parse_metadata("{oops").unwrap_err().contains("invalid JSON"));
    }

    #[test]
    fn a_missing_file_is_a_usage_failure_naming_it() {
        let failure = read_text(Path::new("/nonexistent/notes.md"), 10, "x").unwrap_err();
        assert_eq!(failure.category(), "USAGE");
        assert!(failure.message().contains("/nonexistent/notes.md"));
    }
}
