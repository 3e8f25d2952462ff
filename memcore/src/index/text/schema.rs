//! The tantivy schema of the full-text index, its English analyzer, and how an [`IndexDoc`]
//! becomes a tantivy document.

use tantivy::schema::{
    DateOptions, DateTimePrecision, FAST, Field, IndexRecordOption, STORED, STRING, Schema,
    TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer,
    StopWordFilter, TextAnalyzer, TokenizerManager,
};
use tantivy::{DateTime, TantivyDocument};

use super::stop_words::QUESTION_WORDS;
use crate::Timestamp;
use crate::index::IndexDoc;
use crate::links::term::edge_term;
use crate::links::{EdgeTypes, extract_links};

/// The name under which the English analyzer is registered with tantivy.
pub(crate) const ENGLISH: &str = "memcore_en";

/// The name of the field of a conversation turn's place.
pub(super) const TURN_FIELD: &str = "turn";

/// The name of the field of the share of a conversation turn's words that ask.
pub(super) const QUESTION_SHARE_FIELD: &str = "question_share";

/// The `pinned` term of a pinned memory.
pub(super) const PINNED: &str = "true";

/// The fields of the schema.
#[derive(Debug, Clone, Copy)]
pub(super) struct Fields {
    /// `collection/id`: raw, indexed, stored; the unique key.
    pub(super) key: Field,
    /// The id: raw, indexed (exact-id search).
    pub(super) id: Field,
    /// The collection: raw, indexed.
    pub(super) collection: Field,
    /// The title the memory was given (not one derived from its content): English text.
    pub(super) title: Field,
    /// The content: English text.
    pub(super) content: Field,
    /// The context: English analyzer, half weight.
    pub(super) context: Field,
    /// The summary: English text.
    pub(super) summary: Field,
    /// Who wrote the memory (`created_by`): English text, searched like the content.
    pub(super) author: Field,
    /// The tags: raw, multi-valued (filters).
    pub(super) tags: Field,
    /// The tags again, as English text (search).
    pub(super) tags_text: Field,
    /// The type: raw.
    pub(super) kind: Field,
    /// The status: raw.
    pub(super) status: Field,
    /// Creation time: date, indexed and fast, whole seconds.
    pub(super) created: Field,
    /// Last change: date, indexed and fast, whole seconds.
    pub(super) updated: Field,
    /// The content hash: stored only.
    pub(super) hash: Field,
    /// One raw term per `[[link]]` in the content (see `crate::links::term`): indexed only.
    pub(super) link_edge: Field,
    /// `true` for a pinned memory (importance 1.0 or a `##keepit1.00##` marker): raw.
    pub(super) pinned: Field,
    /// A conversation turn's place (`IndexDoc::turn_term`): raw, indexed (the turn after it
    /// finds it) and a fast column (a search finds its neighbours among the candidates).
    pub(super) turn: Field,
    /// For a conversation turn, the share of its words in questions
    /// ([`crate::text::question_share`]): a fast column, read with the turn's place.
    pub(super) question_share: Field,
}

/// The schema of the index and its fields.
pub(super) fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let english = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ENGLISH)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let date =
        DateOptions::default().set_indexed().set_fast().set_precision(DateTimePrecision::Seconds);
    let fields = Fields {
        key: builder.add_text_field("key", STRING | STORED),
        id: builder.add_text_field("id", STRING),
        collection: builder.add_text_field("collection", STRING),
        // Named for what it holds since a derived title stopped being indexed, so that an
        // index from before is rebuilt on open.
        title: builder.add_text_field("given_title", english.clone()),
        content: builder.add_text_field("content", english.clone()),
        context: builder.add_text_field("context", english.clone()),
        summary: builder.add_text_field("summary", english.clone()),
        author: builder.add_text_field("author", english.clone()),
        tags: builder.add_text_field("tags", STRING),
        tags_text: builder.add_text_field("tags_text", english),
        kind: builder.add_text_field("type", STRING),
        status: builder.add_text_field("status", STRING),
        created: builder.add_date_field("created", date.clone()),
        updated: builder.add_date_field("updated", date),
        hash: builder.add_text_field("hash", STORED),
        link_edge: builder.add_text_field("link_edge", STRING),
        pinned: builder.add_text_field("pinned", STRING),
        turn: builder.add_text_field(TURN_FIELD, STRING | FAST),
        question_share: builder.add_f64_field(QUESTION_SHARE_FIELD, FAST),
    };
    (builder.build(), fields)
}

