//! [`SemanticIndex`]: the vector index as a [`DerivedIndex`], with the embedder that fills it.
//!
//! Semantic search needs an embedder; it is set up lazily on first use (the first write or
//! semantic search), and when it cannot be (no model files, no runtime), everything else keeps
//! working: the index reports itself [`Unavailable`] and searches say why in a warning (seed
//! 002's graceful degradation). Vectors record their model: opening vectors of another model
//! starts an empty index, which the write protocol's catch-up fills from the store.
//!
//! A store that keeps vectors for every machine ([`SharedVectors`], PostgreSQL) is asked
//! first whenever memories are indexed outside the write path's staging (a rebuild, a sync, a
//! catch-up, an update or restore): only what it lacks (or holds damaged: another length, a
//! value that is not finite) is embedded, and what this process embeds, there or in its own
//! writes, is kept there for the others. Kept after the memory is stored: a machine that
//! syncs the moment it hears of the write may embed the text itself.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use sha2::{Digest, Sha256};

use super::{
    Applied, DerivedIndex, EMBEDDED_TEXT_REVISION, GivenVector, GraphStatus, IndexDoc,
    ModelChanged, Staged, Unavailable, VectorIndex, remove_level_stamp, scalable_norm,
};
use crate::concurrent::alongside;
use crate::store::fsutil::remove_dir_if_present;
use crate::store::{SharedVectors, VectorKey};
use crate::{Embedder, Error, MemoryRef, ModelFiles, OnnxEmbedder, Result};

/// Texts embedded per model call while indexing: many per core, so an embedder with a
/// session per core keeps them all busy.
const EMBED_BATCH: usize = 256;

/// Where the embedder comes from.
#[derive(Debug, Clone)]
pub(crate) enum EmbedderChoice {
    /// The ONNX model found by [`ModelFiles::locate_or_installed`] (config dir, env, default
    /// cache, installed files).
    Auto {
        /// The model directory from the config, if any.
        model_dir: Option<PathBuf>,
        /// The files installed with the program, if any.
        installed: Option<ModelFiles>,
    },
    /// A caller-supplied embedder.
    Given(Arc<dyn Embedder>),
    /// No semantic search.
    Off,
}

/// The embedder and the vectors it produced.
#[derive(Debug)]
pub(crate) struct Semantic {
    /// Turns text into vectors.
    pub(crate) embedder: Arc<dyn Embedder>,
    /// Nearest-neighbour search over them.
    pub(crate) vectors: VectorIndex,
    /// The store's vectors for every machine, if it keeps them.
    shared: Option<Arc<dyn SharedVectors>>,
}

