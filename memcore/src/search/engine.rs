//! The search engine: full-text and vector candidates, fused, filtered, boosted, explained.

use std::collections::{HashMap, HashSet};

use super::authors;
use super::dates;
use super::fusion::hybrid_score;
use super::neighbours;
use super::query_cache::QueryCache;
use super::{Hit, Query, ScoreParts, SearchMode, SearchResults};
use crate::concurrent::alongside;
use crate::decay::{DecayConfig, recency_factor};
use crate::index::{DocFilter, IndexDoc, Unavailable};
use crate::indexed::{IndexedStore, Maintenance};
use crate::links::{EdgeTypes, LinkEdge, extract_links, graph};
use crate::{Collection, Error, MemoryRef, Result, Timestamp};

/// Candidates fetched from each index per hit asked for, so fusion and filters have room.
const OVERFETCH: usize = 4;
/// Candidates fetched at least.
const MIN_CANDIDATES: usize = 40;
/// Extra over-fetch when `key=value` filters are checked after retrieval.
const FILTERED_OVERFETCH: usize = 5;

/// What a search needs from the handle.
pub(crate) struct SearchContext<'a> {
    /// The store, to load hits, and the indexes to query.
    pub(crate) indexed: &'a IndexedStore,
    /// Cached query embeddings.
    pub(crate) cache: &'a QueryCache,
    /// The current time, for the recency boost.
    pub(crate) now: Timestamp,
    /// The store's decay settings, for the recency boost.
    pub(crate) decay: &'a DecayConfig,
    /// How links are typed, for linked search.
    pub(crate) links: &'a EdgeTypes,
}

