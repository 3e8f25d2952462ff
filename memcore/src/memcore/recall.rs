//! Search across tiers (seed 003's retrieval flow): the warm tier first, the cold archive as
//! fallback or on request, every hit labelled `M1`, `M2`, ... with its tier and provenance,
//! and, for a live session, the retrieval recorded in its history.

use super::Memcore;
use crate::store::tiered::Found;
use crate::store::tiered::compaction::folded;
use crate::store::{
    ArchiveFilter, ArchivedRecord, RecallHit, RecallRequest, RecallResults, Tier, TierScope, Tiers,
};
use crate::text::one_line;
use crate::{Memory, MemoryRef, Query, Result};

/// The longest excerpt a hit carries, in characters.
const EXCERPT_CHARS: usize = 240;
/// Cold candidates fetched per hit wanted when a view or collections filter them afterwards.
const COLD_OVERFETCH: usize = 4;
/// The rank offset of the fusion of the two tiers' rankings (as in hybrid search).
const FUSION_OFFSET: f64 = 5.0;
/// The metadata key naming the session a warm memory came from.
pub(crate) const SESSION_KEY: &str = "session";

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
        if let (Some(session), Some(tiers)) = (&request.session, tiers)
            && tiers.hot().get(session).is_none()
        {
            return Err(crate::store::tiered::not_live(session));
        }
        let mut warnings = Vec::new();
        let mut mode = request.mode;
        let warm = if request.tier == TierScope::Cold {
            Vec::new()
        } else {
            let results = self.search(&request.warm_query())?;
            warnings.extend(results.warnings);
            mode = results.mode;
            let refs: Vec<MemoryRef> =
                results.hits.iter().map(|hit| hit.memory.reference.clone()).collect();
            let memories = self.indexed.store().get_many(&refs)?;
            results
                .hits
                .iter()
                .zip(memories)
                .filter_map(|(hit, memory)| memory.ok().map(|m| warm_hit(&m, hit.score)))
                .collect()
        };
        let cold = match tiers {
            Some(tiers) if request.tier.needs_cold() || cold_fills(request, &warm) => {
                let wanted = match request.tier {
                    TierScope::Auto => request.limit - warm.len(),
                    _ => request.limit,
                };
                cold_hits(tiers, request, wanted)?
            }
            _ => Vec::new(),
        };
        let mut hits = match request.tier {
            TierScope::All => fuse(warm, cold, request.limit),
            _ => warm.into_iter().chain(cold).take(request.limit).collect(),
        };
        self.label(request, &mut hits)?;
        Ok(RecallResults { hits, mode, warnings })
    }

    /// Labels `hits`: by their place, or as the live session of `request` labels them (and
    /// records the retrieval there).
    fn label(&self, request: &RecallRequest, hits: &mut [RecallHit]) -> Result<()> {
        let (Some(session), Some(tiers)) = (&request.session, self.tiers()) else {
            for (place, hit) in hits.iter_mut().enumerate() {
                hit.label = format!("M{}", place + 1);
            }
            return Ok(());
        };
        let found: Vec<Found> =
            hits.iter().map(|hit| (hit.tier, hit.source.clone(), hit.title.clone())).collect();
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

/// Whether an `auto` recall asks the cold archive to fill places the warm tier left.
fn cold_fills(request: &RecallRequest, warm: &[RecallHit]) -> bool {
    request.tier == TierScope::Auto && warm.len() < request.limit
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
    }
}

/// The best `wanted` cold hits of `request` in its view and collections, unlabelled.
fn cold_hits(tiers: &Tiers, request: &RecallRequest, wanted: usize) -> Result<Vec<RecallHit>> {
    if wanted == 0 {
        return Ok(Vec::new());
    }
    let view = request.warm_query();
    let filtered = view.agent.is_some() || view.shared || !view.collections.is_empty();
    let fetch = if filtered { wanted * COLD_OVERFETCH } else { wanted };
    let found = tiers.cold().search(&request.text, &ArchiveFilter::default(), fetch)?;
    Ok(found
        .into_iter()
        .filter(|hit| in_view(&view, &hit.record))
        .take(wanted)
        .map(|hit| cold_hit(hit.record, f64::from(hit.score)))
        .collect())
}

/// Whether `query`'s view and collections admit the archived `record`: a demoted memory as
/// the warm tier would admit it, a turn (of a session's shared transcript) when no
/// collection is asked for.
fn in_view(query: &Query, record: &ArchivedRecord) -> bool {
    match &record.memory {
        Some(memory) => {
            query.sees(memory)
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
            turn_title(&record),
            one_line(&record.text, EXCERPT_CHARS),
            record.session.clone(),
            record.agent.clone(),
            record.origin.iter().map(ToString::to_string).collect(),
        ),
    };
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
    }
}

/// A turn's title: `<session> turn <n>` from its id `turn/<session>/<n>`, else its id.
fn turn_title(record: &ArchivedRecord) -> String {
    let number = record.id.rsplit('/').next().filter(|n| n.parse::<u64>().is_ok());
    match (&record.session, number) {
        (Some(session), Some(number)) => format!("{session} turn {number}"),
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

/// The two tiers' rankings fused (reciprocal rank fusion, each tier weighted alike), the
/// warm hit first on a tie; at most `limit`.
fn fuse(warm: Vec<RecallHit>, cold: Vec<RecallHit>, limit: usize) -> Vec<RecallHit> {
    let fused = |rank: usize| 1.0 / (FUSION_OFFSET + rank as f64 + 1.0);
    let mut ranked: Vec<(f64, usize, RecallHit)> = warm
        .into_iter()
        .enumerate()
        .map(|(rank, hit)| (fused(rank), 0, hit))
        .chain(cold.into_iter().enumerate().map(|(rank, hit)| (fused(rank), 1, hit)))
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    ranked.into_iter().take(limit).map(|(_, _, hit)| hit).collect()
}
