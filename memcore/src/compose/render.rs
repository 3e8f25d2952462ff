//! Writing a composed context: seed 002's `<memory_context>` XML, or markdown. Every item is
//! labelled (`[M1]`, ...) with its `collection/id`, so an answer can cite it.

use super::requests::{ContextFormat, Section};

/// A memory as it is written into a context.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RenderedItem<'a> {
    /// `M1`, `M2`, ...
    pub(crate) label: &'a str,
    /// `collection/id`.
    pub(crate) reference: &'a str,
    /// The title.
    pub(crate) title: &'a str,
    /// The type, if any.
    pub(crate) kind: Option<&'a str>,
    /// The day it last changed (`YYYY-MM-DD`).
    pub(crate) updated: &'a str,
    /// The content (whole or cut).
    pub(crate) content: &'a str,
}

/// The section's heading and XML element.
fn section_names(section: Section) -> (&'static str, &'static str) {
    match section {
        Section::Working => ("Working memory", "working_memory"),
        Section::Semantic => ("Relevant memories", "semantic_context"),
    }
}

/// One item, as it appears in `format`.
pub(crate) fn render_item(format: ContextFormat, item: &RenderedItem<'_>) -> String {
    let kind = item.kind.unwrap_or("memory");
    match format {
        ContextFormat::Xml => format!(
            "<memory label=\"{}\" ref=\"{}\" type=\"{}\" updated=\"{}\" title=\"{}\">\n{}\n</memory>\n",
            item.label,
            escape(item.reference),
            escape(kind),
            item.updated,
            escape(item.title),
            escape(item.content.trim()),
        ),
        ContextFormat::Markdown => format!(
            "### [{}] {}\n`{}` · {} · {}\n\n{}\n\n",
            item.label,
            one_line(item.title),
            item.reference,
            one_line(kind),
            item.updated,
            item.content.trim(),
        ),
    }
}

/// The whole context: `sections` in order, each with its rendered items (empty sections are
/// written too, so the frame's cost does not depend on what fits).
pub(crate) fn render_context(format: ContextFormat, sections: &[(Section, Vec<String>)]) -> String {
    let mut out = String::new();
    match format {
        ContextFormat::Xml => {
            out.push_str("<memory_context>\n");
            for (section, items) in sections {
                let (_, element) = section_names(*section);
                out.push_str(&format!("<{element}>\n"));
                items.iter().for_each(|item| out.push_str(item));
                out.push_str(&format!("</{element}>\n"));
            }
            out.push_str("</memory_context>\n");
        }
        ContextFormat::Markdown => {
            out.push_str("# Memory context\n\n");
            for (section, items) in sections {
                let (heading, _) = section_names(*section);
                out.push_str(&format!("## {heading}\n\n"));
                if items.is_empty() {
                    out.push_str("(none)\n\n");
                }
                items.iter().for_each(|item| out.push_str(item));
            }
        }
    }
    out
}

/// `text` with XML's five special characters escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` on one line (a title in a markdown heading).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item<'a>(content: &'a str) -> RenderedItem<'a> {
        RenderedItem {
            label: "M1",
            reference: "decisions/use-postgres",
            title: "Use \"Postgres\"",
            kind: Some("decision"),
            updated: "2026-01-15",
            content,
        }
    }

    #[test]
    fn xml_escapes_what_it_must() {
        let text = render_item(ContextFormat::Xml, &item("a < b && c"));
        assert_eq!(
            text,
            "<memory label=\"M1\" ref=\"decisions/use-postgres\" type=\"decision\" \
             updated=\"2026-01-15\" title=\"Use &quot;Postgres&quot;\">\na &lt; b &amp;&amp; c\n</memory>\n"
        );
        let whole = render_context(
            ContextFormat::Xml,
            &[(Section::Working, vec![text]), (Section::Semantic, vec![])],
        );
        assert!(whole.starts_with("<memory_context>\n<working_memory>\n<memory label=\"M1\""));
        assert!(whole.ends_with(
            "</working_memory>\n<semantic_context>\n</semantic_context>\n</memory_context>\n"
        ));
    }

    #[test]
    fn markdown_labels_each_item() {
        let text = render_item(ContextFormat::Markdown, &item("Use it."));
        assert_eq!(
            text,
            "### [M1] Use \"Postgres\"\n`decisions/use-postgres` · decision · 2026-01-15\n\nUse it.\n\n"
        );
    }
}
