//! Search across tiers (seed 003's retrieval flow): the warm tier first, the cold archive as
//! fallback or on request, every hit labelled `M1`, `M2`, ... with its tier and provenance,
//! and, for a live session, the retrieval recorded in its history.

use std::collections::HashSet;

use super::Memcore;
use crate::docs::{CHUNK_KIND, DOCUMENT_KEY, is_document_memory};
use crate::store::tiered::compaction::folded;
use crate::store::tiered::{next_label, not_live};
use crate::store::{
    ArchiveFilter, ArchivedKind, ArchivedRecord, HotEvidence, HotSession, RecallHit, RecallRequest,
    RecallResults, Tier, TierScope, Tiers,
};
use crate::text::one_line;
use crate::{Error, Memory, MemoryRef, Query, Result, SESSION_KEY, SearchMode};

/// The longest excerpt a hit carries, in characters.
const EXCERPT_CHARS: usize = 240;
/// How much more the cold search fetches each time the view rejected too many records.
const COLD_OVERFETCH: usize = 4;
/// The most cold candidates one recall reads.
const MAX_COLD_FETCH: usize = 4_096;

impl Memcore {
    /// Searches the store's tiers for `request.text`: the warm tier (the indexed memories)
    /// and the cold archive (ended sessions' turns, demoted memories), as
    /// [`RecallRequest::tier`] says. Hits are labelled `M1`, `M2`, ... and carry their tier,
    /// source, excerpt and provenance (session, agent, originals).
    ///
    /// With [`RecallRequest::session`] the recall is recorded in that live session's
    /// retrieval history, and its labels are the session's: a source keeps the label it got
    /// when the session first recalled it. A store that is not tiered searches its warm tier
    /// only (`cold` and `all` are [`crate::Error::Unsupported`], as is a session); a session
    /// that is not live is an [`crate::Error::NotFound`]; the checks of
    /// [`Query::validate`] apply.
    ///
    /// ```
    /// use memcore::{Memcore, NewMemory, RecallRequest, Tier};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let memcore = Memcore::open(dir.path())?;
    /// memcore.put(NewMemory::new("The release checklist lives in docs/release.md."))?;
    /// let recalled = memcore.recall(&RecallRequest::new("release checklist"))?;
    /// assert_eq!(recalled.hits[0].label, "M1");
    /// assert_eq!(recalled.hits[0].tier, Tier::Warm);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn recall(&self, request: &RecallRequest) -> Result<RecallResults> {
        request.validate()?;
        let tiers = self.tiers();
        if request.tier.needs_cold() || request.session.is_some() {
            let what = if request.session.is_some() {
                "recording a recall in a live session"
            } else {
                "searching the cold tier"
            };
            self.tiers_for(what)?;
        }
        if let (Some(session), Some(tiers)) = (&request.session, tiers) {
            let live = tiers.hot().get(session).ok_or_else(|| not_live(session))?;
            check_agent_takes_part(&live, request.agent.as_deref())?;
        }
        let mut warnings = Vec::new();
        let (warm, mode) = match request.tier {
            TierScope::Cold => (Vec::new(), SearchMode::Text),
            _ => self.warm_hits(request, &mut warnings)?,
        };
        let matching = warm.iter().filter(|(_, words)| *words).count();
        let cold = match tiers {
            // Every scope but `warm` reads the archive (`auto` to fill up).
            Some(tiers) if request.tier != TierScope::Warm => {
                let wanted = match request.tier {
                    TierScope::Auto => request.limit.saturating_sub(matching),
                    _ => request.limit,
                };
                let warm_sources: HashSet<&str> =
                    warm.iter().map(|(hit, _)| hit.source.as_str()).collect();
                match cold_hits(tiers, request, wanted, &warm_sources) {
                    Ok(hits) => hits,
                    // `auto` reads the archive only to fill up: the warm hits stand alone.
                    Err(e) if request.tier == TierScope::Auto => {
                        warnings.push(format!("the cold tier was left out: {e}"));
                        Vec::new()
                    }
                    Err(e) => return Err(e),
                }
            }
            _ => Vec::new(),
        };
        let mut hits = order(request, warm, cold);
        self.label(request, &mut hits)?;
        Ok(RecallResults { hits, mode, warnings })
    }

    /// The warm tier's hits of `request`, best first, each with whether it matched the
    /// query's words (a full-text hit, rather than one by meaning alone), and the mode the
    /// warm search ran in.
    fn warm_hits(
        &self,
        request: &RecallRequest,
        warnings: &mut Vec<String>,
    ) -> Result<(Vec<(RecallHit, bool)>, SearchMode)> {
        let results = self.search(&request.warm_query())?;
        warnings.extend(results.warnings);
        let refs: Vec<MemoryRef> =
            results.hits.iter().map(|hit| hit.memory.reference.clone()).collect();
        let memories = self.indexed.store().get_many(&refs)?;
        let mut hits = Vec::with_capacity(results.hits.len());
        for (hit, memory) in results.hits.iter().zip(memories) {
            match memory {
                Ok(memory) => {
                    hits.push((warm_hit(&memory, hit.score), hit.parts.text_rank.is_some()))
                }
                // Gone or damaged since the search read it: skipped, as the search does.
                Err(Error::NotFound { .. } | Error::Corrupted { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok((hits, results.mode))
    }

    /// Labels `hits`: by their place, or as the live session of `request` labels them (and
    /// records the retrieval there).
    fn label(&self, request: &RecallRequest, hits: &mut [RecallHit]) -> Result<()> {
        let (Some(session), Some(tiers)) = (&request.session, self.tiers()) else {
            for place in 0..hits.len() {
                let label = next_label(
                    hits[..place].iter().map(|hit| hit.label.as_str()),
                    hits[place].document.is_some(),
                );
                hits[place].label = label;
            }
            return Ok(());
        };
        let found: Vec<HotEvidence> = hits.iter().map(RecallHit::evidence).collect();
        let updated = tiers.hot().record_retrieval(
            session,
            &request.text,
            request.agent.as_deref(),
            found,
            self.now(),
        )?;
        let labels = updated.retrievals.last().map(|r| r.labels.clone()).unwrap_or_default();
        for (hit, label) in hits.iter_mut().zip(labels) {
            hit.label = label;
        }
        Ok(())
    }
}

/// A recall in `agent`'s view within a live session must be one of the agents the session
/// started with ([`Error::Validation`] otherwise), as an agent's session note must: its
/// evidence and queries end in that agent's notes.
pub(super) fn check_agent_takes_part(live: &HotSession, agent: Option<&str>) -> Result<()> {
    match agent {
        Some(agent) if !live.agents.iter().any(|a| a == agent) => Err(Error::validation(
            format!("agent {agent} does not take part in {}", live.session_id),
            "name one of the agents the session started with, or leave the agent out",
        )),
        _ => Ok(()),
    }
}

/// The hits in the order `request`'s scope presents them, at most its limit: `auto` puts
/// the warm hits that matched the query's words first, then the cold ones, then the warm
/// hits by meaning alone; `all` interleaves the two tiers' rankings; `warm` and `cold` have
/// one tier's.
fn order(
    request: &RecallRequest,
    warm: Vec<(RecallHit, bool)>,
    cold: Vec<RecallHit>,
) -> Vec<RecallHit> {
    let limit = request.limit;
    match request.tier {
        TierScope::Auto => {
            let (words, meaning): (Vec<_>, Vec<_>) = warm.into_iter().partition(|(_, w)| *w);
            let words = words.into_iter().map(|(hit, _)| hit);
            let meaning = meaning.into_iter().map(|(hit, _)| hit);
            words.chain(cold).chain(meaning).take(limit).collect()
        }
        TierScope::All => interleave(warm.into_iter().map(|(hit, _)| hit), cold, limit),
        TierScope::Warm | TierScope::Cold => {
            warm.into_iter().map(|(hit, _)| hit).chain(cold).take(limit).collect()
        }
    }
}

/// A warm hit of `memory`, unlabelled.
fn warm_hit(memory: &Memory, score: f64) -> RecallHit {
    RecallHit {
        label: String::new(),
        tier: Tier::Warm,
        source: memory.reference().to_string(),
        title: memory.title.clone(),
        excerpt: excerpt(memory),
        score,
        at: memory.created_at,
        session: metadata_text(memory, SESSION_KEY),
        agent: memory.agent().map(str::to_owned),
        origins: folded(memory).into_iter().collect(),
        document: chunk_document(memory),
        text: memory.content.clone(),
    }
}

/// The document `memory` is a chunk of, if it is a document's chunk.
fn chunk_document(memory: &Memory) -> Option<String> {
    (memory.kind.as_deref() == Some(CHUNK_KIND) && is_document_memory(memory))
        .then(|| metadata_text(memory, DOCUMENT_KEY))
        .flatten()
}

/// The best `wanted` cold hits of `request` in its view, statuses and collections, leaving
/// out demoted memories among `warm_sources`; unlabelled. Records the view rejects are made
/// up for by fetching more, up to [`MAX_COLD_FETCH`].
fn cold_hits(
    tiers: &Tiers,
    request: &RecallRequest,
    wanted: usize,
    warm_sources: &HashSet<&str>,
) -> Result<Vec<RecallHit>> {
    if wanted == 0 {
        return Ok(Vec::new());
    }
    let view = request.warm_query();
    let mut filter = ArchiveFilter::default();
    if !view.collections.is_empty() {
        // Turns belong to no collection.
        filter.kinds = vec![ArchivedKind::Memory];
    }
    let admits = |record: &ArchivedRecord| {
        in_view(&view, record)
            && record
                .memory
                .as_ref()
                .is_none_or(|m| !warm_sources.contains(m.reference().to_string().as_str()))
    };
    let mut fetch = wanted + warm_sources.len();
    loop {
        let found = tiers.cold().search(&request.text, &filter, fetch)?;
        let exhausted = found.len() < fetch;
        let admitted: Vec<_> =
            found.into_iter().filter(|hit| admits(&hit.record)).take(wanted).collect();
        if admitted.len() == wanted || exhausted || fetch >= MAX_COLD_FETCH {
            return Ok(admitted
                .into_iter()
                .map(|hit| cold_hit(hit.record, f64::from(hit.score)))
                .collect());
        }
        fetch = (fetch * COLD_OVERFETCH).min(MAX_COLD_FETCH);
    }
}

/// Whether `query`'s view, statuses and collections admit the archived `record`: a demoted
/// memory as the warm tier would admit it, a turn (of a session's shared transcript) when no
/// collection is asked for.
fn in_view(query: &Query, record: &ArchivedRecord) -> bool {
    match &record.memory {
        Some(memory) => {
            query.sees(memory)
                && query.statuses.contains(&memory.status)
                && (query.collections.is_empty()
                    || query.collections.iter().any(|c| c == memory.collection.as_str()))
        }
        None => query.collections.is_empty(),
    }
}

/// A cold hit of `record`, unlabelled. A demoted memory's originals are its own ref and,
/// for a digest demoted in turn, the ones it folded in.
fn cold_hit(record: ArchivedRecord, score: f64) -> RecallHit {
    let (title, excerpt, session, agent, origins) = match &record.memory {
        Some(memory) => (
            memory.title.clone(),
            excerpt(memory),
            metadata_text(memory, SESSION_KEY),
            memory.agent().map(str::to_owned),
            std::iter::once(memory.reference().to_string()).chain(folded(memory)).collect(),
        ),
        None => (
            record_title(&record),
            one_line(&record.text, EXCERPT_CHARS),
            record.session.clone(),
            None,
            record.origin.iter().map(ToString::to_string).collect(),
        ),
    };
    let document = record.memory.as_deref().and_then(chunk_document);
    let text = record.memory.as_ref().map_or_else(|| record.text.clone(), |m| m.content.clone());
    RecallHit {
        label: String::new(),
        tier: Tier::Cold,
        source: record.id,
        title,
        excerpt,
        score,
        at: record.at,
        session: session.or(record.session),
        agent,
        origins,
        document,
        text,
    }
}

/// The title of a record that is no memory: for a turn `<session> turn <n>` (from its id
/// `turn/<session>/<n>`), else its id.
fn record_title(record: &ArchivedRecord) -> String {
    let number = record.id.rsplit('/').next().filter(|n| n.parse::<u64>().is_ok());
    match (&record.session, number) {
        (Some(session), Some(number)) if record.kind == ArchivedKind::Turn => {
            format!("{session} turn {number}")
        }
        _ => record.id.clone(),
    }
}

/// The excerpt of a memory: its summary, else the start of its content, on one line.
fn excerpt(memory: &Memory) -> String {
    one_line(memory.summary.as_deref().unwrap_or(&memory.content), EXCERPT_CHARS)
}

/// A memory's metadata `key`, when a string.
fn metadata_text(memory: &Memory, key: &str) -> Option<String> {
    memory.metadata.get(key).and_then(serde_json::Value::as_str).map(str::to_owned)
}

/// The two tiers' rankings interleaved, rank by rank (the warm hit first), at most `limit`:
/// their scores (hybrid against BM25) do not compare, so neither tier outranks the other.
fn interleave(
    warm: impl Iterator<Item = RecallHit>,
    cold: Vec<RecallHit>,
    limit: usize,
) -> Vec<RecallHit> {
    let mut warm = warm.fuse();
    let mut cold = cold.into_iter().fuse();
    let mut hits = Vec::new();
    while hits.len() < limit {
        let (w, c) = (warm.next(), cold.next());
        if w.is_none() && c.is_none() {
            break;
        }
        hits.extend(w.into_iter().chain(c));
    }
    hits.truncate(limit);
    hits
}