/// tantivy's default tokenizers plus the English analyzer. Tokenizers are not saved in the
/// index: every `Index` opened must be given them.
pub(crate) fn tokenizers() -> TokenizerManager {
    let manager = TokenizerManager::default();
    let stop_words = StopWordFilter::new(Language::English);
    manager.register(ENGLISH, english(stop_words));
    manager
}

/// [`tokenizers`] as a search reads its text: the English analyzer also drops the words
/// questions are made of ([`QUESTION_WORDS`]), and otherwise analyses words exactly as the
/// index does.
pub(super) fn query_tokenizers() -> TokenizerManager {
    let manager = TokenizerManager::default();
    let stop_words = QUESTION_WORDS.iter().map(|word| (*word).to_owned());
    manager.register(ENGLISH, english(Some(StopWordFilter::remove(stop_words))));
    manager
}

/// The English analyzer: words (runs of letters and digits) of at most 40 bytes, folded to
/// ASCII, lower-cased, without `stop_words`, stemmed.
fn english(stop_words: Option<StopWordFilter>) -> TextAnalyzer {
    let mut english = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(AsciiFoldingFilter)
        .filter(LowerCaser)
        .dynamic();
    if let Some(stop_words) = stop_words {
        english = english.filter_dynamic(stop_words);
    }
    english.filter_dynamic(Stemmer::new(Language::English)).build()
}

/// The tantivy document of `doc`.
pub(super) fn to_document(doc: &IndexDoc, f: &Fields) -> TantivyDocument {
    let meta = &doc.meta;
    let mut out = TantivyDocument::default();
    out.add_text(f.key, meta.key.to_string());
    out.add_text(f.id, &doc.id);
    out.add_text(f.collection, &meta.collection);
    // A title that repeats the content or the summary would count those words twice.
    if !doc.title_repeats {
        out.add_text(f.title, &doc.title);
    }
    out.add_text(f.content, &doc.content);
    // The turn before a conversation turn is its context too (searched, not embedded).
    for context in [&doc.context, &doc.previous_turn].into_iter().flatten() {
        out.add_text(f.context, context);
    }
    if let Some(term) = &doc.turn_term {
        out.add_text(f.turn, term);
        out.add_f64(f.question_share, crate::text::question_share(&doc.content));
    }
    if let Some(summary) = &doc.summary {
        out.add_text(f.summary, summary);
    }
    if let Some(author) = &doc.author {
        out.add_text(f.author, author);
    }
    for tag in &meta.tags {
        out.add_text(f.tags, tag);
        out.add_text(f.tags_text, tag);
    }
    if let Some(kind) = &meta.kind {
        out.add_text(f.kind, kind);
    }
    out.add_text(f.status, meta.status.as_str());
    out.add_date(f.created, tantivy_date(meta.created_at, false));
    out.add_date(f.updated, tantivy_date(meta.updated_at, false));
    out.add_text(f.hash, &meta.hash);
    for link in extract_links(&doc.content, &EdgeTypes::untyped()) {
        out.add_text(f.link_edge, edge_term(&meta.key, &link));
    }
    if doc.pinned {
        out.add_text(f.pinned, PINNED);
    }
    out
}

/// `t` in whole seconds (rounded up when `ceil`, else down), clamped to the years 1678-2262
/// that tantivy's nanosecond dates can hold (its constructor overflows beyond them).
pub(super) fn tantivy_date(t: Timestamp, ceil: bool) -> DateTime {
    const LIMIT: i64 = i64::MAX / 1_000_000_000;
    let mut secs = t.timestamp();
    if ceil && t.timestamp_subsec_nanos() > 0 {
        secs = secs.saturating_add(1);
    }
    DateTime::from_timestamp_secs(secs.clamp(-LIMIT, LIMIT))
}
