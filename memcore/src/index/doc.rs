//! What the derived indexes know of a memory: [`IndexDoc`] (text, filterable metadata and a
//! content hash) and [`DocFilter`], the filters every index can apply itself.

use std::collections::HashSet;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::{Memory, MemoryRef, Status, Timestamp};

/// A short hash of everything stored for a memory (every field, as JSON): equal hashes mean
/// the index entry is up to date. JSON rather than the file's own YAML text: serialising to
/// YAML cost as much as the rest of indexing a memory.
pub(crate) fn content_hash(memory: &Memory) -> String {
    let mut hasher = Sha256::new();
    // Writing a `Memory` (string keys, finite numbers) into a hasher cannot fail.
    let _ = serde_json::to_writer(&mut hasher, memory);
    crate::hex::hex(&hasher.finalize()[..8])
}

/// A vector the writer of a memory gave for it ([`crate::NewMemory::vector`]), if any.
pub(crate) type GivenVector = Option<Arc<[f32]>>;

/// The filterable metadata of a memory, as indexes keep it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct DocMeta {
    /// `collection/id`.
    pub(crate) key: MemoryRef,
    /// The collection.
    pub(crate) collection: String,
    /// The lifecycle status.
    pub(crate) status: Status,
    /// The type, if any.
    pub(crate) kind: Option<String>,
    /// The tags.
    pub(crate) tags: Vec<String>,
    /// Creation time.
    pub(crate) created_at: Timestamp,
    /// Last change.
    pub(crate) updated_at: Timestamp,
    /// [`content_hash`] of the memory.
    pub(crate) hash: String,
}

/// A memory as the text index takes it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IndexDoc {
    /// Key, metadata and hash.
    pub(crate) meta: DocMeta,
    /// The id alone (searchable as a term).
    pub(crate) id: String,
    /// The title (boosted in text search).
    pub(crate) title: String,
    /// Why the memory exists or what surrounds it (searched, with less weight).
    pub(crate) context: Option<String>,
    /// The one-line summary (searched like the content).
    pub(crate) summary: Option<String>,
    /// Who wrote it (`created_by`: a speaker, an agent), searched like the content.
    pub(crate) author: Option<String>,
    /// The markdown content.
    pub(crate) content: String,
    /// Whether the title only repeats other text: the content's first heading or line, or
    /// the summary (indexed and embedded already).
    pub(crate) title_repeats: bool,
    /// Whether the memory is pinned (`crate::decay::is_pinned`).
    pub(crate) pinned: bool,
    /// A conversation turn's place ([`Memory::turn_place`]) as one term: collection, session
    /// and turn number.
    pub(crate) turn_term: Option<String>,
    /// The turn before this one in its conversation, as [`turn_text`] gives it, when the
    /// indexer found it (`crate::indexed::conversation`): searched as context.
    pub(crate) previous_turn: Option<String>,
    /// The vector the writer gave for the memory (precomputed embeddings,
    /// [`crate::NewMemory::vector`]), taken instead of embedding [`IndexDoc::embedding_text`].
    pub(crate) given_vector: GivenVector,
}

/// The longest part of a turn, in characters, that the next turn is indexed with.
const TURN_CONTEXT_CHARS: usize = 1_000;

/// The term of turn `turn` of conversation `session` in `collection` (a unit separator
/// between the parts, which none of them is expected to hold).
pub(crate) fn turn_term(collection: &str, session: &str, turn: u64) -> String {
    format!("{collection}\u{1f}{session}\u{1f}{turn}")
}

/// The term of the turn `offset` turns after the turn whose term is `term` (before it for a
/// negative offset), if there is such a turn number.
pub(crate) fn shifted_turn_term(term: &str, offset: i64) -> Option<String> {
    let (conversation, turn) = term.rsplit_once('\u{1f}')?;
    let turn = turn.parse::<u64>().ok()?.checked_add_signed(offset)?;
    Some(format!("{conversation}\u{1f}{turn}"))
}

