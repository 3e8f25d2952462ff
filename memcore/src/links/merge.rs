//! The text side of merging memories (seed 001's `merge_memories`): the merged content, and
//! links re-pointed from the sources to the merged memory.

use super::{EdgeTypes, Link, extract_links};
use crate::Memory;

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

/// `text` with each link replaced by what `replace` makes of it, or `None` when it makes
/// nothing of any. Links are those [`extract_links`] finds, so code and what is not a link
/// stay as they are.
fn rewrite_links(text: &str, mut replace: impl FnMut(&Link) -> Option<String>) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    for link in extract_links(text, &EdgeTypes::untyped()) {
        if let Some(new) = replace(&link) {
            out.push_str(&text[copied..link.start]);
            out.push_str(&new);
            copied = link.end;
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// `text` with each `[[target|label]]` written as its label (or target), so that a heading
/// made from a title that holds links does not repeat them.
fn unlinked(text: &str) -> String {
    rewrite_links(text, |link| Some(link.label.clone().unwrap_or_else(|| link.target.clone())))
        .unwrap_or_else(|| text.to_owned())
}

/// `content` with every link (outside code) whose normalised target is one of `from`
/// rewritten to `[[to]]`, its label kept; `None` when no link changed.
pub(crate) fn repoint(content: &str, from: &[String], to: &str) -> Option<String> {
    rewrite_links(content, |link| {
        from.contains(&link.target).then(|| match &link.label {
            Some(label) => format!("[[{to}|{label}]]"),
            None => format!("[[{to}]]"),
        })
    })
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