/// Runs `query`.
pub(crate) fn search(ctx: &SearchContext<'_>, query: &Query) -> Result<SearchResults> {
    query.validate()?;
    let (mut warnings, replayed) = ctx.indexed.refresh()?;
    let mut maintenance: Vec<Maintenance> = replayed.into_iter().collect();
    let mut filter = doc_filter(query)?;
    // Linked search: only the memories linking to the target, each with those links.
    let mut anchors: HashMap<MemoryRef, Vec<LinkEdge>> = HashMap::new();
    if let Some(target) = &query.linked_to {
        for edge in graph::backlinks(&ctx.indexed.indexes().text, target, ctx.links)? {
            anchors.entry(edge.source.clone()).or_default().push(edge);
        }
        filter.keys = Some(anchors.keys().cloned().collect());
    }
    warnings.extend(query.filters.iter().filter(|f| !f.is_builtin_key()).map(|f| {
        format!(
            "filter key `{}` is not a built-in field: it matches extra frontmatter keys only",
            f.key()
        )
    }));
    let mut fetch = (query.limit * OVERFETCH).max(MIN_CANDIDATES);
    if !query.filters.is_empty() || query.agent.is_some() || query.shared {
        fetch *= FILTERED_OVERFETCH;
    }

    // Hybrid search runs the full-text side on a second thread while this one embeds the
    // query and searches the vectors: the two are independent, and on two cores the text
    // side then costs nothing.
    let search_text = || text_side(ctx, &query.text, &filter, fetch);
    let (semantic, text_hits) = match query.mode {
        SearchMode::Text => (None, Some(search_text()?)),
        SearchMode::Semantic => (Some(semantic_hits(ctx, query, &filter, fetch)?), None),
        SearchMode::Hybrid => {
            let (text, semantic) = alongside(
                search_text,
                || semantic_hits(ctx, query, &filter, fetch),
                || Error::index("the full-text search panicked", None, "report this as a bug"),
            );
            (Some(semantic?), Some(text?))
        }
    };
    let mut mode = query.mode;
    let vector_hits = match semantic {
        None => Vec::new(),
        Some(Ok((hits, caught_up))) => {
            maintenance.extend(caught_up);
            hits
        }
        Some(Err(why)) => {
            warnings.push(format!(
                "semantic search is unavailable, so these are full-text results: {why}"
            ));
            mode = SearchMode::Text;
            Vec::new()
        }
    };
    let (text_hits, dated) = match text_hits {
        Some(side) => side,
        None if mode == SearchMode::Text => search_text()?,
        None => (Vec::new(), HashSet::new()),
    };

    let mut candidates = fuse(mode, &text_hits, &vector_hits, &dated);
    // Weighing turns only reorders: a failure to read their places leaves the order as it
    // was. An agent's view (or the shared one) weighs nothing: a turn the view hides must not
    // show through its neighbour's score.
    let viewed = query.agent.is_some() || query.shared;
    if mode != SearchMode::Semantic
        && !viewed
        && let Err(e) = neighbours::weigh_turns(&ctx.indexed.indexes().text, &mut candidates)
    {
        warnings.push(format!("conversation turns could not be weighed: {}", e.report()));
    }
    if mode != SearchMode::Semantic
        && let Err(e) =
            authors::prefer_named_authors(&ctx.indexed.indexes().text, &query.text, &mut candidates)
    {
        warnings.push(format!("the authors the search names could not be weighed: {}", e.report()));
    }
    if query.expand_links {
        expand_links(ctx, &filter, &mut candidates)?;
    }
    candidates.sort_by(|a, b| b.1.base.total_cmp(&a.1.base).then_with(|| a.0.cmp(&b.0)));

    let mut hits: Vec<Hit> = Vec::new();
    // Memories are read a few at a time: one query each for a database store.
    let chunk = query.limit.clamp(1, MAX_READ_AHEAD);
    'candidates: for candidates in candidates.chunks(chunk) {
        let keys: Vec<MemoryRef> = candidates.iter().map(|(key, _)| key.clone()).collect();
        let memories = ctx.indexed.store().get_many(&keys)?;
        for ((key, parts), memory) in candidates.iter().zip(memories) {
            // The recency factor is at most 1, so once `limit` hits score at least this
            // candidate's base, no later candidate can enter the results: stop loading.
            if query.limit > 0
                && hits.len() >= query.limit
                && parts.base < kth_best(&hits, query.limit)
            {
                break 'candidates;
            }
            let memory = match memory {
                Ok(memory) => memory,
                // Gone or damaged since it was indexed: skip it (repair drops the entry).
                Err(Error::NotFound { .. } | Error::Corrupted { .. }) => continue,
                Err(e) => return Err(e),
            };
            if !query.sees(&memory) || !query.filters.iter().all(|f| f.matches(&memory)) {
                continue;
            }
            let mut parts = *parts;
            parts.recency = recency_factor(relevance(ctx, query, &memory), query.recency.weight);
            let links = anchors.remove(key).unwrap_or_default();
            hits.push(Hit {
                memory: memory.summary_view(),
                score: parts.base * parts.recency,
                parts,
                links,
            });
        }
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    hits.truncate(query.limit);
    Ok(SearchResults { hits, mode, warnings, maintenance })
}

/// The full-text hits of `text` (at most `fetch`), and which of them are from a date the text
/// names (`dates`): those are searched for apart and preferred.
fn text_side(
    ctx: &SearchContext<'_>,
    text: &str,
    filter: &DocFilter,
    fetch: usize,
) -> Result<dates::TextHits> {
    let index = &ctx.indexed.indexes().text;
    let everywhere = index.search(text, filter, fetch)?;
    let Some((from, to)) = dates::named_window(text) else {
        return Ok((everywhere, HashSet::new()));
    };
    let window = DocFilter {
        created_from: Some(filter.created_from.map_or(from, |f| f.max(from))),
        created_to: Some(filter.created_to.map_or(to, |t| t.min(to))),
        ..filter.clone()
    };
    let dated = index.search(text, &window, fetch)?;
    Ok(dates::prefer_dated(everywhere, dated, fetch))
}

/// The relevance `query`'s recency boost gives `memory`: the decay engine's, with the
/// query's half-life and, unless `by_type` is off, the per-type rates.
fn relevance(ctx: &SearchContext<'_>, query: &Query, memory: &crate::Memory) -> f64 {
    let recency = &query.recency;
    if recency.weight == 0.0 {
        return 1.0;
    }
    let half_life = recency.half_life_days.unwrap_or(ctx.decay.half_life_days);
    let kind = if recency.by_type { memory.kind.as_deref() } else { None };
    ctx.decay.relevance_of(kind, memory.updated_at, ctx.now, half_life)
}