impl Semantic {
    /// The vectors of `texts`, in order; an embedder that returns another number of vectors
    /// is an [`Error::Embedding`].
    pub(crate) fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = self.embedder.embed(&refs)?;
        if vectors.len() != texts.len() {
            return Err(Error::embedding(
                format!(
                    "the embedder {} returned {} vectors for {} texts",
                    self.embedder.model_id(),
                    vectors.len(),
                    texts.len()
                ),
                None,
                "fix the embedder: it must return one vector per text, in order",
            ));
        }
        Ok(vectors)
    }

    /// Checks a vector given instead of an embedding (`what` names it in the error): the
    /// embedder's dimension, finite values, a length the index can scale to one.
    pub(crate) fn check_given(&self, vector: &[f32], what: &str) -> Result<()> {
        let dimension = self.embedder.dimension();
        let problem = if vector.len() != dimension {
            format!(
                "has {} values; the embedder {} makes {dimension}",
                vector.len(),
                self.embedder.model_id()
            )
        } else if let Some(i) = vector.iter().position(|x| !x.is_finite()) {
            format!("holds a value that is not a finite number (at index {i})")
        } else if scalable_norm(vector).is_none() {
            "has a length of zero, or too large to compute in 32-bit floats".to_owned()
        } else {
            return Ok(());
        };
        Err(Error::validation(
            format!("{what} {problem}"),
            "give vectors the store's embedder makes, or open the store with the embedder that made yours",
        ))
    }

    /// The vectors of `docs`, whose embedding texts are `texts`: the ones their writers gave,
    /// the embedder's for the others.
    fn given_or_embedded(&self, docs: &[IndexDoc], texts: &[String]) -> Result<Vec<Vec<f32>>> {
        if docs.iter().all(|doc| doc.given_vector.is_none()) {
            return self.embed(texts);
        }
        let missing: Vec<String> = docs
            .iter()
            .zip(texts)
            .filter(|(doc, _)| doc.given_vector.is_none())
            .map(|(_, text)| text.clone())
            .collect();
        let mut embedded = match missing.is_empty() {
            true => Vec::new(),
            false => self.embed(&missing)?,
        }
        .into_iter();
        Ok(docs
            .iter()
            .map(|doc| match &doc.given_vector {
                Some(given) => given.to_vec(),
                None => embedded.next().unwrap_or_default(),
            })
            .collect())
    }

    /// Stores the vectors of `docs`, in batches: those the store keeps for every machine
    /// taken from it, the others embedded (and then kept there).
    fn embed_into(&self, docs: &[IndexDoc]) -> Result<()> {
        for batch in docs.chunks(EMBED_BATCH) {
            let texts: Vec<String> = batch.iter().map(IndexDoc::embedding_text).collect();
            let items: Vec<_> =
                batch.iter().map(|d| d.meta.clone()).zip(self.vectors_of(batch, &texts)?).collect();
            self.vectors.upsert(&items)?;
        }
        Ok(())
    }

    /// The vectors of `texts` (the embedding texts of `docs`): the shared ones of this
    /// model and text where the store has them, the model's for the rest.
    fn vectors_of(&self, docs: &[IndexDoc], texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let Some(shared) = &self.shared else { return self.embed(texts) };
        let keys = vector_keys(docs, texts);
        let dimension = self.embedder.dimension();
        // The shared vectors are a cache: when they cannot be read, the model does the work.
        let mut kept = match shared.fetch_vectors(self.embedder.model_id(), &keys) {
            Ok(kept) if kept.len() == keys.len() => kept,
            _ => vec![None; keys.len()],
        };
        let missing: Vec<usize> = (0..kept.len())
            .filter(|&i| {
                kept[i]
                    .as_ref()
                    .is_none_or(|v| v.len() != dimension || !v.iter().all(|x| x.is_finite()))
            })
            .collect();
        if !missing.is_empty() {
            let missing_texts: Vec<String> = missing.iter().map(|&i| texts[i].clone()).collect();
            let fresh = self.embed(&missing_texts)?;
            let entries: Vec<_> =
                missing.iter().zip(&fresh).map(|(&i, v)| (keys[i].clone(), v.as_slice())).collect();
            self.share(&entries);
            missing.iter().zip(fresh).for_each(|(&i, vector)| kept[i] = Some(vector));
        }
        Ok(kept.into_iter().map(Option::unwrap_or_default).collect())
    }

    /// Keeps vectors (each with its key) in the store for the other machines, if it keeps
    /// vectors. A failure is not the caller's: it costs another machine one embedding per
    /// vector.
    fn share(&self, entries: &[(VectorKey, &[f32])]) {
        if let Some(shared) = &self.shared {
            let _ = shared.keep_vectors(self.embedder.model_id(), entries);
        }
    }
}

/// The keys of the vectors of `docs`, embedded from `texts`.
fn vector_keys(docs: &[IndexDoc], texts: &[String]) -> Vec<VectorKey> {
    docs.iter()
        .zip(texts)
        .map(|(doc, text)| {
            let hash = Sha256::digest(text.as_bytes());
            VectorKey::new(doc.meta.key.clone(), crate::hex::hex(&hash[..16]))
        })
        .collect()
}

/// What a vector index records as the source of its vectors: the model and the revision of
/// the text it embeds ([`EMBEDDED_TEXT_REVISION`]), so that vectors of another model or
/// another text are embedded again.
fn vector_identity(model_id: &str) -> String {
    format!("{model_id} (embedded text r{EMBEDDED_TEXT_REVISION})")
}

/// The vector index of one store and its embedder, set up on first use.
#[derive(Debug)]
pub(crate) struct SemanticIndex {
    /// `<index dir>/vectors`.
    dir: PathBuf,
    /// Where the embedder comes from.
    choice: EmbedderChoice,
    /// The embedder and vectors once set up, or why they cannot be.
    semantic: OnceLock<std::result::Result<Semantic, Unavailable>>,
    /// Why semantic search stopped for this handle after it started: another process
    /// embedded the store again with another model.
    displaced: OnceLock<Unavailable>,
    /// The store's vectors for every machine, if it keeps them.
    shared: Option<Arc<dyn SharedVectors>>,
}

