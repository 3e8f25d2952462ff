//! The words around a match (seed 002's context extraction, seed 001's anchor context), the
//! sentence holding it, and the cleaning that turns text into a one-line summary.
//!
//! Windows are counted in characters, so any UTF-8 text is cut on character boundaries.

use std::ops::Range;

/// Marks where a context was cut.
pub(crate) const ELLIPSIS: &str = "...";

/// The context of a match: byte offsets of its words in the text, and whether it was cut.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Window {
    /// The context's bytes in the text, trimmed of white space.
    range: Range<usize>,
    /// Whether text before it was left out.
    cut_before: bool,
    /// Whether text after it was left out.
    cut_after: bool,
}

impl Window {
    /// The context's words, without the marks of a cut.
    pub(crate) fn words<'t>(&self, text: &'t str) -> &'t str {
        &text[self.range.clone()]
    }

    /// The context's bytes in the text.
    pub(crate) fn range(&self) -> Range<usize> {
        self.range.clone()
    }

    /// The context as shown: its words, with `...` where text was left out.
    pub(crate) fn render(&self, text: &str) -> String {
        let before = if self.cut_before { ELLIPSIS } else { "" };
        let after = if self.cut_after { ELLIPSIS } else { "" };
        format!("{before}{}{after}", self.words(text))
    }
}

/// The context of the match at `found` in `text`: up to `window` characters either side,
/// widened to no word it cuts in half but shrunk to whole words (never past the match), with
/// the white space at its ends trimmed.
pub(crate) fn extract(text: &str, found: Range<usize>, window: usize) -> Window {
    let start = back_chars(text, found.start, window);
    let end = forward_chars(text, found.end, window);
    // A cut inside a word moves to the word's end (before) or start (after), but not into
    // the match itself.
    let start = if start > 0 && !boundary_before(text, start) {
        text[start..found.start].find(char::is_whitespace).map_or(found.start, |at| start + at)
    } else {
        start
    };
    let end = if end < text.len() && !boundary_before(text, end) {
        text[found.end..end].rfind(char::is_whitespace).map_or(found.end, |at| found.end + at)
    } else {
        end
    };
    let slice = &text[start..end];
    let trimmed_start = start + (slice.len() - slice.trim_start().len());
    let trimmed_end = end - (slice.len() - slice.trim_end().len());
    let range = trimmed_start.min(trimmed_end)..trimmed_end;
    Window { cut_before: start > 0, cut_after: end < text.len(), range }
}

/// Whether the characters either side of byte `at` (a char boundary) are not both part of a
/// word.
fn boundary_before(text: &str, at: usize) -> bool {
    let before = text[..at].chars().next_back();
    let after = text[at..].chars().next();
    match (before, after) {
        (Some(b), Some(a)) => b.is_whitespace() || a.is_whitespace(),
        _ => true,
    }
}

/// The byte offset `count` characters before `from` (or 0).
fn back_chars(text: &str, from: usize, count: usize) -> usize {
    match count.checked_sub(1) {
        None => from,
        Some(last) => text[..from].char_indices().rev().nth(last).map_or(0, |(at, _)| at),
    }
}

/// The byte offset `count` characters after `from` (or the end).
fn forward_chars(text: &str, from: usize, count: usize) -> usize {
    text[from..].char_indices().nth(count).map_or(text.len(), |(at, _)| from + at)
}

/// The sentence of `text` holding byte range `found`: from after the sentence end (`.`, `!`,
/// `?` before white space, or a line break) before it to the next one after it, inclusive.
pub(crate) fn sentence_around(text: &str, found: Range<usize>) -> &str {
    let is_end = |at: usize, c: char| {
        c == '\n'
            || (matches!(c, '.' | '!' | '?')
                && text[at + c.len_utf8()..].chars().next().is_none_or(char::is_whitespace))
    };
    let start = text[..found.start]
        .char_indices()
        .rev()
        .find(|&(at, c)| is_end(at, c))
        .map_or(0, |(at, c)| at + c.len_utf8());
    let end = text[found.end..]
        .char_indices()
        .find(|&(at, c)| is_end(found.end + at, c))
        .map_or(text.len(), |(at, c)| found.end + at + if c == '\n' { 0 } else { c.len_utf8() });
    text[start..end].trim()
}

/// `text` as one line: white space collapsed, the marks of a cut at its ends and markdown
/// emphasis (`*`, `` ` ``, `#`, `>` around words) removed, at most `max_chars` characters (cut at a word where one is near, with `...`).
pub(crate) fn one_line(text: &str, max_chars: usize) -> String {
    let trimmed = text.trim();
    let trimmed = trimmed.strip_prefix(ELLIPSIS).unwrap_or(trimmed);
    let cleaned = trimmed.strip_suffix(ELLIPSIS).unwrap_or(trimmed);
    let words: Vec<&str> = cleaned
        .split_whitespace()
        .map(|word| word.trim_matches(|c| matches!(c, '*' | '`' | '#' | '>')))
        .filter(|word| !word.is_empty())
        .collect();
    let line = words.join(" ");
    shorten(&line, max_chars)
}

/// `line` cut to at most `max_chars` characters, at the last word boundary in its second
/// half if there is one, with `...` when cut.
pub(crate) fn shorten(line: &str, max_chars: usize) -> String {
    if line.chars().count() <= max_chars {
        return line.to_owned();
    }
    if max_chars <= ELLIPSIS.len() {
        return line.chars().take(max_chars).collect();
    }
    let keep = max_chars.saturating_sub(ELLIPSIS.len());
    let cut = line.char_indices().nth(keep).map_or(line.len(), |(at, _)| at);
    let head = &line[..cut];
    let head = match head.rfind(' ') {
        Some(space) if head[..space].chars().count() * 2 >= keep => &head[..space],
        _ => head,
    };
    format!("{}{ELLIPSIS}", head.trim_end_matches([' ', ',', ';', ':']))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(text: &str, needle: &str, window: usize) -> String {
        let at = text.find(needle).unwrap_or(0);
        extract(text, at..at + needle.len(), window).render(text)
    }

    #[test]
    fn short_texts_are_whole() {
        assert_eq!(context("We decided to ship.", "decided", 100), "We decided to ship.");
    }

    #[test]
    fn cuts_align_to_words_with_ellipses() {
        let text = "alpha bravo charlie delta echo foxtrot golf hotel";
        assert_eq!(context(text, "delta", 8), "...charlie delta echo...");
        assert_eq!(context(text, "delta", 0), "...delta...");
    }

    #[test]
    fn any_utf8_is_cut_on_character_boundaries() {
        let text = "ééééé ñññññ we decided to 日本語のテキスト ok";
        for window in 0..12 {
            let rendered = context(text, "we decided to", window);
            assert!(rendered.contains("we decided to"), "{rendered}");
        }
    }

    #[test]
    fn the_sentence_around_a_match() {
        let text = "We tried Redis. Then we decided to use Postgres! It works.\nNext line";
        let at = text.find("decided").unwrap_or(0);
        assert_eq!(sentence_around(text, at..at + 7), "Then we decided to use Postgres!");
        assert_eq!(sentence_around("v1.2 is out, we decided", 16..23), "v1.2 is out, we decided");
    }

    #[test]
    fn one_line_cleans_and_shortens() {
        assert_eq!(one_line("...the **fix**\n was  `easy`...", 200), "the fix was easy");
        let long = "word ".repeat(60);
        let line = one_line(&long, 50);
        assert!(line.chars().count() <= 50 && line.ends_with("word..."), "{line}");
    }
}