/// The vector hits of a search, and the catch-up the vector index needed first, if any.
type VectorHits = (Vec<(MemoryRef, f32)>, Option<Maintenance>);

/// The vector side of a search: the `fetch` nearest memories passing `filter` and the
/// minimum similarity. `Ok(Err(_))` when semantic search is unavailable (the search falls
/// back to its words), an [`Error::Embedding`] then for a search by a vector alone.
fn semantic_hits(
    ctx: &SearchContext<'_>,
    query: &Query,
    filter: &DocFilter,
    fetch: usize,
) -> Result<std::result::Result<VectorHits, Unavailable>> {
    let (semantic, caught_up) = match ctx.indexed.semantic() {
        Ok(semantic) => semantic,
        // A search by a vector alone has no words to fall back on.
        Err(why) if query.vector.is_some() && query.text.trim().is_empty() => {
            return Err(Error::embedding(
                format!(
                    "a search by vector alone needs the vector index, which is unavailable: {why}"
                ),
                None,
                "install the embedding model (`memcore model` says how), or open the store with \
                 the embedder that made the vectors; or give words to search for",
            ));
        }
        Err(why) => return Ok(Err(why)),
    };
    let embedded;
    let vector: &[f32] = match &query.vector {
        Some(given) => {
            semantic.check_given(given, "the query's vector")?;
            given
        }
        None => {
            embedded = ctx.cache.get_or_embed(semantic.embedder.model_id(), &query.text, || {
                let mut vectors = semantic.embedder.embed(&[query.text.as_str()])?;
                vectors.pop().ok_or_else(|| {
                    Error::embedding(
                        "the embedder returned no vector",
                        None,
                        "report this as a bug",
                    )
                })
            })?;
            &embedded
        }
    };
    let mut hits = semantic.vectors.search(vector, fetch, filter, None)?;
    if let Some(min) = query.min_similarity {
        hits.retain(|(_, similarity)| *similarity >= min);
    }
    Ok(Ok((hits, caught_up)))
}

/// The most candidates whose memories a search reads in one go.
const MAX_READ_AHEAD: usize = 32;

/// How many of the strongest candidates lend their links to others (`expand_links`).
const EXPAND_FROM: usize = 5;
/// The share of a strong candidate's score a linked memory takes.
const LINK_SHARE: f64 = 0.5;

/// Adds to `candidates` the memories the strongest ones link to or are linked from (those
/// `filter` lets through and not there already), each scored at [`LINK_SHARE`] of the
/// strongest candidate it is linked with.
fn expand_links(
    ctx: &SearchContext<'_>,
    filter: &DocFilter,
    candidates: &mut Vec<(MemoryRef, ScoreParts)>,
) -> Result<()> {
    let text = &ctx.indexed.indexes().text;
    let mut strongest: Vec<(MemoryRef, f64)> =
        candidates.iter().map(|(key, parts)| (key.clone(), parts.base)).collect();
    strongest.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    strongest.truncate(EXPAND_FROM);
    let mut known: HashMap<MemoryRef, usize> =
        candidates.iter().enumerate().map(|(i, (key, _))| (key.clone(), i)).collect();
    for (key, base) in strongest {
        let mut neighbours: Vec<MemoryRef> = graph::backlinks(text, &key.to_string(), ctx.links)?
            .into_iter()
            .map(|e| e.source)
            .collect();
        if let Ok(memory) = ctx.indexed.store().get(&key) {
            for link in extract_links(&memory.content, &EdgeTypes::untyped()) {
                neighbours.extend(graph::resolve(text, &link.target)?);
            }
        }
        for neighbour in neighbours {
            if neighbour == key || known.contains_key(&neighbour) {
                continue;
            }
            let Ok(memory) = ctx.indexed.store().get(&neighbour) else { continue };
            if !filter.matches(&IndexDoc::of(&memory).meta) {
                continue;
            }
            let share = base * LINK_SHARE;
            let parts = ScoreParts {
                base: share,
                recency: 1.0,
                link: Some(share),
                ..ScoreParts::default()
            };
            known.insert(neighbour.clone(), candidates.len());
            candidates.push((neighbour, parts));
        }
    }
    Ok(())
}