impl SemanticIndex {
    /// The vector index in `dir`, not opened yet, taking vectors from `shared` (the
    /// store's, if it keeps them) before embedding.
    pub(crate) fn new(
        dir: &Path,
        choice: EmbedderChoice,
        shared: Option<Arc<dyn SharedVectors>>,
    ) -> Self {
        Self {
            dir: dir.to_path_buf(),
            choice,
            semantic: OnceLock::new(),
            displaced: OnceLock::new(),
            shared,
        }
    }

    /// Whether the vectors are known to be level with the full-text index: stamped so by the
    /// last process that compared them (any process's write that could not embed removes the
    /// stamp). See `vector::stamp`.
    pub(crate) fn is_level(&self) -> bool {
        self.started().is_some_and(|semantic| semantic.vectors.stamped_level())
    }

    /// Records that the vectors are level with the full-text index. Only while holding the
    /// index lock, right after comparing the two or making them level.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the stamp cannot be written.
    pub(crate) fn mark_level(&self) -> Result<()> {
        self.started().map_or(Ok(()), |semantic| semantic.vectors.stamp_level())
    }

    /// Notes, durably, that the vectors may have missed a change (the full-text index took
    /// one they could not): the next semantic search, in any process, catches them up. The
    /// caller holds the index lock.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the level stamp cannot be removed.
    pub(crate) fn mark_lagging(&self) -> Result<()> {
        remove_level_stamp(&self.dir)
    }

    /// [`SemanticIndex::mark_lagging`], as a change's outcome.
    fn lagging(&self, why: String) -> Result<Applied> {
        self.mark_lagging()?;
        Ok(Applied::Lagging(why))
    }

    /// The embedder and vectors, set up on first use (for a write: the vectors are read
    /// only if a later read needs them); `Err` says why semantic search is off.
    pub(crate) fn semantic(&self) -> std::result::Result<&Semantic, Unavailable> {
        self.set_up(false)
    }

    /// The vectors writers gave with memories ([`crate::NewMemory::vector`], one entry per
    /// memory), checked against the embedder; an empty list when none was given.
    pub(crate) fn given_vectors(&self, vectors: Vec<Option<Vec<f32>>>) -> Result<Vec<GivenVector>> {
        if vectors.iter().all(Option::is_none) {
            return Ok(Vec::new());
        }
        let semantic = self.semantic().map_err(|why| {
            Error::embedding(
                format!("vectors were given, but the vector index is unavailable: {why}"),
                None,
                "install the embedding model (`memcore model` says how), or open the store with the embedder that made the vectors",
            )
        })?;
        let count = vectors.len();
        let check = |(i, vector): (usize, Option<Vec<f32>>)| {
            vector
                .map(|vector| {
                    let what = match count {
                        1 => "the memory's vector".to_owned(),
                        _ => format!("the vector of memory {} of {count}", i + 1),
                    };
                    semantic.check_given(&vector, &what).map(|()| Arc::from(vector))
                })
                .transpose()
        };
        vectors.into_iter().enumerate().map(check).collect()
    }

    /// [`SemanticIndex::semantic`] for a search, with the vectors read: on first use while
    /// the model loads, or now if a write set them up without reading them. Reading them then
    /// finds what opening would have: another model's vectors (semantic search is off for
    /// this handle, as [`DerivedIndex::refresh`] does it) or an unreadable log (off, with the
    /// error as the reason; a new handle starts the vectors over).
    pub(crate) fn searchable(&self) -> std::result::Result<&Semantic, Unavailable> {
        let semantic = self.set_up(true)?;
        match semantic.vectors.load() {
            Ok(()) => Ok(semantic),
            Err(e) => Err(self.displaced_by(&e).unwrap_or_else(|| Unavailable(e.report()))),
        }
    }

    /// When `e` says another process embedded the store again with another model: semantic
    /// search is off for this handle from now on (the first displacement found is the one
    /// reported; it is final), and why.
    fn displaced_by(&self, e: &Error) -> Option<Unavailable> {
        let changed = ModelChanged::of(e)?;
        let _ = self.displaced.set(Unavailable(format!(
            "{changed}: another process embedded the store with that model; open the store \
             with the same embedder in every process"
        )));
        self.displaced.get().cloned()
    }

