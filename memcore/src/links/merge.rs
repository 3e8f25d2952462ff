//! The text side of merging memories (seed 001's `merge_memories`): the merged content, and
//! links re-pointed from the sources to the merged memory.

use super::normalize_target;
use crate::Memory;
use crate::format::{code_ranges, in_ranges};

/// The content of a memory merging `sources`: the summary (if any), then each source under a
/// `## <title>` heading, in the order given.
pub(crate) fn merged_content(sources: &[&Memory], summary: Option<&str>) -> String {
    let mut parts: Vec<String> = Vec::with_capacity(sources.len() + 1);
    if let Some(summary) = summary.map(str::trim).filter(|s| !s.is_empty()) {
        parts.push(summary.to_owned());
    }
    for source in sources {
        parts.push(format!("## {}\n\n{}", unlinked(&source.title), source.content.trim()));
    }
    parts.join("\n\n") + "\n"
}

/// `text` with each `[[target|label]]` written as its label (or target), so that a heading
/// made from a title that holds links does not repeat them.
fn unlinked(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("[[") {
        let Some(close) = rest[open..].find("]]").map(|i| open + i) else { break };
        let inside = &rest[open + 2..close];
        out.push_str(&rest[..open]);
        out.push_str(inside.split_once('|').map_or(inside, |(_, label)| label).trim());
        rest = &rest[close + 2..];
    }
    out.push_str(rest);
    out
}

/// `content` with every link (outside code) whose normalised target is one of `from`
/// rewritten to `[[to]]`, its label kept; `None` when no link changed.
pub(crate) fn repoint(content: &str, from: &[String], to: &str) -> Option<String> {
    let code = code_ranges(content);
    let mut out = String::with_capacity(content.len());
    let mut copied = 0;
    let mut changed = false;
    let mut at = 0;
    while let Some(open) = content[at..].find("[[").map(|i| at + i) {
        let Some(close) = content[open + 2..].find("]]").map(|i| open + 2 + i) else { break };
        let inside = &content[open + 2..close];
        at = close + 2;
        if in_ranges(&code, open) || inside.contains(['[', '\n']) {
            at = open + 2;
            continue;
        }
        let (target, label) = match inside.split_once('|') {
            Some((target, label)) => (target, Some(label)),
            None => (inside, None),
        };
        if normalize_target(target).is_some_and(|t| from.contains(&t)) {
            out.push_str(&content[copied..open]);
            match label {
                Some(label) => out.push_str(&format!("[[{to}|{label}]]")),
                None => out.push_str(&format!("[[{to}]]")),
            }
            copied = close + 2;
            changed = true;
        }
    }
    if !changed {
        return None;
    }
    out.push_str(&content[copied..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repoints_links_keeping_labels_and_code() {
        let from = vec!["a".to_owned(), "notes/b".to_owned()];
        let text = "See [[a]], [[ notes/b |B]] and [[c]]; `[[a]]` stays.";
        assert_eq!(
            repoint(text, &from, "notes/ab").unwrap(),
            "See [[notes/ab]], [[notes/ab|B]] and [[c]]; `[[a]]` stays."
        );
        assert_eq!(repoint("[[c]] [[a", &from, "x"), None);
        assert_eq!(unlinked("Fix [[src/a.rs]] per [[b|the plan]]"), "Fix src/a.rs per the plan");
    }
}
