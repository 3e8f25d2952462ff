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
//! kind: decision                      type, `relates_to` its related ids, `deleted_at` marks
//! ...                                 a memory in the trash
//! ---
//! ## Context
//! ...
//!
//! ---
//! type: decisions
//! ...
//! ```
//!
//! A block starts at a `---` line followed by a `type:` line; content that would contain such a
//! pair is refused, so every note memcore writes splits back exactly. Blocks memcore does not
//! change are written back byte for byte, so a block that fails to parse is never lost.

use serde_yaml::{Mapping, Value};

use crate::format::frontmatter::{
    ParseError, ParseResult, format_timestamp, memory_from_mapping, memory_mapping, parse_mapping,
    parse_timestamp, yaml_text,
};
use crate::{Collection, Error, Memory, MemoryId, Result, Timestamp};

/// Keys the note format gives a meaning, which custom metadata may therefore not use.
pub(crate) const RESERVED_KEYS: [&str; 4] = ["kind", "timestamp", "relates_to", "deleted_at"];

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

/// A note split into blocks, each kept as written and as parsed.
#[derive(Debug, Clone, Default)]
pub(crate) struct Note {
    /// The text of each block, without the blank line that separates it from the next.
    pub(crate) blocks: Vec<String>,
    /// Each block parsed; a failure says what is wrong and on which line of the note.
    pub(crate) entries: Vec<ParseResult<Entry>>,
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
        let blocks = split_blocks(text);
        let entries = blocks
            .iter()
            .enumerate()
            .map(|(index, (line, block))| {
                parse_block(block, *line, namespace, &locator(index), default_time)
            })
            .collect();
        Self { blocks: blocks.into_iter().map(|(_, block)| block).collect(), entries }
    }

    /// The note's text: the blocks joined by blank lines.
    pub(crate) fn text(&self) -> String {
        self.blocks.join("\n")
    }

    /// Replaces the block at `index` (or appends when `index` is the length) with `entry`.
    pub(crate) fn set(&mut self, index: usize, entry: Entry) {
        let block = write_block(&entry);
        if index < self.blocks.len() {
            self.blocks[index] = block;
            self.entries[index] = Ok(entry);
        } else {
            self.blocks.push(block);
            self.entries.push(Ok(entry));
        }
    }
}

/// How many memories a note's text holds.
pub(crate) fn block_count(text: &str) -> usize {
    split_blocks(text).len()
}

/// Whether `line` and the one after it open a block.
fn opens_block(line: &str, next: Option<&str>) -> bool {
    line.trim_end() == "---" && next.is_some_and(|next| next.starts_with("type:"))
}

/// Splits a note at block starts: (1-based line of the opening `---`, block text without the
/// separating blank line).
fn split_blocks(text: &str) -> Vec<(usize, String)> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let opens = |i: usize| opens_block(lines[i], lines.get(i + 1).map(|l| l.trim_end()));
    // Walk the note: an opener starts a block whose frontmatter runs to its closing `---`;
    // only after that line may the next opener be found (so a body starting with `type:`
    // right under the closing line stays in its block).
    let mut starts = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !opens(i) {
            i += 1;
            continue;
        }
        starts.push(i);
        i += 2;
        while i < lines.len() && lines[i].trim_end() != "---" {
            i += 1;
        }
        i += 1;
    }
    if starts.first() != Some(&0) {
        // Text before the first block (a hand-written note) is a block of its own, which
        // fails to parse with a clear message rather than vanishing.
        starts.insert(0, 0);
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

/// Parses one block starting on `line` of its note.
fn parse_block(
    block: &str,
    line: usize,
    namespace: &Collection,
    locator: &MemoryId,
    default_time: &dyn Fn() -> Timestamp,
) -> ParseResult<Entry> {
    let shifted = |e: ParseError| ParseError::at(e.line.map(|l| l + line - 1), e.message);
    let Some(rest) = block.strip_prefix("---\n") else {
        return Err(ParseError::at(
            Some(line),
            "expected a memory block: a '---' line, YAML starting with `type:`, a '---' line",
        ));
    };
    let Some((yaml, body)) = split_frontmatter(rest) else {
        return Err(ParseError::at(Some(line), "the block's frontmatter is never closed"));
    };
    let mut mapping = parse_mapping(yaml, 2).map_err(shifted)?;
    let mut take = |key: &str| mapping.remove(key);
    let key = take("id");
    let deleted_at = take("deleted_at");
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
    // A block written by memcore ends in exactly one newline after its body; notes written by
    // other tools put a blank line after the frontmatter and may not keep whitespace.
    let body = body.strip_suffix('\n').unwrap_or(body);
    let body = if own_key.is_some() { body } else { body.trim_matches('\n') };
    let memory =
        memory_from_mapping(mapping, body, namespace, locator, default_time()).map_err(shifted)?;
    let key = match own_key {
        Some(key) => MemoryId::new(key)
            .map_err(|e| ParseError::at(Some(line + 1), format!("invalid `id`: {e}")))?,
        None => MemoryId::generate(memory.summary.as_deref(), &memory.content),
    };
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

/// Writes one block: seed 002's keys first, then memcore's.
fn write_block(entry: &Entry) -> String {
    let memory = &entry.memory;
    let mut fields = memory_mapping(memory);
    let mut out = Mapping::new();
    out.insert("type".into(), memory.collection.as_str().into());
    out.insert("timestamp".into(), format_timestamp(&memory.created_at).into());
    if let Some(summary) = fields.remove("summary") {
        out.insert("summary".into(), summary);
    }
    out.insert("id".into(), entry.key.as_str().into());
    for drop in ["id", "collection", "created_at"] {
        fields.remove(drop);
    }
    for (key, value) in fields {
        let key = match key.as_str() {
            Some("type") => Value::from("kind"),
            Some("related_to") => Value::from("relates_to"),
            _ => key,
        };
        out.insert(key, value);
    }
    if let Some(deleted_at) = &entry.deleted_at {
        out.insert("deleted_at".into(), format_timestamp(deleted_at).into());
    }
    format!("---\n{}---\n{}\n", yaml_text(&out), memory.content)
}

/// Checks that `memory` can be written as a block that splits back exactly: its content opens
/// no block and its metadata uses no key the note format reserves.
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
    let lines: Vec<&str> = memory.content.lines().collect();
    if let Some(n) = (0..lines.len()).find(|&i| opens_block(lines[i], lines.get(i + 1).copied())) {
        return Err(Error::validation(
            format!(
                "content line {} is a '---' line followed by `type:`, which would start a new \
                 memory in a git note",
                n + 1
            ),
            "change that '---' line (e.g. to '***') or the `type:` line after it",
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
        let err = parsed.entries[1].as_ref().unwrap_err();
        assert!(err.line.is_some_and(|l| l >= 6), "{err:?}");
        parsed.set(2, entry("third", "c", 2));
        let again = reparse(&parsed);
        assert_eq!(again.blocks[1], broken);
        assert!(again.entries[2].is_ok());
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
        let mut sneaky = entry("text\n---\ntype: x\n", "k", 0).memory;
        assert!(check_writable(&sneaky).is_err());
        sneaky.content = "fine".into();
        sneaky.metadata.insert("deleted_at".into(), serde_json::json!(1));
        assert!(check_writable(&sneaky).is_err());
    }
}
