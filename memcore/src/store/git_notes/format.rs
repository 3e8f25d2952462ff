//! The note format of seed 002: each memory is a block of YAML frontmatter and a markdown body;
//! a note holds one or more blocks, one after another.
//!
//! ```text
//! ---
//! type: decisions                     the namespace
//! timestamp: 2024-01-15T10:30:00Z     when the memory was created
//! summary: Use PostgreSQL for persistence
//! id: use-postgresql                  memcore: the memory's own id, unique in the namespace
//! title: ...                          memcore: every other field of a memory; `kind` is its
//! kind: decision                      type, `relates_to` its related ids; a deleted memory is
//! ...                                 `status: tombstone` with memcore's `deleted_at`
//! ---
//! ## Context
//! ...
//!
//! ---
//! type: decisions
//! ...
//! ```
//!
//! Blocks are found as the reference implementation (`git-notes-memory`) finds them: every line
//! that is `---` once stripped of whitespace toggles between frontmatter and body, and a `---`
//! line met in a body opens the next block, whatever its first key is. So that a markdown rule
//! in the content does not split its memory, memcore writes every content line that would
//! toggle (`---`, whitespace around it allowed) with a backslash in front, and every line that
//! already is backslashes then such a line with one backslash more; reading takes one
//! backslash off again ([`escape_content`], [`unescape_content`]).
//!
//! Memories are numbered as the reference numbers them: a block counts when its YAML parses
//! to a mapping with a `type`; a block that does not (broken YAML, text before the first
//! block) takes no index, is reported as damaged, and is written back byte for byte, as is
//! every block memcore does not change.

use std::collections::HashMap;

use serde_yaml::{Mapping, Value};

use crate::format::frontmatter::{
    ParseError, ParseResult, format_timestamp, memory_from_mapping, memory_mapping, parse_mapping,
    parse_timestamp, yaml_text,
};
use crate::{Collection, Error, Memory, MemoryId, Result, Status, Timestamp};

/// Keys the note format gives a meaning, which custom metadata may therefore not use.
pub(crate) const RESERVED_KEYS: [&str; 5] =
    ["kind", "timestamp", "relates_to", "deleted_at", "status_before_delete"];

/// One memory of a note, parsed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// The memory's own id (`id:`), unique among the live memories of a namespace.
    pub(crate) key: MemoryId,
    /// The memory; its `id` is the positional `namespace:sha:index`.
    pub(crate) memory: Memory,
    /// When the memory was moved to the trash, if it was.
    pub(crate) deleted_at: Option<Timestamp>,
}

/// A note split into blocks, each kept as written, and its memories parsed.
#[derive(Debug, Clone, Default)]
pub(crate) struct Note {
    /// The text of each block, without the blank line that separates it from the next.
    pub(crate) blocks: Vec<String>,
    /// The memories, in index order: each block that counts, parsed; a failure says what is
    /// wrong and on which line of the note.
    pub(crate) entries: Vec<ParseResult<Entry>>,
    /// For each memory index, the block holding it.
    slots: Vec<usize>,
    /// The blocks that count as no memory (they do not parse), with what is wrong.
    pub(crate) uncounted: Vec<ParseError>,
}

impl Note {
    /// Splits and parses the text of a note of `namespace`; `locator` names the memory at each
    /// index, `default_time` stands in for a missing timestamp.
    pub(crate) fn parse(
        text: &str,
        namespace: &Collection,
        locator: &dyn Fn(usize) -> MemoryId,
        default_time: &dyn Fn() -> Timestamp,
    ) -> Self {
        let mut note = Self::default();
        for (line, block) in split_blocks(text) {
            match frontmatter_of(&block, line) {
                Ok(raw) => {
                    let index = note.entries.len();
                    let entry = parse_block(raw, line, namespace, &locator(index), default_time);
                    note.entries.push(entry);
                    note.slots.push(note.blocks.len());
                }
                Err(e) => note.uncounted.push(e),
            }
            note.blocks.push(block);
        }
        note
    }

    /// The note's text: the blocks joined by blank lines.
    pub(crate) fn text(&self) -> String {
        self.blocks.join("\n")
    }

