//! Splitting a document into chunks along its structure: markdown by headings, then blocks
//! (a code block, a list, a paragraph), then sentences and words; plain text by paragraphs,
//! then sentences and words. The splitting is `text-splitter`'s; this module adds what a
//! chunk knows of its place: the heading path it sits under and its position.

use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, Parser, Tag, TagEnd};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use text_splitter::{Characters, ChunkConfig, MarkdownSplitter, TextSplitter};

use crate::{Error, Result};

/// The default chunk size in characters: about the 256 word pieces the default embedding
/// model reads, so that all of a chunk counts in its vector (see BENCHMARKS.md).
pub const DEFAULT_CHUNK_SIZE: usize = 1000;
/// The default overlap in characters: where a section is too long for one chunk, each
/// chunk repeats about this much of the end of the one before it.
pub const DEFAULT_OVERLAP: usize = 100;
/// The smallest chunk size accepted.
pub const MIN_CHUNK_SIZE: usize = 50;
/// The largest chunk size accepted.
pub const MAX_CHUNK_SIZE: usize = 20_000;

/// How a document is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DocumentFormat {
    /// CommonMark: split at headings, then blocks (code blocks kept whole when they fit).
    Markdown,
    /// Any other UTF-8 text: split at blank lines, then sentences.
    Text,
}

impl DocumentFormat {
    /// The format of a file named `name`: markdown for `.md`, `.markdown`, `.mdown`, `.mkd`
    /// and `.mdx`, plain text for anything else.
    pub fn of_file_name(name: &str) -> Self {
        let extension = name.rsplit_once('.').map(|(_, ext)| ext.to_ascii_lowercase());
        match extension.as_deref() {
            Some("md" | "markdown" | "mdown" | "mkd" | "mdx") => Self::Markdown,
            _ => Self::Text,
        }
    }
}

/// How big chunks are, in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChunkOptions {
    /// The most characters in a chunk.
    pub size: usize,
    /// Characters a chunk repeats from the one before it when a section is split.
    pub overlap: usize,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        Self { size: DEFAULT_CHUNK_SIZE, overlap: DEFAULT_OVERLAP }
    }
}

impl ChunkOptions {
    /// The options a request asks for: `size` and `overlap` where given, else this one's;
    /// an overlap not given is at most a tenth of the size (so a small size alone works).
    ///
    /// ```
    /// use memcore::docs::ChunkOptions;
    ///
    /// let options = ChunkOptions::default().with(Some(300), None);
    /// assert_eq!((options.size, options.overlap), (300, 30));
    /// ```
    #[must_use]
    pub fn with(self, size: Option<usize>, overlap: Option<usize>) -> Self {
        let size = size.unwrap_or(self.size);
        Self { size, overlap: overlap.unwrap_or(self.overlap.min(size / 10)) }
    }

    /// These options, or a validation error naming what is out of range.
    pub fn checked(self) -> Result<Self> {
        if !(MIN_CHUNK_SIZE..=MAX_CHUNK_SIZE).contains(&self.size) {
            return Err(Error::validation(
                format!("chunk size {} is out of range", self.size),
                format!("give a chunk size from {MIN_CHUNK_SIZE} to {MAX_CHUNK_SIZE} characters"),
            ));
        }
        if self.overlap > self.size / 2 {
            return Err(Error::validation(
                format!("overlap {} is more than half the chunk size {}", self.overlap, self.size),
                "give an overlap of at most half the chunk size",
            ));
        }
        Ok(self)
    }
}

/// One piece of a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chunk {
    /// The chunk's text, as it is in the document.
    pub text: String,
    /// The headings it sits under, outermost first (the heading it starts with included).
    pub heading_path: Vec<String>,
    /// Where it starts in the document, in bytes.
    pub start: usize,
}