/// The `k`-th best score among `hits` (which holds at least `k >= 1` hits).
fn kth_best(hits: &[Hit], k: usize) -> f64 {
    let mut scores: Vec<f64> = hits.iter().map(|hit| hit.score).collect();
    let (_, kth, _) = scores.select_nth_unstable_by(k - 1, |a, b| b.total_cmp(a));
    *kth
}

/// Combines the ranked lists into one score per key, as `mode` prescribes.
///
/// `text` is in rank order; its `dated` hits (from a date the query names) count
/// [`dates::DATE_FACTOR`] times their BM25 score in a full-text search.
fn fuse(
    mode: SearchMode,
    text: &[(MemoryRef, f32)],
    vector: &[(MemoryRef, f32)],
    dated: &HashSet<MemoryRef>,
) -> Vec<(MemoryRef, ScoreParts)> {
    let mut parts: HashMap<&MemoryRef, ScoreParts> = HashMap::new();
    for (rank, (key, score)) in text.iter().enumerate() {
        let entry = parts.entry(key).or_default();
        entry.text_rank = Some(rank + 1);
        entry.text_score = Some(*score);
        entry.date_factor = dated.contains(key).then_some(f64::from(dates::DATE_FACTOR));
    }
    for (rank, (key, similarity)) in vector.iter().enumerate() {
        let entry = parts.entry(key).or_default();
        entry.vector_rank = Some(rank + 1);
        entry.vector_similarity = Some(*similarity);
    }
    parts
        .into_iter()
        .map(|(key, mut p)| {
            p.base = match mode {
                SearchMode::Hybrid => hybrid_score(p.text_rank, p.vector_rank),
                SearchMode::Text => {
                    f64::from(p.text_score.unwrap_or(0.0)) * p.date_factor.unwrap_or(1.0)
                }
                SearchMode::Semantic => f64::from(p.vector_similarity.unwrap_or(0.0)),
            };
            p.recency = 1.0;
            (key.clone(), p)
        })
        .collect()
}

/// The filters of `query` that the indexes apply themselves.
fn doc_filter(query: &Query) -> Result<DocFilter> {
    let collections = query
        .collections
        .iter()
        .map(|c| Collection::new(c.as_str()).map(|c| c.to_string()))
        .collect::<Result<Vec<_>>>()?;
    Ok(DocFilter {
        collections,
        tags_any: query.tags_any.clone(),
        tags_all: query.tags_all.clone(),
        kinds: query.kinds.clone(),
        statuses: query.statuses.clone(),
        created_from: query.created_after,
        created_to: query.created_before,
        updated_from: query.updated_after,
        updated_to: query.updated_before,
        keys: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(keys: &[&str]) -> Vec<(MemoryRef, f32)> {
        keys.iter().enumerate().map(|(i, k)| (k.parse().unwrap(), 1.0 - i as f32 * 0.1)).collect()
    }

    #[test]
    fn hybrid_rewards_agreement_and_explains_itself() {
        let fused = fuse(
            SearchMode::Hybrid,
            &hits(&["m/a", "m/b", "m/c"]),
            &hits(&["m/b", "m/d"]),
            &HashSet::new(),
        );
        let mut fused: Vec<_> = fused.into_iter().collect();
        fused.sort_by(|a, b| b.1.base.total_cmp(&a.1.base));
        assert_eq!(fused[0].0.to_string(), "m/b");
        let parts = fused[0].1;
        assert_eq!((parts.text_rank, parts.vector_rank), (Some(2), Some(1)));
        assert!((parts.base - hybrid_score(Some(2), Some(1))).abs() < 1e-12);
        assert_eq!(fused.len(), 4);
    }

    #[test]
    fn single_modes_keep_raw_scores() {
        let text = fuse(SearchMode::Text, &hits(&["m/a"]), &[], &HashSet::new());
        assert_eq!(text[0].1.base, 1.0);
        let semantic = fuse(SearchMode::Semantic, &[], &hits(&["m/x"]), &HashSet::new());
        assert_eq!(semantic[0].1.base, 1.0);
    }
}