    /// The index the next appended memory gets. A last block whose frontmatter was never
    /// closed (a markdown rule in a body another tool wrote) is closed first, so that the new
    /// block's opening line cannot close it instead; if closing it makes it a memory, it takes
    /// the next index (it reads back as one).
    pub(crate) fn prepare_append(&mut self) -> usize {
        let count = self.entries.len();
        let Some(last) = self.blocks.last_mut() else { return count };
        if !ends_in_frontmatter(last) {
            return count;
        }
        if !last.ends_with('\n') {
            last.push('\n');
        }
        last.push_str("---\n");
        if frontmatter_of(last, 1).is_ok() {
            self.uncounted.pop();
            self.slots.push(self.blocks.len() - 1);
            self.entries.push(Err(ParseError::at(None, "a block closed by memcore")));
        }
        self.entries.len()
    }

    /// Replaces the memory at `index`, or appends it when `index` is the count (after
    /// [`Note::prepare_append`]), with `entry`.
    pub(crate) fn set(&mut self, index: usize, entry: Entry) {
        let block = write_block(&entry);
        match self.slots.get(index) {
            Some(&slot) => {
                self.blocks[slot] = block;
                self.entries[index] = Ok(entry);
            }
            None => {
                debug_assert!(self.blocks.last().is_none_or(|last| !ends_in_frontmatter(last)));
                self.slots.push(self.blocks.len());
                self.blocks.push(block);
                self.entries.push(Ok(entry));
            }
        }
    }

    /// Each block's identity and text, in order: what tells a block among the versions of a
    /// note on two clones (see [`identity`]), numbered (`#1`, `#2`, ...) among the note's
    /// blocks of the same identity so that it is unique. Computed on demand: only a merge
    /// needs it.
    pub(crate) fn identified(&self) -> Vec<(String, &str)> {
        let mut seen: HashMap<String, usize> = HashMap::new();
        self.blocks
            .iter()
            .enumerate()
            .map(|(position, block)| {
                let entry =
                    self.memory_index_at(position).and_then(|i| self.entries[i].as_ref().ok());
                let base = match entry {
                    Some(entry) => format!("key:{}", entry.key),
                    None => identity(
                        frontmatter_of(block, 1).ok().map(|(mapping, _)| mapping).as_ref(),
                        block,
                    ),
                };
                let n = seen.entry(base.clone()).or_default();
                *n += 1;
                (format!("{base}#{n}"), block.as_str())
            })
            .collect()
    }

    /// The memory index of the block at `position`, if that block counts as a memory.
    pub(crate) fn memory_index_at(&self, position: usize) -> Option<usize> {
        self.slots.iter().position(|&slot| slot == position)
    }

    /// When the memory of the block at `position` last changed (updated or deleted).
    pub(crate) fn changed_at(&self, position: usize) -> Option<Timestamp> {
        let entry = self.entries.get(self.memory_index_at(position)?)?.as_ref().ok()?;
        Some(entry.deleted_at.map_or(entry.memory.updated_at, |d| d.max(entry.memory.updated_at)))
    }

    /// Whether `other` reads back as this note: the same memories (own ids) at the same
    /// indexes. A write checks this before anything is written.
    pub(crate) fn reads_back_as(&self, other: &Note) -> bool {
        let keys = |note: &Note| -> Vec<Option<MemoryId>> {
            note.entries.iter().map(|e| e.as_ref().ok().map(|e| e.key.clone())).collect()
        };
        let (ours, theirs) = (keys(self), keys(other));
        ours.len() == theirs.len() && ours.iter().zip(&theirs).all(|(a, b)| a.is_none() || a == b)
    }
}

/// What a block is when it holds no readable memory: its own id, else its timestamp and
/// summary, else its text. (A readable memory is its own id, derived from its summary when the
/// block has none, which every rewrite by memcore keeps.)
fn identity(frontmatter: Option<&Mapping>, block: &str) -> String {
    let field = |key: &str| frontmatter.and_then(|m| m.get(key));
    match (field("id"), field("timestamp"), field("summary")) {
        (Some(Value::String(key)), _, _) => format!("key:{key}"),
        (_, Some(at), Some(summary)) => format!("at:{at:?} {summary:?}"),
        _ => format!("text:{}", py_strip(block)),
    }
}

