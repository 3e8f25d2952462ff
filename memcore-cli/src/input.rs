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

/// The text of the file at `path`, or of standard input when `path` is `-`.
pub(crate) fn read_text(path: &Path) -> Result<String, Failure> {
    if is_stdin(path) {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|err| Failure::unreadable(Path::new("standard input"), &err))?;
        return Ok(text);
    }
    std::fs::read_to_string(path).map_err(|err| Failure::unreadable(path, &err))
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
        let failure = read_text(Path::new("/nonexistent/notes.md")).unwrap_err();
        assert_eq!(failure.category(), "USAGE");
        assert!(failure.message().contains("/nonexistent/notes.md"));
    }
}
