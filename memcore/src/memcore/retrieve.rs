//! In-conversation retrieval on a handle (seed 003's retrieval flow, step 2): a recall whose
//! passages are appended, labelled, to a live session's context and recorded in its
//! retrieval history.

use super::Memcore;
use super::recall::check_agent_takes_part;
use crate::Result;
use crate::store::tiered::not_live;
use crate::store::{
    HotEvidence, RecallHit, RecallRequest, Retrieval, RetrieveRequest, RetrievedPassage,
};
use crate::text::shorten;

/// The longest passage a retrieval appends, in characters (a chunk is 1,000 by default).
const MAX_PASSAGE_CHARS: usize = 4_000;

impl Memcore {
    /// Retrieves into a live session (seed 003's `<<retrieve: keywords>>`): for the request's
    /// keywords, or for each `<<retrieve: ...>>` marker of an agent's output, searches the
    /// warm tier then the cold one as [`Memcore::recall`] does, appends each passage found to
    /// the session's context under its label (`Doc 1`, `Doc 2`, ... for documents' chunks,
    /// `M1`, ... for other evidence; a source keeps its label for the whole session), and
    /// records the query, the labels and the sources in the session's retrieval history.
    /// When the session ends, its summary lists the sources and ends with `Sources: Doc 1,
    /// Doc 2`.
    ///
    /// A store that is not tiered is [`crate::Error::Unsupported`], a session that is not live an
    /// [`crate::Error::NotFound`], an agent not in the session, blank keywords or a marker without
    /// keywords an [`crate::Error::Validation`]; an output without markers retrieves nothing.
    ///
    /// ```
    /// use memcore::session::SessionStartRequest;
    /// use memcore::{Backend, Memcore, NewMemory, RetrieveRequest};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let memcore = Memcore::builder().path(dir.path()).backend(Backend::Tiered).open()?;
    /// memcore.put(NewMemory::new("Roll back by redeploying the previous image tag."))?;
    /// memcore.session_start(&SessionStartRequest::new("incident-7"))?;
    /// let output = "Before I answer: <<retrieve: roll back image tag>>";
    /// let retrieved = memcore.retrieve(&RetrieveRequest::output("incident-7", output))?;
    /// assert_eq!(retrieved.passages[0].label, "M1");
    /// assert!(retrieved.context.starts_with("[M1] "));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn retrieve(&self, request: &RetrieveRequest) -> Result<Retrieval> {
        let tiers = self.tiers_for("retrieving into a live session")?;
        let queries = request.queries()?;
        let live = tiers.hot().get(&request.session).ok_or_else(|| not_live(&request.session))?;
        check_agent_takes_part(&live, request.agent.as_deref())?;
        let mut retrieval = Retrieval { queries: queries.clone(), ..Retrieval::default() };
        for query in queries {
            let mut recall = RecallRequest::new(query.as_str())
                .tier(request.tier)
                .limit(request.limit)
                .mode(request.mode);
            recall.agent.clone_from(&request.agent);
            let found = self.recall(&recall)?;
            retrieval.warnings.extend(found.warnings);
            let evidence: Vec<HotEvidence> = found
                .hits
                .iter()
                .map(|hit| HotEvidence { text: passage(hit), ..hit.evidence() })
                .collect();
            let updated = tiers.hot().record_retrieval(
                &request.session,
                &query,
                request.agent.as_deref(),
                evidence.clone(),
                self.now(),
            )?;
            let labels = updated.retrievals.last().map(|r| r.labels.clone()).unwrap_or_default();
            for (evidence, label) in evidence.into_iter().zip(labels) {
                if retrieval.passages.iter().any(|p| p.label == label) {
                    continue;
                }
                retrieval.passages.push(RetrievedPassage {
                    label,
                    query: query.clone(),
                    tier: evidence.tier,
                    source: evidence.source,
                    title: evidence.title,
                    document: evidence.document,
                    text: evidence.text,
                });
            }
        }
        let blocks: Vec<String> = retrieval.passages.iter().map(RetrievedPassage::render).collect();
        retrieval.context = blocks.join("\n\n");
        Ok(retrieval)
    }
}

/// The passage `hit` delivers: its text as the recall read it, at most
/// [`MAX_PASSAGE_CHARS`].
fn passage(hit: &RecallHit) -> String {
    shorten(hit.text.trim(), MAX_PASSAGE_CHARS)
}