/// Whether `text` ends inside a frontmatter: its `---` lines toggle, as the reference reads
/// them, and the last one opened a frontmatter that nothing closed.
pub(crate) fn ends_in_frontmatter(text: &str) -> bool {
    text.split_inclusive('\n').filter(|line| is_delimiter(line)).count() % 2 == 1
}

/// How many memories a note's text holds.
pub(crate) fn memory_count(text: &str) -> usize {
    split_blocks(text).iter().filter(|(line, block)| frontmatter_of(block, *line).is_ok()).count()
}

/// Python's `str.strip()`, which the reference applies to lines: Unicode whitespace and the
/// four ASCII separators (0x1C-0x1F) that Python also counts as space.
fn py_strip(line: &str) -> &str {
    line.trim_matches(|c: char| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

/// Whether `line` toggles between frontmatter and body (`---`, whitespace around it allowed).
fn is_delimiter(line: &str) -> bool {
    py_strip(line) == "---"
}

/// For a line that is `k` backslashes then a delimiter line, `k`.
fn escape_level(line: &str) -> Option<usize> {
    let rest = line.trim_start_matches('\\');
    is_delimiter(rest).then(|| line.len() - rest.len())
}

/// The lines of content as the reference reads them: git's output decoded with universal
/// newlines, so a lone carriage return ends a line too.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive(['\n', '\r'])
}

/// Content as it is written in a note: every line that is backslashes (maybe none) then a
/// delimiter line gets one backslash more, so no content line splits a memory.
pub(crate) fn escape_content(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    for line in lines(content) {
        if escape_level(line).is_some() {
            out.push('\\');
        }
        out.push_str(line);
    }
    out
}

/// Content as written in a note, back as it was given: [`escape_content`] undone.
pub(crate) fn unescape_content(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    for line in lines(body) {
        match escape_level(line) {
            Some(level) if level > 0 => out.push_str(&line[1..]),
            _ => out.push_str(line),
        }
    }
    out
}

/// Splits a note at block starts, as the reference does: (1-based line of the block's first
/// line, block text without the separating blank line). Text before the first block is a
/// block of its own (which does not parse) rather than vanishing.
fn split_blocks(text: &str) -> Vec<(usize, String)> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut starts = vec![0];
    let mut in_frontmatter = false;
    for (i, line) in lines.iter().enumerate() {
        if !is_delimiter(line) {
            continue;
        }
        if in_frontmatter {
            in_frontmatter = false;
        } else {
            in_frontmatter = true;
            if i > 0 {
                starts.push(i);
            }
        }
    }
    let mut blocks = Vec::with_capacity(starts.len());
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(lines.len());
        let mut block: String = lines[start..end].concat();
        if end < lines.len() && block.ends_with("\n\n") {
            block.pop(); // the blank line between blocks
        }
        blocks.push((start + 1, block));
    }
    blocks.retain(|(_, block)| !block.trim().is_empty());
    blocks
}

/// A block's frontmatter, parsed, and its body, when the block counts as a memory: it opens
/// with a `---` line, its frontmatter is closed and parses to a mapping with a `type`.
fn frontmatter_of(block: &str, line: usize) -> ParseResult<(Mapping, &str)> {
    let opened = block.split_once('\n').filter(|(first, _)| is_delimiter(first));
    let Some((_, rest)) = opened else {
        return Err(ParseError::at(
            Some(line),
            "expected a memory block: a '---' line, YAML with a `type:` key, a '---' line",
        ));
    };
    let Some((yaml, body)) = split_frontmatter(rest) else {
        return Err(ParseError::at(Some(line), "the block's frontmatter is never closed"));
    };
    let mapping = parse_mapping(yaml, line + 1)?;
    match mapping.get("type") {
        None | Some(Value::Null) => {
            Err(ParseError::at(Some(line), "the block has no `type:` (its namespace)"))
        }
        Some(Value::String(namespace)) if namespace.is_empty() => {
            Err(ParseError::at(Some(line), "the block's `type:` is empty"))
        }
        Some(_) => Ok((mapping, body)),
    }
}