/// Splits `text` into chunks of at most `options.size` characters, section by section
/// (markdown), then at the largest unit that fits: blocks (a code block stays whole when it
/// fits), then sentences, then words. Chunks that hold only white space are left out. A validation error for options
/// [`ChunkOptions::checked`] refuses.
pub(crate) fn chunk(
    text: &str,
    format: DocumentFormat,
    options: ChunkOptions,
) -> Result<Vec<Chunk>> {
    let options = options.checked()?;
    let config = ChunkConfig::new(options.size).with_overlap(options.overlap).map_err(|e| {
        Error::validation(format!("chunk options refused: {e}"), "give a smaller overlap")
    })?;
    let headings = match format {
        DocumentFormat::Markdown => headings(text),
        DocumentFormat::Text => Vec::new(),
    };
    let splitter = match format {
        DocumentFormat::Markdown => Splitter::Markdown(MarkdownSplitter::new(config)),
        DocumentFormat::Text => Splitter::Text(TextSplitter::new(config)),
    };
    let mut chunks = Vec::new();
    for section in sections(text, &headings) {
        let body = &text[section.clone()];
        let pieces: Vec<(usize, &str)> = match &splitter {
            Splitter::Markdown(splitter) => splitter.chunk_indices(body).collect(),
            Splitter::Text(splitter) => splitter.chunk_indices(body).collect(),
        };
        for (offset, piece) in pieces {
            if piece.trim().is_empty() {
                continue;
            }
            let start = section.start + offset;
            chunks.push(Chunk {
                text: piece.to_owned(),
                heading_path: heading_path(&headings, start),
                start,
            });
        }
    }
    Ok(chunks)
}

/// The splitter of a format, sizing by characters.
enum Splitter {
    Markdown(MarkdownSplitter<Characters>),
    Text(TextSplitter<Characters>),
}

/// The sections of `text`: from each heading to the next (the text before the first heading
/// is a section too), so that no chunk spans two sections and each chunk's heading path is
/// exact. A heading with nothing under it before the next heading joins the next section.
fn sections(text: &str, headings: &[Heading]) -> Vec<Range<usize>> {
    let mut bounds: Vec<usize> = headings.iter().map(|h| h.start).filter(|&s| s > 0).collect();
    bounds.push(text.len());
    let mut sections = Vec::new();
    let mut start = 0;
    for end in bounds {
        let section = &text[start..end];
        let body = section.split_once('\n').map_or("", |(_, rest)| rest);
        let heading_only = headings.iter().any(|h| h.start == start) && body.trim().is_empty();
        if section.trim().is_empty() || (heading_only && end < text.len()) {
            if section.trim().is_empty() {
                start = end;
            }
            continue;
        }
        sections.push(start..end);
        start = end;
    }
    sections
}

/// A heading of a markdown document: where it starts, its level (1 to 6) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Heading {
    start: usize,
    level: usize,
    text: String,
}

/// The headings of `text` in order, inline markup removed.
fn headings(text: &str) -> Vec<Heading> {
    let mut found = Vec::new();
    let mut open: Option<(Range<usize>, usize, String)> = None;
    for (event, range) in Parser::new(text).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                open = Some((range, level_number(level), String::new()));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((range, level, heading)) = open.take() {
                    let heading = heading.split_whitespace().collect::<Vec<_>>().join(" ");
                    found.push(Heading { start: range.start, level, text: heading });
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, _, heading)) = open.as_mut() {
                    heading.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, _, heading)) = open.as_mut() {
                    heading.push(' ');
                }
            }
            _ => {}
        }
    }
    found
}

