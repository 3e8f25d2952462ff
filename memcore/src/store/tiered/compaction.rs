//! Compaction's plan (seed 003's "warm aging"): which warm memories are past the window, how
//! they group into digests (one per collection and quarter of creation), and what a digest
//! holds. [`crate::Memcore::compact`] carries the plan out.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use chrono::Datelike;

use crate::decay::exempt_from_aging;
use crate::session::TranscriptMessage;
use crate::session::registry::sha256_hex;
use crate::{Memory, MemoryRef, NewMemory, Timestamp};

/// The `type` of a digest memory; digests are never compacted themselves.
pub(crate) const DIGEST_KIND: &str = "digest";

/// The metadata key listing the cold-archive ids of the memories a digest folded in.
pub(crate) const FOLDED_KEY: &str = "compacted_from";

/// The heading before a digest's list of sources.
const SOURCES_HEADING: &str = "## Sources";

/// About how many tokens a digest's summary takes.
pub(crate) const DIGEST_TOKENS: usize = 400;

/// The memories of one collection and quarter past the window, and the digest they go into.
#[derive(Debug)]
pub(crate) struct Group {
    /// The digest: `<collection>/digest-<yyyy>-q<n>`.
    pub(crate) digest: MemoryRef,
    /// The quarter, `2026-q3`.
    pub(crate) period: String,
    /// The memories, oldest first.
    pub(crate) members: Vec<Arc<Memory>>,
}

/// The groups of `memories` last changed before `cutoff` (pinned memories and digests
/// excepted), by digest, and how many pinned memories were left alone.
pub(crate) fn plan(memories: Vec<Arc<Memory>>, cutoff: Timestamp) -> (Vec<Group>, usize) {
    let mut pinned = 0;
    let mut groups: BTreeMap<(String, String), Vec<Arc<Memory>>> = BTreeMap::new();
    for memory in memories {
        if memory.updated_at >= cutoff || is_digest(&memory) {
            continue;
        }
        if exempt_from_aging(&memory) {
            pinned += 1;
            continue;
        }
        let period = quarter(memory.created_at);
        groups.entry((memory.collection.to_string(), period)).or_default().push(memory);
    }
    let groups = groups
        .into_iter()
        .filter_map(|((collection, period), mut members)| {
            members.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
            let digest = format!("{collection}/digest-{period}").parse().ok()?;
            Some(Group { digest, period, members })
        })
        .collect();
    (groups, pinned)
}

/// The quarter of `at`: `2026-q3`.
fn quarter(at: Timestamp) -> String {
    format!("{:04}-q{}", at.year(), at.month0() / 3 + 1)
}

/// The cold archive's id of `memory` as it is now: `collection/id@<12 hex digits of the
/// SHA-256 of the whole memory>` (archiving it again is a no-op; a memory changed in any
/// field, or made again, is a new record).
pub(crate) fn cold_id(memory: &Memory) -> String {
    let whole = serde_json::to_vec(memory).unwrap_or_else(|_| memory.content.clone().into_bytes());
    let hash = sha256_hex(&whole);
    format!("{}@{}", memory.reference(), &hash[..12])
}

/// Whether `memory` is a digest compaction wrote (its type, and the ids it folded in).
pub(crate) fn is_digest(memory: &Memory) -> bool {
    memory.kind.as_deref() == Some(DIGEST_KIND) && memory.metadata.contains_key(FOLDED_KEY)
}

/// The cold-archive ids a digest folded in already.
pub(crate) fn folded(digest: &Memory) -> BTreeSet<String> {
    digest
        .metadata
        .get(FOLDED_KEY)
        .and_then(serde_json::Value::as_array)
        .map(|ids| ids.iter().filter_map(|id| id.as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

/// What the summariser reads for a digest: the digest's summary so far, then each memory
/// to fold in (title and content).
pub(crate) fn summary_input(
    existing: Option<&Memory>,
    fresh: &[&Memory],
) -> Vec<TranscriptMessage> {
    let mut messages = Vec::with_capacity(fresh.len() + 1);
    if let Some(summary) = existing.map(|digest| split(&digest.content).0).filter(|s| !s.is_empty())
    {
        messages.push(TranscriptMessage::new("summary", "summary", summary));
    }
    messages.extend(fresh.iter().map(|memory| {
        TranscriptMessage::new(
            memory.reference().to_string(),
            "",
            format!("{}: {}", memory.title, memory.content),
        )
    }));
    messages
}

/// The digest of `group` once `fresh` is folded into `existing` (if any) with `summary`:
/// the summary, then its sources (the earlier ones kept), related to every original, with
/// every folded cold id in its metadata.
pub(crate) fn digest(
    group: &Group,
    existing: Option<&Memory>,
    fresh: &[&Memory],
    summary: &str,
) -> NewMemory {
    let (_, old_sources) = existing.map(|digest| split(&digest.content)).unwrap_or_default();
    let mut sources: Vec<String> =
        old_sources.lines().filter(|l| l.starts_with("- ")).map(str::to_owned).collect();
    sources.extend(fresh.iter().map(|memory| {
        format!(
            "- {}: {} ({})",
            memory.reference(),
            memory.title,
            memory.created_at.format("%Y-%m-%d")
        )
    }));
    let content = format!("{}\n\n{SOURCES_HEADING}\n\n{}\n", summary.trim(), sources.join("\n"));
    let mut related: BTreeSet<String> =
        existing.map(|d| d.related_to.iter().cloned().collect()).unwrap_or_default();
    related.extend(fresh.iter().map(|memory| memory.reference().to_string()));
    let mut ids = existing.map(folded).unwrap_or_default();
    ids.extend(fresh.iter().map(|memory| cold_id(memory)));
    let mut tags: BTreeSet<String> =
        existing.map(|d| d.tags.iter().cloned().collect()).unwrap_or_default();
    tags.insert(DIGEST_KIND.to_owned());
    let created = group.members.iter().map(|m| m.created_at).min();
    let (year, q) = group.period.split_once("-q").unwrap_or((&group.period, ""));
    let mut memory = NewMemory::new(content)
        .id(group.digest.id().as_str())
        .collection(group.digest.collection().map(ToString::to_string).unwrap_or_default())
        .title(format!(
            "{} digest, {year} Q{q}",
            group.digest.collection().map(|c| c.as_str()).unwrap_or_default()
        ))
        .kind(DIGEST_KIND)
        .context(format!(
            "compaction of the memories of {} older than the warm window",
            group.period
        ))
        .tags(tags)
        .related_to(related)
        .meta(FOLDED_KEY, serde_json::json!(ids));
    if let Some(created) = created {
        memory = memory.created_at(created);
    }
    memory
}

/// A digest's content as its summary and its sources section (the last such heading: a
/// summary may quote one).
fn split(content: &str) -> (&str, &str) {
    match content.rsplit_once(SOURCES_HEADING) {
        Some((summary, sources)) => (summary.trim(), sources),
        None => (content.trim(), ""),
    }
}
