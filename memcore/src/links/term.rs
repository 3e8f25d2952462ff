//! How a link is kept in the full-text index: one raw term per link in the `link_edge` field,
//! `target ␟ source ␟ start_char ␟ end_char ␟ label ␟ anchor` (␟ is U+001F, which no target,
//! key or label holds). All links to a target share the prefix `target ␟`, so the backlinks
//! of a target are one range scan of the term dictionary: no stored document is read, and the
//! graph needs no file or load step of its own.

use super::Link;
use crate::MemoryRef;

/// Separates the parts of a term.
const SEP: char = '\u{1f}';

/// The term of `link` in the memory `source`.
pub(crate) fn edge_term(source: &MemoryRef, link: &Link) -> String {
    format!(
        "{target}{SEP}{source}{SEP}{start}{SEP}{end}{SEP}{label}{SEP}{anchor}",
        target = link.target,
        start = link.start_char,
        end = link.end_char,
        label = link.label.as_deref().unwrap_or(""),
        anchor = link.anchor,
    )
}

/// The prefix every term of a link to `target` starts with.
pub(crate) fn target_prefix(target: &str) -> String {
    format!("{target}{SEP}")
}

/// A link as read back from its term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EdgeTerm {
    /// The normalised target.
    pub(crate) target: String,
    /// The memory holding the link.
    pub(crate) source: MemoryRef,
    /// Where `[[` starts in the source's content, in characters.
    pub(crate) start_char: usize,
    /// Where `]]` ends, in characters.
    pub(crate) end_char: usize,
    /// The label, if any.
    pub(crate) label: Option<String>,
    /// The anchor context.
    pub(crate) anchor: String,
}

/// Reads a term written by [`edge_term`]; `None` for anything else.
pub(crate) fn parse_edge_term(term: &str) -> Option<EdgeTerm> {
    let mut parts = term.splitn(6, SEP);
    let target = parts.next()?.to_owned();
    let source = parts.next()?.parse::<MemoryRef>().ok()?;
    let start_char = parts.next()?.parse().ok()?;
    let end_char = parts.next()?.parse().ok()?;
    let label = Some(parts.next()?.to_owned()).filter(|l| !l.is_empty());
    let anchor = parts.next()?.to_owned();
    Some(EdgeTerm { target, source, start_char, end_char, label, anchor })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::links::{EdgeTypes, extract_links};

    #[test]
    fn terms_round_trip_and_share_the_target_prefix() {
        let links = extract_links("See [[src/a.rs|the parser]] and [[b]].", &EdgeTypes::default());
        let source: MemoryRef = "notes/x".parse().unwrap();
        let term = edge_term(&source, &links[0]);
        assert!(term.starts_with(&target_prefix("src/a.rs")));
        let back = parse_edge_term(&term).unwrap();
        assert_eq!((back.target.as_str(), back.label.as_deref()), ("src/a.rs", Some("the parser")));
        assert_eq!((back.source, back.start_char, back.end_char), (source, 4, 27));
        assert_eq!(back.anchor, links[0].anchor);
        assert_eq!(parse_edge_term("garbage"), None);
    }
}