fn level_number(level: HeadingLevel) -> usize {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// The path of headings in force at byte `at`: for each level, the last heading at or
/// before it, dropping deeper ones whenever a shallower heading starts.
fn heading_path(headings: &[Heading], at: usize) -> Vec<String> {
    let mut path: Vec<&Heading> = Vec::new();
    for heading in headings.iter().take_while(|h| h.start <= at) {
        path.retain(|outer| outer.level < heading.level);
        path.push(heading);
    }
    path.into_iter().filter(|h| !h.text.is_empty()).map(|h| h.text.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(size: usize, overlap: usize) -> ChunkOptions {
        ChunkOptions { size, overlap }
    }

    fn chunk(text: &str, format: DocumentFormat, options: ChunkOptions) -> Vec<Chunk> {
        super::chunk(text, format, options).unwrap()
    }

    const GUIDE: &str = "# Runbook\n\nWhat to do when the queue backs up.\n\n\
        ## Diagnose\n\nCheck the consumer lag first. Then look at the broker's disk.\n\n\
        ```sh\nkafka-consumer-groups --describe --group billing\nkafka-log-dirs --describe\n```\n\n\
        ### Disk\n\nA full disk stops the broker.\n\n\
        ## Recover\n\nRestart the consumers one at a time.\n";

    #[test]
    fn markdown_splits_at_headings_and_keeps_code_blocks_whole() {
        let chunks = chunk(GUIDE, DocumentFormat::Markdown, options(110, 0));
        let texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "# Runbook\n\nWhat to do when the queue backs up.",
                "## Diagnose\n\nCheck the consumer lag first. Then look at the broker's disk.",
                "```sh\nkafka-consumer-groups --describe --group billing\nkafka-log-dirs --describe\n```",
                "### Disk\n\nA full disk stops the broker.",
                "## Recover\n\nRestart the consumers one at a time.",
            ]
        );
        let paths: Vec<Vec<String>> = chunks.iter().map(|c| c.heading_path.clone()).collect();
        let path = |p: &[&str]| p.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            paths,
            [
                path(&["Runbook"]),
                path(&["Runbook", "Diagnose"]),
                path(&["Runbook", "Diagnose"]),
                path(&["Runbook", "Diagnose", "Disk"]),
                path(&["Runbook", "Recover"]),
            ]
        );
        for c in &chunks {
            assert_eq!(&GUIDE[c.start..c.start + c.text.len()], c.text, "offsets point at text");
        }
    }

    #[test]
    fn a_section_is_one_chunk_when_it_fits_and_no_chunk_spans_two() {
        let chunks = chunk(GUIDE, DocumentFormat::Markdown, ChunkOptions::default());
        let firsts: Vec<&str> = chunks.iter().map(|c| c.text.lines().next().unwrap()).collect();
        assert_eq!(firsts, ["# Runbook", "## Diagnose", "### Disk", "## Recover"]);
        assert!(chunks[1].text.contains("kafka-log-dirs"), "{:?}", chunks[1]);
    }

    #[test]
    fn a_heading_with_nothing_under_it_joins_the_next_section() {
        let text = "# Guide

## Install

Run the installer.
";
        let chunks = chunk(text, DocumentFormat::Markdown, ChunkOptions::default());
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].text, text.trim_end());
        assert_eq!(chunks[0].heading_path, ["Guide"]);
    }

    #[test]
    fn a_long_paragraph_is_split_with_overlap() {
        let sentence = "The quick brown fox jumps over the lazy dog near the river bank. ";
        let text = sentence.repeat(12);
        let chunks = chunk(&text, DocumentFormat::Text, options(200, 80));
        assert!(chunks.len() > 3, "{chunks:?}");
        for pair in chunks.windows(2) {
            assert!(pair[0].text.chars().count() <= 200);
            let previous_end = pair[0].start + pair[0].text.len();
            assert!(pair[1].start < previous_end, "chunks overlap: {pair:?}");
        }
    }

    #[test]
    fn plain_text_splits_at_blank_lines_and_has_no_headings() {
        let text = "# not a heading in plain text\n\nFirst paragraph.\n\nSecond paragraph.";
        let chunks = chunk(text, DocumentFormat::Text, options(50, 0));
        assert_eq!(chunks.len(), 2);
        assert!(chunks.iter().all(|c| c.heading_path.is_empty()));
    }

    #[test]
    fn blank_documents_have_no_chunks() {
        assert!(chunk(" \n\n\t\n", DocumentFormat::Markdown, ChunkOptions::default()).is_empty());
    }

    #[test]
    fn options_out_of_range_are_validation_errors() {
        for bad in [ChunkOptions { size: 10, overlap: 0 }, ChunkOptions { size: 100, overlap: 51 }]
        {
            let err = bad.checked().unwrap_err();
            assert_eq!(err.category(), crate::Category::Validation, "{err}");
        }
    }

    #[test]
    fn formats_follow_the_file_name() {
        assert_eq!(DocumentFormat::of_file_name("notes/Guide.MD"), DocumentFormat::Markdown);
        assert_eq!(DocumentFormat::of_file_name("README"), DocumentFormat::Text);
        assert_eq!(DocumentFormat::of_file_name("log.txt"), DocumentFormat::Text);
    }
}
