//! Documents (seed 003's document knowledge workflow): files split into chunks along their
//! structure, each chunk a memory that knows its document, heading path and position, so
//! every index and engine treats it like any memory.
//!
//! A document is three kinds of memory, each in a collection of its own:
//!
//! - its **record** (`documents/<id>`, type `document`): source path, SHA-256, size, format,
//!   chunking, tags and the chunks' *generation* (a hash of the content and the chunking);
//! - its **chunks** (`docs/<id>.<generation>.<n>`, type `document-chunk`), with `document`,
//!   `source`, `heading_path`, `position` and `generation` in their metadata;
//! - **feedback** (`doc-feedback/...`, type `document-feedback`): ratings, append-only.
//!
//! A changed document's new chunks are written under a new generation before its record
//! names it, and the old chunks are removed after, so a reader never sees a document without
//! chunks; an ingest that died part-way is finished when the store is next opened (the
//! record decides which generation stays). The work is in [`crate::Memcore::docs_ingest`]
//! and its siblings; this module is the pure part.

mod chunk;
mod requests;
mod source;

use std::path::PathBuf;

pub(crate) use self::chunk::{Chunk, chunk};
pub use self::chunk::{
    ChunkOptions, DEFAULT_CHUNK_SIZE, DEFAULT_OVERLAP, DocumentFormat, MAX_CHUNK_SIZE,
    MIN_CHUNK_SIZE,
};
pub use self::requests::{
    DocsFeedbackRequest, DocsIngestRequest, DocsListRequest, DocsPurgeRequest, DocsRebuildRequest,
    DocsSearchRequest, DocumentHit, DocumentHits, DocumentListing, DocumentPurged, DocumentRecord,
    FeedbackRecord, IngestOutcome, IngestReport, IngestedDocument,
};
pub use self::source::DEFAULT_MAX_DOCUMENT_BYTES;
pub(crate) use self::source::{Roots, Source, canonical_root, document_id, read_source};
use crate::{Error, Memory, MemoryRef, NewMemory, Result, Timestamp};

/// The collection of document chunks.
pub const CHUNKS_COLLECTION: &str = "docs";
/// The collection of document records.
pub const DOCUMENTS_COLLECTION: &str = "documents";
/// The collection of document feedback.
pub const FEEDBACK_COLLECTION: &str = "doc-feedback";
/// The type of a chunk memory.
pub const CHUNK_KIND: &str = "document-chunk";
/// The type of a document record memory.
pub const DOCUMENT_KIND: &str = "document";
/// The type of a feedback memory.
pub const FEEDBACK_KIND: &str = "document-feedback";
/// The metadata key naming a chunk's (or a rating's) document.
pub const DOCUMENT_KEY: &str = "document";

/// Whether `memory` is part of a document: its record, a chunk or a rating (by its type and
/// its collection together, so a memory of yours typed `document` is not one).
pub fn is_document_memory(memory: &Memory) -> bool {
    matches!(
        (memory.kind.as_deref(), memory.collection.as_str()),
        (Some(DOCUMENT_KIND), DOCUMENTS_COLLECTION)
            | (Some(CHUNK_KIND), CHUNKS_COLLECTION)
            | (Some(FEEDBACK_KIND), FEEDBACK_COLLECTION)
    )
}

/// Tags as a document keeps them: trimmed, without blanks or repeats, sorted.
pub(crate) fn clean_tags(tags: &[String]) -> Vec<String> {
    let mut tags: Vec<String> =
        tags.iter().map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()).collect();
    tags.sort();
    tags.dedup();
    tags
}

/// The generation of a document's chunks: 12 hex digits of a hash of what they are made
/// of (its content, how it is split, and the tags each chunk carries).
pub(crate) fn generation(
    sha256: &str,
    format: DocumentFormat,
    options: ChunkOptions,
    tags: &[String],
) -> String {
    let key =
        format!("{sha256}|{format:?}|{}|{}|{}", options.size, options.overlap, tags.join(","));
    crate::hex::sha256_hex(key.as_bytes())[..12].to_owned()
}

