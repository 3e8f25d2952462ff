//! What memcore reads from markdown bodies: the first level-1 heading, a fallback title, and
//! where code is (text that markers and signals inside it do not count in).

use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};

use crate::MemoryId;

/// The longest title derived from a first line of content, in characters.
const DERIVED_TITLE_CHARS: usize = 80;

/// The text of the first level-1 heading (ATX `# x` or setext `x\n===`), inline markup removed.
pub(crate) fn first_heading(content: &str) -> Option<String> {
    let mut in_h1 = false;
    let mut text = String::new();
    for event in Parser::new(content) {
        match event {
            Event::Start(Tag::Heading { level: HeadingLevel::H1, .. }) => in_h1 = true,
            Event::End(TagEnd::Heading(HeadingLevel::H1)) => {
                let title = text.trim();
                if !title.is_empty() {
                    return Some(title.to_owned());
                }
                in_h1 = false;
            }
            Event::Text(t) | Event::Code(t) if in_h1 => text.push_str(&t),
            Event::SoftBreak | Event::HardBreak if in_h1 => text.push(' '),
            _ => {}
        }
    }
    None
}

/// The byte ranges of markdown code in `text`: fenced and indented blocks and inline spans.
pub(crate) fn code_ranges(text: &str) -> Vec<Range<usize>> {
    // Code needs a backtick, a tilde fence or an indented line (four columns of leading
    // white space, or a tab in it): without any, skip parsing.
    let indented = text.lines().any(|line| {
        let lead = line.len() - line.trim_start_matches([' ', '\t']).len();
        lead >= 4 || line[..lead].contains('\t')
    });
    if !indented && !text.contains(['`', '~']) {
        return Vec::new();
    }
    Parser::new(text)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::CodeBlock(_)) | Event::Code(_) => Some(range),
            _ => None,
        })
        .collect()
}

/// Whether byte `at` lies in one of `ranges` (sorted by start and not overlapping, as
/// [`code_ranges`] gives them), by binary search.
pub(crate) fn in_ranges(ranges: &[Range<usize>], at: usize) -> bool {
    let after = ranges.partition_point(|range| range.start <= at);
    after > 0 && ranges[after - 1].contains(&at)
}

/// A title for content that has none: its first H1, else its first non-blank line (cut at 80
/// characters), else the id.
pub(crate) fn derive_title(content: &str, id: &MemoryId) -> String {
    if let Some(heading) = first_heading(content) {
        return heading;
    }
    let first_line = content.lines().map(str::trim).find(|line| !line.is_empty());
    match first_line {
        Some(line) if line.chars().count() > DERIVED_TITLE_CHARS => {
            let cut: String = line.chars().take(DERIVED_TITLE_CHARS - 1).collect();
            format!("{}…", cut.trim_end())
        }
        Some(line) => line.to_owned(),
        None => id.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_is_found_only_where_it_can_be() {
        assert!(code_ranges("plain [[text]] only").is_empty());
        assert_eq!(code_ranges("a `b` c").len(), 1);
        assert_eq!(code_ranges("para\n\n    indented code\n").len(), 1);
        assert_eq!(code_ranges("para\n\n  \tindented code\n").len(), 1);
        assert_eq!(code_ranges("~~~\nfenced\n~~~\n").len(), 1);
    }

    #[test]
    fn finds_first_h1() {
        assert_eq!(
            first_heading("intro\n\n# The `Real` *Title*\n# Second"),
            Some("The Real Title".into())
        );
        assert_eq!(first_heading("Setext\n===\n"), Some("Setext".into()));
        assert_eq!(first_heading("## only h2\n```\n# not a heading\n```"), None);
        assert_eq!(first_heading("#\n# x"), Some("x".into()));
    }

    #[test]
    fn derives_title_from_first_line() {
        let id = MemoryId::new("fallback").unwrap();
        assert_eq!(derive_title("\n  hello world \nmore", &id), "hello world");
        assert_eq!(derive_title(&"a".repeat(100), &id).chars().count(), DERIVED_TITLE_CHARS);
        assert_eq!(derive_title("   ", &id), "fallback");
    }
}
