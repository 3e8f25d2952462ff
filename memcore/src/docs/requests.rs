//! The request and result records of the document operations.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::chunk::DocumentFormat;
use crate::{MemoryRef, SearchMode, Timestamp};

/// The `docs_ingest` request: read files, split them into chunks and store each chunk as a
/// memory ([`crate::Memcore::docs_ingest`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct DocsIngestRequest {
    /// The files: relative to `root`, or absolute inside it.
    pub paths: Vec<String>,
    /// A directory inside the project (relative to the project root, or absolute) that the
    /// paths are read from and may not leave; by default the project root itself: the
    /// directory of the project's `.memcore.yaml`, else the directory holding the store.
    /// Sources are named relative to the project root either way.
    #[serde(default)]
    pub root: Option<String>,
    /// Tags given to each document and its chunks.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The most characters in a chunk (default 1000).
    #[serde(default)]
    pub chunk_size: Option<usize>,
    /// Characters a chunk repeats from the one before it where a section is split (default
    /// 100).
    #[serde(default)]
    pub overlap: Option<usize>,
    /// The largest file read, in bytes (default 32 MiB).
    #[serde(default)]
    pub max_bytes: Option<u64>,
}

impl DocsIngestRequest {
    /// A request to ingest `paths` with the defaults.
    pub fn new<I, S>(paths: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self { paths: paths.into_iter().map(Into::into).collect(), ..Self::default() }
    }

    /// The same request, reading the paths from `root`, a directory inside the project.
    pub fn root(mut self, root: impl Into<String>) -> Self {
        self.root = Some(root.into());
        self
    }

    /// The same request, giving each document these tags.
    pub fn tags<I, S>(mut self, tags: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tags = tags.into_iter().map(Into::into).collect();
        self
    }

    /// The same request, with chunks of at most `size` characters overlapping by `overlap`.
    pub fn chunking(mut self, size: usize, overlap: usize) -> Self {
        self.chunk_size = Some(size);
        self.overlap = Some(overlap);
        self
    }
}

/// A document as memcore keeps it: where it came from, what it held, and its chunks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct DocumentRecord {
    /// The document's id (from its path: `docs/Run Book.md` is `docs-run-book.md`).
    pub id: String,
    /// Its first level-1 heading, else its file name.
    pub title: String,
    /// Its path relative to the project root.
    pub source: String,
    /// The SHA-256 of its bytes when ingested, in hex.
    pub sha256: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// How it was split.
    pub format: DocumentFormat,
    /// The chunk size it was split with.
    pub chunk_size: usize,
    /// The overlap it was split with.
    pub overlap: usize,
    /// Its tags.
    pub tags: Vec<String>,
    /// A hash of its content and how it was split, in each chunk's id: an ingest that
    /// changes either writes chunks of a new generation, then drops the old ones.
    pub generation: String,
    /// Its chunks, in order (each a memory of the `docs` collection).
    pub chunks: Vec<MemoryRef>,
    /// When it was last ingested.
    pub ingested_at: Timestamp,
}

/// What became of one document in an ingest or a rebuild.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IngestOutcome {
    /// It was new.
    Added,
    /// It had changed (or was split differently): its chunks were replaced.
    Replaced,
    /// Nothing had changed: nothing was written.
    Unchanged,
}

/// One document of an [`IngestReport`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct IngestedDocument {
    /// What happened to it.
    pub outcome: IngestOutcome,
    /// The document as it is now.
    pub document: DocumentRecord,
}

/// What `docs_ingest` and `docs_rebuild` return: each document, in the order given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct IngestReport {
    /// The documents.
    pub documents: Vec<IngestedDocument>,
}

/// The `docs_list` request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct DocsListRequest {
    /// Only documents carrying every one of these tags.
    pub tags: Vec<String>,
}

/// What `docs_list` returns: the documents, sorted by id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct DocumentListing {
    /// The documents.
    pub documents: Vec<DocumentRecord>,
}