/// The reference of chunk `position` of a document's `generation`.
pub(crate) fn chunk_ref(document: &str, generation: &str, position: usize) -> Result<MemoryRef> {
    format!("{CHUNKS_COLLECTION}/{document}.{generation}.{position:04}").parse()
}

/// The reference of a document's record.
pub(crate) fn record_ref(document: &str) -> Result<MemoryRef> {
    format!("{DOCUMENTS_COLLECTION}/{document}").parse()
}

/// A document's title: its first level-1 heading (markdown), else its file name.
pub(crate) fn title_of(source: &Source) -> String {
    let heading = match source.format {
        DocumentFormat::Markdown => crate::format::first_heading(&source.text),
        DocumentFormat::Text => None,
    };
    heading.unwrap_or_else(|| {
        source.relative.rsplit('/').next().unwrap_or(&source.relative).to_owned()
    })
}

/// The memory holding chunk `position` of `record`.
pub(crate) fn chunk_memory(record: &DocumentRecord, chunk: Chunk, position: usize) -> NewMemory {
    let mut title = record.title.clone();
    for heading in chunk.heading_path.iter().skip_while(|h| **h == record.title) {
        title.push_str(" › ");
        title.push_str(heading);
    }
    let mut memory = NewMemory::new(chunk.text)
        .id(format!("{}.{}.{position:04}", record.id, record.generation))
        .collection(CHUNKS_COLLECTION)
        .title(title)
        .kind(CHUNK_KIND)
        .tags(record.tags.clone());
    memory.created_at = Some(record.ingested_at);
    memory.metadata.insert(DOCUMENT_KEY.into(), record.id.clone().into());
    memory.metadata.insert("source".into(), record.source.clone().into());
    memory.metadata.insert("heading_path".into(), chunk.heading_path.into());
    memory.metadata.insert("position".into(), position.into());
    memory.metadata.insert("generation".into(), record.generation.clone().into());
    memory
}

/// The memory holding `record`.
pub(crate) fn record_memory(record: &DocumentRecord) -> NewMemory {
    let content = format!(
        "# {}\n\nDocument `{}`, {} chunks of up to {} characters.\n",
        record.title,
        record.source,
        record.chunks.len(),
        record.chunk_size
    );
    let mut memory = NewMemory::new(content)
        .id(record.id.clone())
        .collection(DOCUMENTS_COLLECTION)
        .title(record.title.clone())
        .kind(DOCUMENT_KIND)
        .tags(record.tags.clone());
    let metadata = &mut memory.metadata;
    metadata.insert("source".into(), record.source.clone().into());
    metadata.insert("sha256".into(), record.sha256.clone().into());
    metadata.insert("bytes".into(), record.bytes.into());
    metadata.insert("format".into(), serde_json::json!(record.format));
    metadata.insert("chunk_size".into(), record.chunk_size.into());
    metadata.insert("overlap".into(), record.overlap.into());
    metadata.insert("chunk_count".into(), record.chunks.len().into());
    metadata.insert("generation".into(), record.generation.clone().into());
    metadata.insert("ingested_at".into(), serde_json::json!(record.ingested_at));
    memory
}

/// The record a document record memory holds; a corrupted error when its metadata is not
/// one (edited by hand, say).
pub(crate) fn record_of(memory: &Memory) -> Result<DocumentRecord> {
    #[derive(serde::Deserialize)]
    struct Fields {
        source: String,
        sha256: String,
        bytes: u64,
        format: DocumentFormat,
        chunk_size: usize,
        overlap: usize,
        chunk_count: usize,
        generation: String,
        ingested_at: Timestamp,
    }
    let fields: Fields = serde_json::to_value(&memory.metadata)
        .and_then(serde_json::from_value)
        .map_err(|e| damaged(memory, &e.to_string()))?;
    let id = memory.id.as_str();
    let chunks = (0..fields.chunk_count)
        .map(|position| chunk_ref(id, &fields.generation, position))
        .collect::<Result<Vec<_>>>()
        .map_err(|e| damaged(memory, &e.to_string()))?;
    Ok(DocumentRecord {
        id: id.to_owned(),
        title: memory.title.clone(),
        source: fields.source,
        sha256: fields.sha256,
        bytes: fields.bytes,
        format: fields.format,
        chunk_size: fields.chunk_size,
        overlap: fields.overlap,
        tags: memory.tags.clone(),
        generation: fields.generation,
        chunks,
        ingested_at: fields.ingested_at,
    })
}

