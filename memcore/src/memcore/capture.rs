//! The capture engine on a store ([`crate::capture`]): a text's markers or signals, their
//! novelty against the stored memories, the decision, and storing what was decided.

use std::collections::HashMap;

use super::Memcore;
use crate::capture::{
    self, CaptureConfig, CaptureDecision, CaptureRequest, CaptureSignal, Marker, Novelty,
    NoveltyMethod, Proposal, SUGGESTED_SUMMARY_CHARS, SignalType, SimilarMemory,
};
use crate::store::PutMode;
use crate::text::shorten;
use crate::{Error, MemoryId, MemoryRef, NewMemory, Query, Result, SearchMode};

/// The most characters of a capture a novelty search reads (the embedding model reads fewer).
const NOVELTY_QUERY_CHARS: usize = 2_000;
/// The characters of an explicit capture's text shown as its signal's match (seed 5.2: 50).
const EXPLICIT_MATCH_CHARS: usize = 50;

impl Memcore {
    /// Decides what in `request.text` is worth remembering (seed 002, section 1): markers
    /// (`[remember]`, `[remember:<namespace>]`) where the text has them, else the seed's
    /// signal phrases; each capture's novelty against the stored memories of its namespace;
    /// auto, suggest or skip. With `apply`, the auto captures (and with `apply_suggested` the
    /// suggested ones) are stored in one batch, all or nothing, and `stored` names them.
    ///
    /// Nothing is stored unless asked. Bad markers, namespaces and summaries are validation
    /// errors naming what to change; a text with nothing to capture is a `skip` decision.
    ///
    /// ```
    /// use memcore::capture::{CaptureAction, CaptureRequest};
    /// use memcore::Memcore;
    ///
    /// let dir = tempfile::tempdir()?;
    /// let memcore = Memcore::open(dir.path())?;
    /// let text = "TIL that SQLite needs WAL mode for concurrent readers.";
    /// let decision = memcore.capture(&CaptureRequest::new(text).apply(false))?;
    /// assert_eq!(decision.action, CaptureAction::Auto);
    /// assert_eq!(decision.captures[0].namespace, "learnings");
    /// assert_eq!(memcore.get(&decision.stored[0])?.kind.as_deref(), Some("learning"));
    ///
    /// // The same again is a duplicate of what was just stored.
    /// let again = memcore.capture(&CaptureRequest::new(text))?;
    /// assert_eq!(again.action, CaptureAction::Skip);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn capture(&self, request: &CaptureRequest) -> Result<CaptureDecision> {
        let config = &self.config().capture;
        let limits = &self.config().limits;
        if let Some(namespace) = &request.namespace {
            config.check_namespace(namespace)?;
        }
        let mut proposals = self.proposals(request, config)?;
        for proposal in &mut proposals {
            limits.check_content(&proposal.content)?;
            if let Some(namespace) =
                request.namespace.as_ref().filter(|_| !proposal.fixed_namespace)
            {
                proposal.signal.namespace.clone_from(namespace);
            }
        }
        let mut warnings = Vec::new();
        let mut checked: HashMap<(String, String), Novelty> = HashMap::new();
        let novelty_of = |namespace: &str, content: &str| {
            if !request.check_novelty {
                return Ok(Novelty::unchecked());
            }
            let key = (namespace.to_owned(), content.to_owned());
            if let Some(known) = checked.get(&key) {
                return Ok(known.clone());
            }
            let novelty = self.novelty(namespace, content, config, &mut warnings)?;
            checked.insert(key, novelty.clone());
            Ok(novelty)
        };
        let mut decision = capture::decide(proposals, config, &request.tags, novelty_of)?;
        let mut seen = std::collections::HashSet::new();
        warnings.retain(|warning| seen.insert(warning.clone()));
        decision.warnings = warnings;
        if request.apply {
            decision.stored = self.store_captures(&decision, request)?;
        }
        Ok(decision)
    }

    /// The signals of `request` with what capturing each would store: the whole text for an
    /// explicit capture (a summary given), else its markers, else its detected signals.
    fn proposals(&self, request: &CaptureRequest, config: &CaptureConfig) -> Result<Vec<Proposal>> {
        if let Some(summary) = &request.summary {
            return self.explicit_capture(request, summary).map(|p| vec![p]);
        }
        let markers = capture::find_markers(&request.text, &config.namespaces)?;
        if markers.is_empty() {
            let text = &request.text;
            let signals = capture::signals::detect_with_windows(text, config.context_chars);
            return Ok(signals
                .into_iter()
                .map(|(signal, window)| Proposal::detected(text, signal, &window))
                .collect());
        }
        Ok(markers.into_iter().map(|marker| marked(marker, config)).collect())
    }

    /// The one capture of seed 002's `/capture` command: the whole text, the namespace and
    /// summary given.
    fn explicit_capture(&self, request: &CaptureRequest, summary: &str) -> Result<Proposal> {
        let Some(namespace) = &request.namespace else {
            return Err(Error::validation(
                "a capture with a summary needs a namespace",
                format!(
                    "give the namespace too (one of: {})",
                    self.config().capture.namespaces.join(", ")
                ),
            ));
        };
        if summary.trim().is_empty() {
            return Err(Error::validation(
                "summary cannot be empty",
                "provide a one-line summary of the memory",
            ));
        }
        self.config().limits.check_summary(summary)?;
        let text = request.text.trim();
        // Positions are in the request's text, leading white space included.
        let lead = request.text.len() - request.text.trim_start().len();
        let lead_chars = request.text[..lead].chars().count();
        let matched: String = text.chars().take(EXPLICIT_MATCH_CHARS).collect();
        let signal = CaptureSignal {
            kind: SignalType::Explicit,
            confidence: 1.0,
            context: text.to_owned(),
            namespace: namespace.clone(),
            start: lead,
            end: lead + matched.len(),
            start_char: lead_chars,
            end_char: lead_chars + matched.chars().count(),
            matched,
        };
        Ok(Proposal {
            signal,
            content: text.to_owned(),
            summary: Some(summary.to_owned()),
            fixed_namespace: true,
        })
    }

    /// The novelty of `content` against the `novelty_k` most similar memories of
    /// `namespace`: by embedding when the model is there, else by word overlap (and a
    /// warning says so).
    fn novelty(
        &self,
        namespace: &str,
        content: &str,
        config: &CaptureConfig,
        warnings: &mut Vec<String>,
    ) -> Result<Novelty> {
        let text: String = content.chars().take(NOVELTY_QUERY_CHARS).collect();
        let query = Query::new(text)
            .mode(SearchMode::Semantic)
            .limit(config.novelty_k)
            .collection(namespace);
        let results = self.search(&query)?;
        if results.mode == SearchMode::Semantic {
            let similar = results
                .hits
                .iter()
                .map(|hit| SimilarMemory {
                    reference: hit.memory.reference.clone(),
                    similarity: f64::from(hit.parts.vector_similarity.unwrap_or(0.0)),
                })
                .collect();
            return Ok(Novelty::of(similar, NoveltyMethod::Semantic, config));
        }
        warnings.extend(results.warnings);
        warnings.push(
            "novelty was measured by word overlap, not by meaning, because semantic search \
             is unavailable"
                .to_owned(),
        );
        let own = capture::words(content);
        let mut similar = Vec::with_capacity(results.hits.len());
        for hit in &results.hits {
            let stored = match self.get(&hit.memory.reference) {
                Ok(memory) => memory,
                Err(Error::NotFound { .. }) => continue,
                Err(e) => return Err(e),
            };
            let similarity = capture::overlap(&own, &capture::words(&stored.content));
            similar.push(SimilarMemory { reference: hit.memory.reference.clone(), similarity });
        }
        Ok(Novelty::of(similar, NoveltyMethod::Text, config))
    }

    /// Stores the captures `request` asks for, in one batch; their refs, in order.
    fn store_captures(
        &self,
        decision: &CaptureDecision,
        request: &CaptureRequest,
    ) -> Result<Vec<MemoryRef>> {
        let wanted = |action| {
            action == capture::CaptureAction::Auto
                || (request.apply_suggested && action == capture::CaptureAction::Suggest)
        };
        let max_summary = self.config().limits.max_summary_chars;
        let memories: Vec<NewMemory> = decision
            .captures
            .iter()
            .filter(|capture| wanted(capture.action))
            .map(|capture| {
                let id = MemoryId::for_content(&capture.content);
                let mut memory = NewMemory::new(capture.content.as_str())
                    .id(id.as_str())
                    .collection(capture.namespace.as_str())
                    .title(shorten(&capture.summary, SUGGESTED_SUMMARY_CHARS))
                    .summary(shorten(&capture.summary, max_summary))
                    .kind(capture.kind.memory_type())
                    .tags(capture.tags.iter().cloned())
                    .meta(
                        "capture",
                        serde_json::json!({
                            "signal": capture.kind.as_str(),
                            "confidence": capture.confidence,
                        }),
                    );
                if let Some(author) = &request.created_by {
                    memory = memory.created_by(author.as_str());
                }
                memory
            })
            .collect();
        if memories.is_empty() {
            return Ok(Vec::new());
        }
        let stored = self.put_many_with(memories, PutMode::Upsert)?;
        Ok(stored.iter().map(crate::Memory::reference).collect())
    }
}

/// The capture a marker makes: an explicit signal of confidence 1.0 (seed 5.2) over the text
/// it marks, in the namespace it names or, for `[remember]`, the one the strongest signal in
/// that text suggests (`notes` when there is none).
fn marked(marker: Marker, config: &CaptureConfig) -> Proposal {
    let fixed_namespace = marker.namespace.is_some();
    let namespace = marker.namespace.unwrap_or_else(|| {
        capture::detect_signals(&marker.content, config.context_chars)
            .iter()
            .max_by(|a, b| a.confidence.total_cmp(&b.confidence))
            .map_or(SignalType::Explicit.namespace(), |signal| signal.kind.namespace())
            .to_owned()
    });
    let signal = CaptureSignal {
        kind: SignalType::Explicit,
        matched: marker.tag,
        confidence: 1.0,
        context: marker.content.clone(),
        namespace,
        start: marker.start,
        end: marker.end,
        start_char: marker.start_char,
        end_char: marker.end_char,
    };
    Proposal { signal, content: marker.content, summary: None, fixed_namespace }
}