/// The `docs_search` request: search the chunks of the documents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct DocsSearchRequest {
    /// What to look for.
    pub text: String,
    /// The most hits (default 10).
    #[serde(default = "default_limit")]
    pub limit: usize,
    /// How to rank (default hybrid; text without the model).
    #[serde(default)]
    pub mode: SearchMode,
    /// Only chunks of these documents (ids).
    #[serde(default)]
    pub documents: Vec<String>,
    /// Only chunks of documents carrying every one of these tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Nudge the ranking by the ratings given with `docs_feedback` (up to 10% either way).
    /// Off by default: see BENCHMARKS.md.
    #[serde(default)]
    pub feedback_prior: bool,
}

fn default_limit() -> usize {
    10
}

impl DocsSearchRequest {
    /// A search of the documents for `text`, with the defaults.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            limit: default_limit(),
            mode: SearchMode::default(),
            documents: Vec::new(),
            tags: Vec::new(),
            feedback_prior: false,
        }
    }

    /// The same request, returning at most `limit` hits.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// The same request, ranking by `mode`.
    pub fn mode(mut self, mode: SearchMode) -> Self {
        self.mode = mode;
        self
    }
}

/// A chunk found by `docs_search`, with its place in its document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct DocumentHit {
    /// The document's id.
    pub document: String,
    /// The document's title.
    pub title: String,
    /// The document's path relative to the project root.
    pub source: String,
    /// The headings the chunk sits under, outermost first.
    pub heading_path: Vec<String>,
    /// The chunk's place in the document, from 0.
    pub position: usize,
    /// How many chunks the document has.
    pub chunks: usize,
    /// The chunk's memory.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// The score, as search gives it (times the feedback prior when asked for).
    pub score: f64,
    /// The chunk's text.
    pub text: String,
}

/// What `docs_search` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct DocumentHits {
    /// The hits, best first.
    pub hits: Vec<DocumentHit>,
    /// The mode used (hybrid and semantic fall back to text without the model).
    pub mode: SearchMode,
    /// What the caller should know (the model missing, say).
    pub warnings: Vec<String>,
}

/// The `docs_purge` request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct DocsPurgeRequest {
    /// The document's id.
    pub document: String,
}

impl DocsPurgeRequest {
    /// A purge of the document `document`.
    pub fn new(document: impl Into<String>) -> Self {
        Self { document: document.into() }
    }
}

/// What `docs_purge` returns: what went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct DocumentPurged {
    /// The document's id.
    pub document: String,
    /// Chunks removed.
    pub chunks: usize,
    /// Feedback records removed.
    pub feedback: usize,
    /// Copies kept besides the live memories (trash, old versions) removed.
    pub copies: usize,
}

/// The `docs_rebuild` request: split documents again from their files.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct DocsRebuildRequest {
    /// The documents (ids); every document when empty.
    pub documents: Vec<String>,
    /// A new chunk size; each document's own when absent.
    pub chunk_size: Option<usize>,
    /// A new overlap; each document's own when absent.
    pub overlap: Option<usize>,
}

/// The `docs_feedback` request: how useful a document or one of its chunks was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct DocsFeedbackRequest {
    /// The document's id.
    pub document: String,
    /// The chunk's position (from 0); the whole document when absent.
    #[serde(default)]
    pub chunk: Option<usize>,
    /// How useful it was, from 1 (not at all) to 5 (very).
    pub rating: u8,
    /// Why.
    #[serde(default)]
    pub note: Option<String>,
    /// Who rated it.
    #[serde(default)]
    pub by: Option<String>,
}

impl DocsFeedbackRequest {
    /// A rating of the document `document` (1 to 5).
    pub fn new(document: impl Into<String>, rating: u8) -> Self {
        Self { document: document.into(), chunk: None, rating, note: None, by: None }
    }

    /// The same rating, of the chunk at `position`.
    pub fn chunk(mut self, position: usize) -> Self {
        self.chunk = Some(position);
        self
    }
}

/// A rating, as stored (append-only: each is a memory of the `doc-feedback` collection).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct FeedbackRecord {
    /// The rating's own memory.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// The document's id.
    pub document: String,
    /// The chunk's position, or none for the whole document.
    pub chunk: Option<usize>,
    /// The rating, 1 to 5.
    pub rating: u8,
    /// Why.
    pub note: Option<String>,
    /// Who rated it.
    pub by: Option<String>,
    /// When.
    pub at: Timestamp,
}