/// Parses the memory of a block starting on `line` of its note, from its frontmatter and body
/// as [`frontmatter_of`] found them.
fn parse_block(
    (mut mapping, body): (Mapping, &str),
    line: usize,
    namespace: &Collection,
    locator: &MemoryId,
    default_time: &dyn Fn() -> Timestamp,
) -> ParseResult<Entry> {
    let shifted = |e: ParseError| ParseError::at(e.line.map(|l| l + line - 1), e.message);
    let mut take = |key: &str| mapping.remove(key);
    let key = take("id");
    let deleted_at = take("deleted_at");
    let status_before_delete = take("status_before_delete");
    let _namespace = take("type");
    let kind = take("kind");
    let relates_to = take("relates_to");
    let timestamp = take("timestamp");
    let _collection = take("collection");
    let own_key = match &key {
        Some(Value::String(key)) => Some(key.clone()),
        _ => None,
    };
    if let Some(kind) = kind {
        mapping.insert("type".into(), kind);
    }
    if let Some(relates_to) = relates_to {
        mapping.insert("related_to".into(), relates_to);
    }
    if let Some(timestamp) = timestamp {
        mapping.insert("created_at".into(), timestamp);
    }
    let deleted_at = match deleted_at {
        None | Some(Value::Null) => None,
        Some(Value::String(raw)) => Some(parse_timestamp(&raw).ok_or_else(|| {
            ParseError::at(Some(line), format!("`deleted_at` is not a time: {raw:?}"))
        })?),
        Some(other) => {
            return Err(ParseError::at(
                Some(line),
                format!("`deleted_at` is not a time: {other:?}"),
            ));
        }
    };
    if deleted_at.is_some() {
        // In the trash the block says `status: tombstone` (what the reference understands);
        // the memory keeps the status it had, which restoring brings back.
        mapping.insert("status".into(), status_before_delete.unwrap_or("active".into()));
    }
    // A block written by memcore ends in exactly one newline after its body; notes written by
    // other tools put a blank line after the frontmatter and may not keep whitespace.
    let body = body.strip_suffix('\n').unwrap_or(body);
    let body = if own_key.is_some() { body } else { body.trim_matches('\n') };
    let memory =
        memory_from_mapping(mapping, &unescape_content(body), namespace, locator, default_time())
            .map_err(shifted)?;
    let key = match own_key {
        Some(key) => MemoryId::new(key)
            .map_err(|e| ParseError::at(Some(line + 1), format!("invalid `id`: {e}")))?,
        None => MemoryId::generate(memory.summary.as_deref(), &memory.content),
    };
    Ok(Entry { key, memory, deleted_at })
}

