//! Link extraction (seed 001, phase 3): `[[target]]` and `[[target|label]]` in markdown, with
//! the anchor context around each and its position.
//!
//! Rules:
//! - Links inside markdown code (fenced or indented blocks, inline spans) are text.
//! - `[[` not closed by `]]` on the same line is text; so is a link whose target is blank or
//!   holds a control character (NUL, tab, ...).
//! - Targets are normalised: surrounding white space trimmed, inner runs collapsed to one
//!   space; for a path (not a URL), `./` and `x/../` segments resolved and a trailing `/`
//!   dropped. A path that climbs above its start (`../secrets`) is not a link. A target keeps
//!   its case (file paths are case-sensitive); a leading `ghost:` is dropped, since ghost
//!   nodes are named `ghost:<target>` already.

use std::sync::LazyLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::EdgeTypes;
use crate::format::{code_ranges, in_ranges};
use crate::text::{CharCounter, extract};

/// Characters of anchor context taken either side of a link (seed 001: about 100).
pub const ANCHOR_CHARS: usize = 100;
/// The longest target, in characters.
pub const MAX_TARGET_CHARS: usize = 512;

/// A link: `[[`, no brackets, line breaks or control characters, `]]`; group 1 is the inside.
static LINK: LazyLock<Regex> = LazyLock::new(|| {
    // A literal of this file; every test compiles it.
    Regex::new(r"\[\[([^\[\]\x00-\x1f\x7f]{1,2048})\]\]")
        .unwrap_or_else(|e| unreachable!("link pattern: {e}"))
});

/// One link in a memory's content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Link {
    /// The normalised target: a memory (`id` or `collection/id`), a file path, a URL, a name.
    pub target: String,
    /// The text shown instead of the target (`[[target|label]]`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// The edge type inferred from the anchor context: `refactors`, `plans`, `debugs`,
    /// `mentions`, or `related_to` (see `links.edge_types` in the config).
    #[serde(rename = "type")]
    pub edge_type: String,
    /// About 100 characters either side of the link, `...` where cut.
    pub anchor: String,
    /// Where `[[` starts, in bytes of UTF-8.
    pub start: usize,
    /// Where `]]` ends, in bytes.
    pub end: usize,
    /// [`Link::start`] in characters.
    pub start_char: usize,
    /// [`Link::end`] in characters.
    pub end_char: usize,
}

/// The links of `content` outside markdown code, in order, typed by `edge_types`.
///
/// ```
/// use memcore::links::{EdgeTypes, extract_links};
///
/// let content = "We will refactor [[src/server.py]] next week; see [[gpu-notes|the GPU notes]].";
/// let links = extract_links(content, &EdgeTypes::default());
/// assert_eq!(links[0].target, "src/server.py");
/// assert_eq!(links[0].edge_type, "refactors");
/// assert_eq!(links[1].label.as_deref(), Some("the GPU notes"));
/// ```
pub fn extract_links(content: &str, edge_types: &EdgeTypes) -> Vec<Link> {
    if !content.contains("[[") {
        return Vec::new();
    }
    let code = code_ranges(content);
    let mut chars = CharCounter::default();
    let mut links = Vec::new();
    for caps in LINK.captures_iter(content) {
        let (Some(whole), Some(inside)) = (caps.get(0), caps.get(1)) else { continue };
        if in_ranges(&code, whole.start()) {
            continue;
        }
        let (raw_target, label) = match inside.as_str().split_once('|') {
            Some((target, label)) => (target, Some(label.trim()).filter(|l| !l.is_empty())),
            None => (inside.as_str(), None),
        };
        let Some(target) = normalize_target(raw_target) else { continue };
        let window = extract(content, whole.range(), ANCHOR_CHARS);
        let anchor = window.render(content);
        let start_char = chars.at(content, whole.start());
        links.push(Link {
            edge_type: edge_types.infer(window.words(content)).to_owned(),
            target,
            label: label.map(str::to_owned),
            anchor,
            start: whole.start(),
            end: whole.end(),
            start_char,
            end_char: start_char + whole.as_str().chars().count(),
        });
    }
    links
}

/// `raw` as a link target (see the module rules), or `None` when it is not one.
///
/// ```
/// use memcore::links::normalize_target;
///
/// assert_eq!(normalize_target("  ./src//server.py/ ").as_deref(), Some("src/server.py"));
/// assert_eq!(normalize_target("docs/old/../api.md").as_deref(), Some("docs/api.md"));
/// assert_eq!(normalize_target("ghost:Alice  Smith").as_deref(), Some("Alice Smith"));
/// assert_eq!(normalize_target("../secrets"), None);
/// assert_eq!(normalize_target("https://example.com/a/../b").as_deref(), Some("https://example.com/a/../b"));
/// ```
pub fn normalize_target(raw: &str) -> Option<String> {
    if raw.chars().any(char::is_control) {
        return None;
    }
    let collapsed = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    let collapsed = collapsed.strip_prefix("ghost:").map_or(collapsed.as_str(), str::trim);
    if collapsed.is_empty() || collapsed.chars().count() > MAX_TARGET_CHARS {
        return None;
    }
    if collapsed.contains("://") || !collapsed.contains(['/', '.']) {
        return Some(collapsed.to_owned());
    }
    let absolute = collapsed.starts_with('/');
    let mut segments: Vec<&str> = Vec::new();
    for segment in collapsed.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop()?;
            }
            other => segments.push(other),
        }
    }
    if segments.is_empty() {
        return None;
    }
    let path = segments.join("/");
    Some(if absolute { format!("/{path}") } else { path })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(content: &str) -> Vec<String> {
        extract_links(content, &EdgeTypes::default()).into_iter().map(|l| l.target).collect()
    }

    #[test]
    fn finds_links_labels_and_positions() {
        let content = "Café: see [[gpu-notes|GPU]] and [[ src/main.rs ]].";
        let links = extract_links(content, &EdgeTypes::default());
        assert_eq!(targets(content), ["gpu-notes", "src/main.rs"]);
        assert_eq!(links[0].label.as_deref(), Some("GPU"));
        assert_eq!(&content[links[0].start..links[0].end], "[[gpu-notes|GPU]]");
        assert_eq!(links[0].start_char, links[0].start - 1, "é is two bytes");
        assert_eq!(links[1].anchor, content);
        assert_eq!(links[1].edge_type, "related_to");
    }

    #[test]
    fn code_unclosed_empty_and_control_characters_are_not_links() {
        assert!(targets("`[[a]]` and\n\n```\n[[b]]\n```\n").is_empty());
        assert!(targets("[[unclosed and [[]] and [[ ]] and [[a\u{0}b]] and [[x\ny]]").is_empty());
        assert!(targets("[[../../etc/passwd]]").is_empty());
    }

    #[test]
    fn ten_thousand_links_in_one_memory() {
        let content = (0..10_000).map(|i| format!("[[t{i}]]")).collect::<Vec<_>>().join(" ");
        assert_eq!(targets(&content).len(), 10_000);
    }
}