    fn set_up(&self, read_vectors: bool) -> std::result::Result<&Semantic, Unavailable> {
        if let Some(why) = self.displaced.get() {
            return Err(why.clone());
        }
        self.semantic.get_or_init(|| self.open(read_vectors)).as_ref().map_err(Clone::clone)
    }

    /// The embedder and vectors if they were set up already (nothing is loaded to answer).
    pub(crate) fn started(&self) -> Option<&Semantic> {
        self.semantic.get().and_then(|semantic| semantic.as_ref().ok())
    }

    /// What the vector index's graph is doing, once semantic search has started.
    pub(crate) fn graph_status(&self) -> Option<GraphStatus> {
        self.started().map(|semantic| semantic.vectors.graph_status())
    }

    fn open(&self, read_vectors: bool) -> std::result::Result<Semantic, Unavailable> {
        let unavailable = |e: Error| Unavailable(e.report());
        let open = |dimension: usize, model_id: &str| {
            let vectors = VectorIndex::open(&self.dir, dimension, &vector_identity(model_id))?;
            if read_vectors {
                vectors.load()?;
            }
            Ok(vectors)
        };
        let (embedder, opened): (Arc<dyn Embedder>, _) = match &self.choice {
            EmbedderChoice::Off => {
                return Err(Unavailable("semantic search is turned off in the config".into()));
            }
            EmbedderChoice::Given(embedder) => {
                (Arc::clone(embedder), open(embedder.dimension(), embedder.model_id()))
            }
            EmbedderChoice::Auto { model_dir, installed } => {
                let files =
                    ModelFiles::locate_or_installed(model_dir.as_deref(), installed.as_ref())
                        .map_err(unavailable)?;
                let model_id = files.verify().map_err(unavailable)?;
                // The vectors are read while the model loads (about 100 ms): a fresh process
                // (a hook, a CLI search) waits for both. Without a thread, one after the other.
                let (opened, embedder) = alongside(
                    || open(OnnxEmbedder::DIMENSION, model_id),
                    || OnnxEmbedder::new(&files),
                    // Not an index error: that would discard the vectors.
                    || {
                        Error::embedding(
                            "opening the vector index panicked",
                            None,
                            "report this as a bug",
                        )
                    },
                );
                let embedder = embedder.map_err(unavailable)?;
                // The model file was replaced between the two checks: the vectors must be
                // those of the model that loaded.
                let opened = match embedder.model_id() == model_id {
                    true => opened,
                    false => open(OnnxEmbedder::DIMENSION, embedder.model_id()),
                };
                (Arc::new(embedder), opened)
            }
        };
        let vectors = match opened {
            Ok(vectors) => vectors,
            // Another model (or a damaged file): start over; the catch-up re-embeds everything.
            // (No lock here: callers may hold it; a model change is an administrator's act.)
            // An I/O failure (permissions, no descriptors left) keeps the vectors: semantic
            // search is off for this handle with the error as the warning.
            Err(Error::Index { .. }) => {
                remove_dir_if_present(&self.dir, "vector index").map_err(unavailable)?;
                open(embedder.dimension(), embedder.model_id()).map_err(unavailable)?
            }
            Err(e) => return Err(unavailable(e)),
        };
        Ok(Semantic { embedder, vectors, shared: self.shared.clone() })
    }
}