/// Splits `---`-less frontmatter from the body at the closing `---` line.
fn split_frontmatter(rest: &str) -> Option<(&str, &str)> {
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Some((&rest[..offset], &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    None
}

/// Writes one block: seed 002's keys first, then memcore's, then the escaped content.
fn write_block(entry: &Entry) -> String {
    let frontmatter = frontmatter(&entry.memory, &entry.key, entry.deleted_at.as_ref());
    format!("---\n{}---\n{}\n", yaml_text(&frontmatter), escape_content(&entry.memory.content))
}

/// The frontmatter of a block: seed 002's keys (`type`, `timestamp`, `summary`), the own id,
/// then memcore's; a title that only repeats the summary is left out (reading falls back to
/// the summary). A deleted memory is `status: tombstone` with its `deleted_at` and, unless it
/// was active, the status restoring brings back.
fn frontmatter(memory: &Memory, key: &MemoryId, deleted_at: Option<&Timestamp>) -> Mapping {
    let mut fields = memory_mapping(memory);
    let mut out = Mapping::new();
    out.insert("type".into(), memory.collection.as_str().into());
    out.insert("timestamp".into(), format_timestamp(&memory.created_at).into());
    if let Some(summary) = fields.remove("summary") {
        out.insert("summary".into(), summary);
    }
    out.insert("id".into(), key.as_str().into());
    for drop in ["id", "collection", "created_at"] {
        fields.remove(drop);
    }
    if memory.summary.as_ref() == Some(&memory.title) {
        fields.remove("title");
    }
    for (key, value) in fields {
        let key = match key.as_str() {
            Some("type") => Value::from("kind"),
            Some("related_to") => Value::from("relates_to"),
            _ => key,
        };
        out.insert(key, value);
    }
    if let Some(deleted_at) = deleted_at {
        out.insert("status".into(), Status::Tombstone.as_str().into());
        out.insert("deleted_at".into(), format_timestamp(deleted_at).into());
        if memory.status != Status::Active {
            out.insert("status_before_delete".into(), memory.status.as_str().into());
        }
    }
    out
}

/// Checks that `memory` can be written as a block that splits back exactly: its metadata uses
/// no key the note format reserves and no line of its frontmatter would end the frontmatter.
/// (Content lines never split a block: they are escaped.)
pub(crate) fn check_writable(memory: &Memory) -> Result<()> {
    if let Some(key) = memory.metadata.keys().find(|k| RESERVED_KEYS.contains(&k.as_str())) {
        return Err(Error::validation(
            format!("metadata key `{key}` is reserved by the git-notes format"),
            format!("rename the key; reserved: {}", RESERVED_KEYS.join(", ")),
        ));
    }
    if memory.content.contains('\0') {
        return Err(Error::validation(
            "the content contains a NUL byte, which a git note cannot hold",
            "remove the NUL bytes, or keep this memory in a file store",
        ));
    }
    let yaml = yaml_text(&frontmatter(memory, &memory.id, None));
    if yaml.lines().any(is_delimiter) {
        return Err(Error::validation(
            "a field other than the content has a line that is only '---', which would end \
             the memory's frontmatter in a git note",
            "change that line of the title, summary, context or metadata value (e.g. to '***')",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Limits, NewMemory};

    fn namespace() -> Collection {
        "decisions".parse().unwrap()
    }

    fn locator(index: usize) -> MemoryId {
        MemoryId::new(format!("decisions:abc1234:{index}")).unwrap()
    }

    fn epoch() -> Timestamp {
        Timestamp::from_timestamp(0, 0).unwrap()
    }

    fn entry(content: &str, key: &str, index: usize) -> Entry {
        let mut memory = NewMemory::new(content)
            .summary("a summary")
            .kind("decision")
            .related_to(["learnings:abc:0"])
            .tags(["x"])
            .into_memory(&namespace(), &Limits::default(), crate::now())
            .unwrap();
        memory.id = locator(index);
        Entry { key: key.parse().unwrap(), memory, deleted_at: None }
    }

    fn reparse(note: &Note) -> Note {
        Note::parse(&note.text(), &namespace(), &locator, &epoch)
    }

    #[test]
    fn blocks_round_trip_exactly() {
        let mut note = Note::default();
        let contents = [
            "no newline",
            "one newline\n",
            "blank lines\n\n\n",
            "# H\n\n---\n\nrule",
            "type: object\nproperties: {}\n",
            "---\ntitle: not frontmatter\n---\n",
        ];
        for (i, content) in contents.iter().enumerate() {
            note.set(i, entry(content, &format!("k{i}"), i));
        }
        let again = reparse(&note);
        assert_eq!(again.blocks, note.blocks);
        for (a, b) in again.entries.iter().zip(&note.entries) {
            assert_eq!(a.as_ref().unwrap(), b.as_ref().unwrap());
        }
        let text = note.text();
        assert!(text.starts_with("---\ntype: decisions\ntimestamp: "), "{text}");
        assert!(text.contains("\nkind: decision\n") && text.contains("\nrelates_to:\n"));
    }

    #[test]
    fn a_broken_block_fails_alone_and_survives_rewrites() {
        let mut note = Note::default();
        note.set(0, entry("first", "a", 0));
        let broken = "---\ntype: decisions\nsummary: [unclosed\n---\nbody\n";
        let text = format!("{}\n{broken}", note.text());
        let mut parsed = Note::parse(&text, &namespace(), &locator, &epoch);
        assert!(parsed.entries[0].is_ok());
        let err = &parsed.uncounted[0];
        assert!(err.line.is_some_and(|l| l >= 6), "{err:?}");
        parsed.set(1, entry("second", "c", 1));
        let again = reparse(&parsed);
        assert_eq!(again.blocks[1], broken);
        assert_eq!(again.entries[1].as_ref().unwrap().memory.content, "second");
    }

    #[test]
    fn reads_notes_written_by_the_seed_tool() {
        let text = "---\ntype: decisions\ntimestamp: 2024-01-15T10:30:00+00:00\nsummary: Use \
                    PostgreSQL\ntags:\n  - database\nrelates_to:\n  - blockers:abc123:0\n---\n\n\
                    ## Context\n\nWe needed a database.\n\n---\ntype: decisions\ntimestamp: \
                    2024-01-15T11:00:00Z\nsummary: Second\n---\n\nMore.\n";
        let note = Note::parse(text, &namespace(), &locator, &epoch);
        assert_eq!(note.entries.len(), 2);
        let first = note.entries[0].as_ref().unwrap();
        assert_eq!(first.memory.content, "## Context\n\nWe needed a database.");
        assert_eq!(first.memory.related_to, ["blockers:abc123:0"]);
        assert_eq!(first.memory.summary.as_deref(), Some("Use PostgreSQL"));
        assert_eq!(first.memory.created_at.to_rfc3339(), "2024-01-15T10:30:00+00:00");
        assert_eq!(note.entries[1].as_ref().unwrap().memory.content, "More.");
    }

    #[test]
    fn unwritable_memories_are_refused() {
        let mut sneaky = entry("fine", "k", 0).memory;
        sneaky.metadata.insert("deleted_at".into(), serde_json::json!(1));
        assert!(check_writable(&sneaky).is_err());
        sneaky.metadata.clear();
        sneaky.context = Some("line\n---\nmore".into());
        let err = check_writable(&sneaky).unwrap_err().to_string();
        assert!(err.contains("'---'"), "{err}");
        sneaky.context = None;
        sneaky.content = "text\n---\ntype: x\n---\n".into();
        assert!(check_writable(&sneaky).is_ok(), "content lines are escaped, never refused");
    }

    #[test]
    fn content_escaping_is_reversible_and_leaves_no_delimiter_line() {
        let contents = [
            "---",
            "a\n---\nb",
            "  ---  \r\n\\---\n\\\\ ---\n",
            "\\--- is not a rule\n-- -\n----\n",
            "no rules at all",
        ];
        for content in contents {
            let escaped = escape_content(content);
            assert!(!escaped.lines().any(is_delimiter), "{escaped:?}");
            assert_eq!(unescape_content(&escaped), content);
        }
        assert_eq!(escape_content("a\n---\n\\---"), "a\n\\---\n\\\\---");
    }

    #[test]
    fn blocks_start_at_any_opening_rule_as_the_reference_splits_them() {
        // The second block opens with `summary:`, the third with a YAML comment; a markdown
        // rule in a body written by another tool starts a block that does not parse.
        let text = "---\ntype: decisions\nsummary: one\n---\n\nBody one.\n\n---\nsummary: \
                    two\ntype: decisions\n---\nBody two.\n\n---\n# a comment\ntype: decisions\n\
                    summary: three\n---\nBody three.\n";
        let note = Note::parse(text, &namespace(), &locator, &epoch);
        let summaries: Vec<_> = note
            .entries
            .iter()
            .map(|e| e.as_ref().unwrap().memory.summary.clone().unwrap())
            .collect();
        assert_eq!(summaries, ["one", "two", "three"]);
        assert_eq!(note.entries[1].as_ref().unwrap().memory.content, "Body two.");
        assert_eq!(note.text(), text);
    }

    #[test]
    fn blocks_that_do_not_parse_take_no_index() {
        let text = "---\ntype: decisions\nsummary: one\n---\nA\n\n---\ntype: decisions\n\
                    summary: [unclosed\n---\nB\n\n---\nsummary: no type\n---\nC\n\n---\n\
                    type: decisions\nsummary: four\n---\nD\n";
        let mut note = Note::parse(text, &namespace(), &locator, &epoch);
        assert_eq!(note.entries.len(), 2);
        assert_eq!(note.uncounted.len(), 2);
        let fourth = note.entries[1].as_ref().unwrap();
        assert_eq!(fourth.memory.summary.as_deref(), Some("four"));
        assert_eq!(fourth.memory.id, locator(1));
        assert_eq!(memory_count(text), 2);
        // Changing memory 1 rewrites its own block; the damaged ones stay as they were.
        note.set(1, entry("changed", "d", 1));
        let again = reparse(&note);
        assert_eq!(again.blocks[1..3], note.blocks[1..3]);
        assert_eq!(again.entries[1].as_ref().unwrap().memory.content, "changed");
        assert!(text.starts_with(&again.blocks[0]));
    }

    #[test]
    fn deleted_memories_are_tombstones_that_restore_their_status() {
        let mut deleted = entry("gone", "g", 0);
        deleted.memory.status = Status::Resolved;
        deleted.deleted_at = Some(epoch());
        let mut note = Note::default();
        note.set(0, deleted.clone());
        let text = note.text();
        assert!(text.contains("\nstatus: tombstone\n"), "{text}");
        assert!(text.contains("\nstatus_before_delete: resolved\n"), "{text}");
        assert_eq!(reparse(&note).entries[0].as_ref().unwrap(), &deleted);
    }

    #[test]
    fn a_title_that_repeats_the_summary_is_not_written_and_read_back_from_it() {
        let mut same = entry("text", "s", 0);
        same.memory.title = "a summary".into();
        let mut note = Note::default();
        note.set(0, same.clone());
        assert!(!note.text().contains("\ntitle:"), "{}", note.text());
        assert_eq!(reparse(&note).entries[0].as_ref().unwrap().memory.title, "a summary");
    }
    #[test]
    fn an_append_after_a_block_left_open_reads_back_where_it_was_put() {
        // Another tool's memory whose body had a markdown rule leaves an open block behind.
        let text = "---\ntype: decisions\nsummary: one\n---\n\nIntro\n\n---\n\nMore\n";
        let mut note = Note::parse(text, &namespace(), &locator, &epoch);
        assert_eq!((note.entries.len(), note.uncounted.len()), (1, 1));
        let index = note.prepare_append();
        assert_eq!(index, 1);
        note.set(index, entry("appended", "new", index));
        let again = reparse(&note);
        assert!(note.reads_back_as(&again));
        assert_eq!(again.entries[1].as_ref().unwrap().memory.content, "appended");
        assert!(again.text().contains("More\n---\n"), "{}", again.text());
        // A block that becomes a memory once closed takes the next index itself.
        let open =
            "---\ntype: decisions\nsummary: one\n---\nA\n\n---\ntype: decisions\nsummary: open\n";
        let mut note = Note::parse(open, &namespace(), &locator, &epoch);
        assert_eq!(note.prepare_append(), 2);
        note.set(2, entry("third", "third", 2));
        let again = reparse(&note);
        assert!(note.reads_back_as(&again));
        assert_eq!(again.entries[1].as_ref().unwrap().memory.summary.as_deref(), Some("open"));
    }

    #[test]
    fn identities_are_own_ids_and_unique_in_a_note() {
        let text = "---\ntype: decisions\nsummary: Same words\n---\nA\n\n---\ntype: decisions\n\
                    summary: Same words\n---\nB\n\n---\nnot: [yaml\n";
        let note = Note::parse(text, &namespace(), &locator, &epoch);
        let identified = note.identified();
        let ids: Vec<&str> = identified.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids[..2], ["key:same-words#1", "key:same-words#2"]);
        assert!(ids[2].starts_with("text:"), "{ids:?}");
        // A rewrite by memcore (which writes the derived own id) keeps the identity.
        let mut rewritten = note.clone();
        let first = note.entries[0].clone().unwrap();
        rewritten.set(0, Entry { deleted_at: Some(epoch()), ..first });
        let reread: Vec<String> =
            reparse(&rewritten).identified().into_iter().map(|(id, _)| id).collect();
        assert_eq!(reread[0], "key:same-words#1");
    }
}