/// The terms of the turns `distance` before and after the turn whose term is `term`.
pub(crate) fn neighbour_terms(term: &str, distance: i64) -> Vec<String> {
    [-distance, distance].into_iter().filter_map(|offset| shifted_turn_term(term, offset)).collect()
}

/// How a turn reads as the next turn's context: who said it, then what (its first
/// [`TURN_CONTEXT_CHARS`] characters).
pub(crate) fn turn_text(memory: &Memory) -> String {
    let text = crate::text::shorten(&memory.content, TURN_CONTEXT_CHARS);
    match &memory.created_by {
        Some(author) => format!("{author}: {text}"),
        None => text.to_owned(),
    }
}

impl IndexDoc {
    /// The index view of `memory`.
    pub(crate) fn of(memory: &Memory) -> Self {
        Self {
            meta: DocMeta {
                key: memory.reference(),
                collection: memory.collection.to_string(),
                status: memory.status,
                kind: memory.kind.clone(),
                tags: memory.tags.clone(),
                created_at: memory.created_at,
                updated_at: memory.updated_at,
                hash: content_hash(memory),
            },
            id: memory.id.to_string(),
            title: memory.title.clone(),
            context: memory.context.clone(),
            summary: memory.summary.clone(),
            author: memory.created_by.clone(),
            content: memory.content.clone(),
            title_repeats: memory.summary.as_ref() == Some(&memory.title)
                || memory.title == crate::format::derive_title(&memory.content, &memory.id),
            pinned: crate::decay::is_pinned(memory),
            turn_term: memory
                .turn_place()
                .map(|place| turn_term(memory.collection.as_str(), &place.session, place.turn)),
            previous_turn: None,
            given_vector: None,
        }
    }

    /// The text an embedder sees: the title, the summary and the context (each when there is
    /// one), then the content, after its author's name when it has one (`Ana: ...`). Seed
    /// 002 embeds summary + content; the context, e.g. the message a reply answers, often
    /// carries the meaning; the author is who a question names ("what did Ana ...?": plain
    /// LoCoMo turns semantic R@5 0.223 -> 0.400). A turn found before this one
    /// ([`IndexDoc::previous_turn`]) is not embedded: it blurs what the turn says itself.
    ///
    /// A title that only repeats the content or the summary is left out: it would double the
    /// tokens of a short memory (and the model's time) without adding meaning.
    ///
    /// Changing what this returns changes every vector: bump [`EMBEDDED_TEXT_REVISION`].
    pub(crate) fn embedding_text(&self) -> String {
        let title = (!self.title_repeats).then_some(self.title.as_str());
        let head: Vec<&str> = [title, self.summary.as_deref(), self.context.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        let body = match &self.author {
            Some(author) => format!("{author}: {}", self.content),
            None => self.content.clone(),
        };
        match head.is_empty() {
            true => body,
            false => format!("{}\n\n{body}", head.join("\n")),
        }
    }
}

/// The revision of [`IndexDoc::embedding_text`], part of the identity a vector index records
/// beside the model's (`crate::index::semantic`): vectors of another revision are embedded
/// again, as after a model change.
pub(crate) const EMBEDDED_TEXT_REVISION: u32 = 2;

/// Filters every index applies itself. Empty lists and `None` bounds mean "no condition".
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct DocFilter {
    /// The memory is in one of these collections.
    pub(crate) collections: Vec<String>,
    /// The memory has at least one of these tags.
    pub(crate) tags_any: Vec<String>,
    /// The memory has all of these tags.
    pub(crate) tags_all: Vec<String>,
    /// The memory's type is one of these.
    pub(crate) kinds: Vec<String>,
    /// The memory's status is one of these.
    pub(crate) statuses: Vec<Status>,
    /// Created at or after.
    pub(crate) created_from: Option<Timestamp>,
    /// Created before.
    pub(crate) created_to: Option<Timestamp>,
    /// Updated at or after.
    pub(crate) updated_from: Option<Timestamp>,
    /// Updated before.
    pub(crate) updated_to: Option<Timestamp>,
    /// Only these memories (a search restricted to the memories linking to a target).
    pub(crate) keys: Option<HashSet<MemoryRef>>,
}

impl DocFilter {
    /// Whether the filter has no condition at all.
    pub(crate) fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Whether `meta` passes every condition.
    pub(crate) fn matches(&self, meta: &DocMeta) -> bool {
        let any_of = |allowed: &[String], value: &str| {
            allowed.is_empty() || allowed.iter().any(|a| a == value)
        };
        let within = |t: Timestamp, from: Option<Timestamp>, to: Option<Timestamp>| {
            from.is_none_or(|from| t >= from) && to.is_none_or(|to| t < to)
        };
        any_of(&self.collections, &meta.collection)
            && (self.tags_any.is_empty() || self.tags_any.iter().any(|t| meta.tags.contains(t)))
            && self.tags_all.iter().all(|t| meta.tags.contains(t))
            && (self.kinds.is_empty()
                || meta.kind.as_deref().is_some_and(|k| any_of(&self.kinds, k)))
            && (self.statuses.is_empty() || self.statuses.contains(&meta.status))
            && within(meta.created_at, self.created_from, self.created_to)
            && within(meta.updated_at, self.updated_from, self.updated_to)
            && self.keys.as_ref().is_none_or(|keys| keys.contains(&meta.key))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Collection, Limits, NewMemory};

