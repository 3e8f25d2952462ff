//! Context composition on a store ([`crate::compose`]): gathering working memory from the
//! full-text index and semantic context from search, then assembling them within a budget.

use super::Memcore;
use crate::compose::{
    Budget, Candidate, CandidateSource, ComposeRequest, ComposedContext, Section, assemble,
};
use crate::index::DocFilter;
use crate::{Error, MemoryRef, Query, Result, Status};

/// Pinned memories working memory considers, newest first.
const PINNED_CANDIDATES: usize = 10;
/// Active blockers working memory considers, newest first.
const BLOCKER_CANDIDATES: usize = 10;
/// Recent decisions working memory considers by default.
const DEFAULT_RECENT_DECISIONS: usize = 5;
/// Search hits considered by default.
const DEFAULT_SEARCH_CANDIDATES: usize = 20;
/// The most candidates of any one source a request may ask for.
const MAX_CANDIDATES: usize = 200;

impl Memcore {
    /// The block of context to put in a prompt: working memory (pinned memories, active
    /// blockers, recent decisions) and what `request.query` finds, within a token budget,
    /// each memory labelled `[M1]`, `[M2]`, ... with its `collection/id`, with the manifest
    /// of every candidate and why it was or was not included.
    ///
    /// ```no_run
    /// use memcore::{Memcore, compose::{ComposeRequest, ContextFormat}};
    ///
    /// let memcore = Memcore::open("/tmp/memories")?;
    /// let context = memcore.compose(&ComposeRequest::new("deploy the API").budget(1500))?;
    /// assert!(context.tokens <= 1500);
    /// for entry in &context.manifest {
    ///     println!("{} {:?} {:?}", entry.reference, entry.source, entry.outcome);
    /// }
    /// # Ok::<(), memcore::Error>(())
    /// ```
    pub fn compose(&self, request: &ComposeRequest) -> Result<ComposedContext> {
        let counter = request.tokenizer.counter();
        self.indexed.refresh()?;
        let text = &self.indexed.indexes().text;
        let budget =
            Budget::resolve(request.budget, request.tier, request.mode, || text.live_count())?;
        let mut candidates = Vec::new();
        let mut warnings = Vec::new();
        if !request.no_working_memory {
            candidates.extend(self.working_memory(request)?);
        }
        if !request.query.trim().is_empty() {
            let limit =
                bounded("candidates", request.candidates.unwrap_or(DEFAULT_SEARCH_CANDIDATES))?;
            let mut query =
                Query::new(request.query.clone()).mode(request.search_mode).limit(limit);
            query.collections = request.collections.clone();
            let results = self.search(&query)?;
            warnings.extend(results.warnings);
            for (rank, hit) in results.hits.into_iter().enumerate() {
                // Deleted since the index was read: not a candidate any more.
                let Some(memory) = self.get_if_present(&hit.memory.reference)? else { continue };
                candidates.push(candidate(
                    memory,
                    Section::Semantic,
                    CandidateSource::Search,
                    rank + 1,
                    Some((hit.score, hit.parts)),
                ));
            }
        }
        let assembly = assemble(&candidates, &budget, request.format, counter)?;
        Ok(ComposedContext {
            text: assembly.text,
            format: request.format,
            tokens: assembly.tokens,
            budget,
            tokenizer: request.tokenizer,
            items: assembly.items,
            manifest: assembly.manifest,
            composed_at: self.now(),
            warnings,
        })
    }

    /// Working memory's candidates: pinned memories, then active blockers, then the most
    /// recent decisions, each newest first.
    fn working_memory(&self, request: &ComposeRequest) -> Result<Vec<Candidate>> {
        let text = &self.indexed.indexes().text;
        let active = |collections: Vec<String>| DocFilter {
            collections,
            statuses: vec![Status::Active],
            ..DocFilter::default()
        };
        let or_default = |given: &[String], default: &str| {
            if given.is_empty() { vec![default.to_owned()] } else { given.to_vec() }
        };
        let decisions = bounded(
            "recent_decisions",
            request.recent_decisions.unwrap_or(DEFAULT_RECENT_DECISIONS),
        )?;
        let sources: [(CandidateSource, Vec<MemoryRef>); 3] = [
            (CandidateSource::Pinned, text.recent(&active(vec![]), true, PINNED_CANDIDATES)?),
            (
                CandidateSource::Blocker,
                text.recent(
                    &active(or_default(&request.blocker_collections, "blockers")),
                    false,
                    BLOCKER_CANDIDATES,
                )?,
            ),
            (
                CandidateSource::Decision,
                text.recent(
                    &active(or_default(&request.decision_collections, "decisions")),
                    false,
                    decisions,
                )?,
            ),
        ];
        let mut candidates = Vec::new();
        for (source, keys) in sources {
            for (rank, key) in keys.into_iter().enumerate() {
                let Some(memory) = self.get_if_present(&key)? else { continue };
                candidates.push(candidate(memory, Section::Working, source, rank + 1, None));
            }
        }
        Ok(candidates)
    }
}

impl Memcore {
    /// The memory `key`, or `None` when it is gone (deleted by another writer meanwhile).
    fn get_if_present(&self, key: &MemoryRef) -> Result<Option<crate::Memory>> {
        match self.get(key) {
            Ok(memory) => Ok(Some(memory)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// A candidate of `memory`.
fn candidate(
    memory: crate::Memory,
    section: Section,
    source: CandidateSource,
    rank: usize,
    score: Option<(f64, crate::ScoreParts)>,
) -> Candidate {
    Candidate {
        reference: memory.reference(),
        title: memory.title,
        kind: memory.kind,
        updated_at: memory.updated_at,
        content: memory.content,
        section,
        source,
        rank,
        score,
    }
}

/// `count` if it is at most [`MAX_CANDIDATES`], else a validation error naming `field`.
fn bounded(field: &str, count: usize) -> Result<usize> {
    if count > MAX_CANDIDATES {
        return Err(Error::validation(
            format!("{field} {count} is more than {MAX_CANDIDATES}"),
            format!("ask for at most {MAX_CANDIDATES}; the budget holds far fewer anyway"),
        ));
    }
    Ok(count)
}