impl DerivedIndex for SemanticIndex {
    fn name(&self) -> &'static str {
        "vector"
    }

    fn ready(&self) -> std::result::Result<(), Unavailable> {
        self.semantic().map(|_| ())
    }

    fn stage<'a>(&'a self, docs: &[IndexDoc]) -> Box<dyn Staged + 'a> {
        let staged = self.semantic().ok().map(|semantic| {
            let texts: Vec<String> = docs.iter().map(IndexDoc::embedding_text).collect();
            let vectors = semantic.given_or_embedded(docs, &texts);
            StagedVectors { index: self, semantic, texts, vectors }
        });
        match staged {
            Some(staged) => Box::new(staged),
            None => Box::new(NotStaged { index: self }),
        }
    }

    fn apply(&self, upserts: &[IndexDoc], removed: &[MemoryRef]) -> Result<Applied> {
        let semantic = match self.semantic() {
            Ok(semantic) => semantic,
            Err(why) => return self.lagging(why.0),
        };
        semantic.vectors.remove(removed)?;
        // Every writer embeds what it writes, so other processes' vectors stay current; a
        // model failure leaves the text index updated, and the vectors catch up later.
        match semantic.embed_into(upserts) {
            Ok(()) => Ok(Applied::Done),
            Err(e) => self.lagging(format!("not embedded: {}", e.report())),
        }
    }

    /// Without the model nothing is cleared: vectors another process made stay, and the
    /// catch-up mends them once this index is ready.
    fn clear(&self) -> Result<()> {
        self.semantic().map_or(Ok(()), |semantic| semantic.vectors.clear())
    }

    fn hashes(&self) -> Result<HashMap<MemoryRef, String>> {
        let semantic = self.semantic().map_err(|why| {
            Error::embedding(
                format!("the vector index is unavailable: {why}"),
                None,
                "install the embedding model (`memcore model` says how)",
            )
        })?;
        semantic.vectors.hashes()
    }

    /// Reads what other processes appended (once this handle has read the vectors). When one
    /// of them embedded the store again with another model, this handle's embedder no longer
    /// fits the vectors: semantic search is off for it (full text goes on), never mixing the
    /// two models.
    fn refresh(&self) -> Result<()> {
        let Some(semantic) = self.started() else { return Ok(()) };
        match semantic.vectors.refresh() {
            Err(ref e) if self.displaced_by(e).is_some() => Ok(()),
            other => other,
        }
    }

    fn built_with(&self) -> Option<String> {
        self.started().map(|semantic| semantic.vectors.model_id().to_owned())
    }

    fn rebuild_batch(&self) -> usize {
        EMBED_BATCH
    }
}

/// Vectors computed for staged documents.
struct StagedVectors<'a> {
    index: &'a SemanticIndex,
    semantic: &'a Semantic,
    /// The texts that were embedded, in staging order.
    texts: Vec<String>,
    /// Their vectors; an `Err` (the model failed) leaves the index lagging.
    vectors: Result<Vec<Vec<f32>>>,
}

impl Staged for StagedVectors<'_> {
    fn publish(
        self: Box<Self>,
        docs: &[IndexDoc],
        changed: &[usize],
        replaced: &[MemoryRef],
    ) -> Result<Applied> {
        let Self { index, semantic, texts, vectors } = *self;
        let mut vectors = match vectors {
            Ok(vectors) => vectors,
            Err(e) => return index.lagging(format!("not embedded: {}", e.report())),
        };
        // A changed memory keeps its vector when the text it was embedded from is the same.
        let mut reembed = Vec::new();
        let mut fresh_texts = Vec::new();
        for &i in changed {
            let text = docs[i].embedding_text();
            if text != texts[i] {
                reembed.push(i);
                fresh_texts.push(text);
            }
        }
        if !reembed.is_empty() {
            match semantic.embed(&fresh_texts) {
                Ok(fresh) => reembed.iter().zip(fresh).for_each(|(&i, v)| vectors[i] = v),
                Err(e) => return index.lagging(format!("not embedded: {}", e.report())),
            }
        }
        semantic.vectors.remove(replaced)?;
        if semantic.shared.is_some() {
            // Vectors the writer gave are kept only here: kept vectors promise the model's
            // vector of a text.
            let texts: Vec<String> = docs.iter().map(IndexDoc::embedding_text).collect();
            let entries: Vec<_> = vector_keys(docs, &texts)
                .into_iter()
                .zip(docs.iter().zip(&vectors))
                .filter(|(_, (doc, _))| doc.given_vector.is_none())
                .map(|(key, (_, vector))| (key, vector.as_slice()))
                .collect();
            semantic.share(&entries);
        }
        let items: Vec<_> = docs.iter().map(|d| d.meta.clone()).zip(vectors).collect();
        semantic.vectors.upsert(&items)?;
        Ok(Applied::Done)
    }
}

/// Nothing staged: semantic search is unavailable.
struct NotStaged<'a> {
    index: &'a SemanticIndex,
}

impl Staged for NotStaged<'_> {
    fn publish(self: Box<Self>, _: &[IndexDoc], _: &[usize], _: &[MemoryRef]) -> Result<Applied> {
        self.index.lagging("semantic search is unavailable".into())
    }
}
