//! Inline markers in agent output: the capture markers (seed 002, sections 1.1 and 5.2)
//! `[remember]` and `[remember:<namespace>]`, and the retrieval marker (seed 003's
//! retrieval flow) `<<retrieve: keywords>>`, found anywhere in a text but markdown code.
//!
//! Rules:
//! - `remember` is matched in any case (`[Remember]`, `[REMEMBER:decisions]`); the namespace
//!   is folded to lower case and must be one of the configured namespaces.
//! - A marker marks the text after it, up to the next marker or the end of the text; when
//!   nothing follows (`Use WAL mode [remember]`), the text before it, back to the previous
//!   marker or the start.
//! - Markers inside markdown code (fenced or indented blocks, inline spans) are text.
//! - `[remember:]` (no namespace), a namespace that is not configured (`[remember:../x]`,
//!   `[remember:nope]`) and a marker with no text around it are validation errors naming the
//!   marker and its character position. A `[remember:` not closed by `]` on the same line
//!   within 100 characters is not a marker: it stays plain text.

use std::sync::LazyLock;

use regex::Regex;

use crate::format::{code_ranges, in_ranges};
use crate::text::CharCounter;
use crate::{Error, Result};

/// A marker; group 1 is the namespace when one is written.
static MARKER: LazyLock<Regex> = LazyLock::new(|| {
    // A literal of this file; every test compiles it.
    Regex::new(r"(?i)\[remember(?::([^\]\n]{0,100}))?\]")
        .unwrap_or_else(|e| unreachable!("marker pattern: {e}"))
});

/// A retrieval marker; group 1 is its keywords.
static RETRIEVE: LazyLock<Regex> = LazyLock::new(|| {
    // A literal of this file; every test compiles it.
    Regex::new(r"(?i)<<\s*retrieve\s*:([^<>\n]{0,300})>>")
        .unwrap_or_else(|e| unreachable!("retrieve marker pattern: {e}"))
});

/// The most retrieval markers one text may hold.
pub(crate) const MAX_RETRIEVE_MARKERS: usize = 10;

/// A `<<retrieve: keywords>>` marker found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RetrieveMarker {
    /// Its keywords, trimmed.
    pub(crate) keywords: String,
    /// Where it starts, in characters.
    pub(crate) start_char: usize,
}

/// The retrieval markers of `text` outside markdown code, in order. A marker without
/// keywords, or more than [`MAX_RETRIEVE_MARKERS`] markers, is a validation error naming
/// the marker's position; a `<<retrieve:` not closed by `>>` on its line within 300
/// characters is plain text.
pub(crate) fn find_retrieve_markers(text: &str) -> Result<Vec<RetrieveMarker>> {
    if !RETRIEVE.is_match(text) {
        return Ok(Vec::new());
    }
    let code = code_ranges(text);
    let mut chars = CharCounter::default();
    let mut markers = Vec::new();
    for caps in RETRIEVE.captures_iter(text) {
        let (Some(whole), Some(keywords)) = (caps.get(0), caps.get(1)) else { continue };
        if in_ranges(&code, whole.start()) {
            continue;
        }
        let start_char = chars.at(text, whole.start());
        let keywords = keywords.as_str().trim();
        if keywords.is_empty() {
            return Err(Error::validation(
                format!("marker `{}` at character {start_char} names no keywords", whole.as_str()),
                "write what to look for, e.g. `<<retrieve: rollback procedure>>`",
            ));
        }
        if markers.len() == MAX_RETRIEVE_MARKERS {
            return Err(Error::validation(
                format!(
                    "more than {MAX_RETRIEVE_MARKERS} retrieval markers (the next at character \
                     {start_char})"
                ),
                "ask for fewer retrievals in one turn, or join their keywords",
            ));
        }
        markers.push(RetrieveMarker { keywords: keywords.to_owned(), start_char });
    }
    Ok(markers)
}

/// One marker found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Marker {
    /// The marker as written.
    pub(crate) tag: String,
    /// The namespace it names, lower case and configured; `None` for `[remember]`.
    pub(crate) namespace: Option<String>,
    /// The text it marks, trimmed.
    pub(crate) content: String,
    /// Where the marker starts and ends, in bytes.
    pub(crate) start: usize,
    /// Where the marker ends, in bytes.
    pub(crate) end: usize,
    /// [`Marker::start`] in characters.
    pub(crate) start_char: usize,
    /// [`Marker::end`] in characters.
    pub(crate) end_char: usize,
}