fn damaged(memory: &Memory, why: &str) -> Error {
    Error::corrupted(
        PathBuf::from(memory.reference().to_string()),
        None,
        format!("not a document record: {why}"),
        "ingest the document again (`docs_rebuild`), or purge it",
    )
}

/// Where a chunk memory sits: its document, generation, position and heading path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChunkPlace {
    pub document: String,
    pub generation: String,
    pub position: usize,
    pub heading_path: Vec<String>,
}

/// The place of a chunk memory, or `None` for a memory that is not a chunk.
pub(crate) fn place_of(memory: &Memory) -> Option<ChunkPlace> {
    let text = |key: &str| memory.metadata.get(key)?.as_str().map(str::to_owned);
    let heading_path = match memory.metadata.get("heading_path") {
        Some(serde_json::Value::Array(items)) => {
            items.iter().filter_map(|item| item.as_str().map(str::to_owned)).collect()
        }
        _ => Vec::new(),
    };
    Some(ChunkPlace {
        document: text(DOCUMENT_KEY)?,
        generation: text("generation")?,
        position: usize::try_from(memory.metadata.get("position")?.as_u64()?).ok()?,
        heading_path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> DocumentRecord {
        DocumentRecord {
            id: "guide.md".into(),
            title: "Guide".into(),
            source: "guide.md".into(),
            sha256: "ab".repeat(32),
            bytes: 42,
            format: DocumentFormat::Markdown,
            chunk_size: 1000,
            overlap: 100,
            tags: vec!["ops".into()],
            generation: "0123456789ab".into(),
            chunks: vec![chunk_ref("guide.md", "0123456789ab", 0).unwrap()],
            ingested_at: crate::parse_timestamp("2026-11-28T00:00:00Z").unwrap(),
        }
    }

    #[test]
    fn a_record_round_trips_through_its_memory() {
        let record = record();
        let limits = crate::Limits::default();
        let memory = record_memory(&record).into_memory(
            &"default".parse().unwrap(),
            &limits,
            record.ingested_at,
        );
        assert_eq!(record_of(&memory.unwrap()).unwrap(), record);
    }

    #[test]
    fn a_chunk_memory_knows_its_place() {
        let record = record();
        let chunk = Chunk {
            text: "## Setup\n\nInstall it.".into(),
            heading_path: vec!["Guide".into(), "Setup".into()],
            start: 10,
        };
        let new = chunk_memory(&record, chunk, 3);
        assert_eq!(new.title.as_deref(), Some("Guide › Setup"));
        let memory = new
            .into_memory(&"default".parse().unwrap(), &crate::Limits::default(), record.ingested_at)
            .unwrap();
        assert_eq!(memory.reference().to_string(), "docs/guide.md.0123456789ab.0003");
        let place = place_of(&memory).unwrap();
        assert_eq!((place.document.as_str(), place.position), ("guide.md", 3));
        assert_eq!(place.heading_path, ["Guide", "Setup"]);
    }

    #[test]
    fn generations_change_with_content_chunking_and_tags() {
        let options = ChunkOptions::default();
        let base = generation("aa", DocumentFormat::Markdown, options, &[]);
        assert_eq!(base.len(), 12);
        assert_ne!(base, generation("ab", DocumentFormat::Markdown, options, &[]));
        assert_ne!(base, generation("aa", DocumentFormat::Text, options, &[]));
        let smaller = ChunkOptions { size: 500, ..options };
        assert_ne!(base, generation("aa", DocumentFormat::Markdown, smaller, &[]));
        assert_ne!(base, generation("aa", DocumentFormat::Markdown, options, &["x".into()]));
    }
}