    fn doc_of(new: NewMemory) -> IndexDoc {
        let memory = new
            .into_memory(&Collection::default(), &Limits::default(), crate::now())
            .expect("valid memory");
        IndexDoc::of(&memory)
    }

    #[test]
    fn the_author_leads_the_embedded_content() {
        let said = doc_of(NewMemory::new("I went hiking.").created_by("Ana").context("weekend?"));
        assert_eq!(said.embedding_text(), "weekend?\n\nAna: I went hiking.");
    }

    #[test]
    fn a_turn_has_a_term_of_its_place_and_reads_as_context() {
        let turn = NewMemory::new("Yes!").created_by("Ben").meta("session", 7).meta("turn", "3");
        let doc = doc_of(turn.clone());
        assert_eq!(doc.turn_term.as_deref(), Some(turn_term("memory", "7", 3).as_str()));
        let memory = turn.into_memory(&Collection::default(), &Limits::default(), crate::now());
        assert_eq!(turn_text(&memory.expect("valid")), "Ben: Yes!");
        let neighbours = neighbour_terms(&turn_term("memory", "7", 3), 1);
        assert_eq!(neighbours, [turn_term("memory", "7", 2), turn_term("memory", "7", 4)]);
        let first = neighbour_terms(&turn_term("memory", "7", 1), 2);
        assert_eq!(first, [turn_term("memory", "7", 3)]);
        assert_eq!(shifted_turn_term(&turn_term("memory", "7", u64::MAX), 1), None);
        let untold = doc_of(NewMemory::new("x").meta("session", "s").meta("turn", -1));
        assert_eq!(untold.turn_term, None, "a turn number is a whole number");
    }

    #[test]
    fn the_embedding_text_is_title_summary_and_context_then_content() {
        let plain = doc_of(NewMemory::new("Prefer Metal on Apple silicon."));
        assert_eq!(plain.embedding_text(), "Prefer Metal on Apple silicon.");
        let full =
            doc_of(NewMemory::new("Body.").title("GPU").summary("Use Metal").context("porting"));
        assert_eq!(full.embedding_text(), "GPU\nUse Metal\nporting\n\nBody.");
        let summarised = doc_of(NewMemory::new("Body.").summary("Use Metal"));
        assert_eq!(summarised.embedding_text(), "Use Metal\n\nBody.");
    }
}