/// The markers of `text` outside markdown code, in order, each namespace checked against
/// `namespaces`.
pub(crate) fn find_markers(text: &str, namespaces: &[String]) -> Result<Vec<Marker>> {
    if !MARKER.is_match(text) {
        return Ok(Vec::new());
    }
    let code = code_ranges(text);
    let found: Vec<regex::Captures<'_>> = MARKER
        .captures_iter(text)
        .filter(|caps| caps.get(0).is_some_and(|m| !in_ranges(&code, m.start())))
        .collect();
    let mut chars = CharCounter::default();
    let mut markers = Vec::with_capacity(found.len());
    for (index, caps) in found.iter().enumerate() {
        let Some(whole) = caps.get(0) else { continue };
        let start_char = chars.at(text, whole.start());
        let end_char = start_char + whole.as_str().chars().count();
        let tag = whole.as_str().to_owned();
        let namespace = match caps.get(1) {
            None => None,
            Some(written) => Some(configured(written.as_str(), &tag, start_char, namespaces)?),
        };
        let next = found.get(index + 1).and_then(|c| c.get(0)).map_or(text.len(), |m| m.start());
        let previous = index.checked_sub(1).and_then(|i| found[i].get(0)).map_or(0, |m| m.end());
        let after = text[whole.end()..next].trim();
        let content = if after.is_empty() { text[previous..whole.start()].trim() } else { after };
        if content.is_empty() {
            return Err(Error::validation(
                format!("marker `{tag}` at character {start_char} marks no text"),
                "write what to remember after the marker, e.g. `[remember] use WAL mode`",
            ));
        }
        markers.push(Marker {
            tag,
            namespace,
            content: content.to_owned(),
            start: whole.start(),
            end: whole.end(),
            start_char,
            end_char,
        });
    }
    Ok(markers)
}

/// The namespace `written` in marker `tag`, folded to lower case, if it is configured.
fn configured(written: &str, tag: &str, at: usize, namespaces: &[String]) -> Result<String> {
    let name = written.trim().to_lowercase();
    let choices = namespaces.join(", ");
    if name.is_empty() {
        return Err(Error::validation(
            format!("marker `{tag}` at character {at} names no namespace"),
            format!("write [remember] to let memcore choose, or [remember:<one of: {choices}>]"),
        ));
    }
    if !namespaces.contains(&name) {
        return Err(Error::validation(
            format!("marker `{tag}` at character {at} names unknown namespace `{name}`"),
            format!(
                "use one of: {choices} (or add it to capture.namespaces in the store's config)"
            ),
        ));
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retrieve_markers_are_found_outside_code() {
        let text = "I need the runbook. <<retrieve: rollback procedure>> and <<RETRIEVE:image tags >>\n\
                    `<<retrieve: in code>>` and <<retrieve: never closed";
        let markers = find_retrieve_markers(text).unwrap();
        let keywords: Vec<&str> = markers.iter().map(|m| m.keywords.as_str()).collect();
        assert_eq!(keywords, ["rollback procedure", "image tags"]);
        assert_eq!(markers[0].start_char, 20);
        assert!(find_retrieve_markers("nothing here").unwrap().is_empty());
        let empty = find_retrieve_markers("look <<retrieve:  >>").unwrap_err();
        assert!(empty.to_string().contains("at character 5"), "{empty}");
        let many = "<<retrieve: x>> ".repeat(MAX_RETRIEVE_MARKERS + 1);
        assert!(find_retrieve_markers(&many).is_err());
    }

    fn namespaces() -> Vec<String> {
        ["decisions", "learnings", "notes"].map(String::from).to_vec()
    }

    #[test]
    fn markers_mark_the_text_after_them() {
        let text = "[remember:decisions] Use PostgreSQL. [Remember] WAL mode is on.";
        let markers = find_markers(text, &namespaces()).unwrap();
        assert_eq!(markers.len(), 2);
        assert_eq!(markers[0].namespace.as_deref(), Some("decisions"));
        assert_eq!(markers[0].content, "Use PostgreSQL.");
        assert_eq!(
            (markers[1].namespace.clone(), markers[1].content.as_str()),
            (None, "WAL mode is on.")
        );
    }

    #[test]
    fn a_trailing_marker_marks_the_text_before_it() {
        let markers = find_markers("Use WAL mode [remember]", &namespaces()).unwrap();
        assert_eq!(markers[0].content, "Use WAL mode");
    }

    #[test]
    fn namespaces_fold_case_and_must_be_configured() {
        let markers = find_markers("[remember:Decisions] x", &namespaces()).unwrap();
        assert_eq!(markers[0].namespace.as_deref(), Some("decisions"));
        for bad in ["[remember:] x", "[remember:../x] y", "[remember:UPPER] z", "[remember]"] {
            let err = find_markers(bad, &namespaces()).unwrap_err();
            assert_eq!(err.category(), crate::Category::Validation, "{bad}: {err}");
        }
    }

    #[test]
    fn code_and_unclosed_markers_are_text() {
        assert!(
            find_markers("`[remember] x` and [remember:decisions", &namespaces())
                .unwrap()
                .is_empty()
        );
    }
}
