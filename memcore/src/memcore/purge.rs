//! Purge on a tiered store (seed 003's compliance removal): a memory or a session removed
//! from every tier and every derived index for good, with an audit record.

use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::sync::Arc;

use super::Memcore;
use super::tiers::{SESSIONS_COLLECTION, is_session_memory};
use crate::decay::is_pinned;
use crate::session::registry::check_name;
use crate::session::{ExtractiveSummarizer, condense};
use crate::store::tiered::compaction::{DIGEST_TOKENS, Group, digest, is_digest, summary_input};
use crate::store::{ArchivedRecord, AuditRecord, PurgeRequest, Tiers};
use crate::{Error, Memory, MemoryRef, PutMode, Result};

impl Memcore {
    /// Purges a memory (`ref`) or a session from every tier, for good, and appends an
    /// [`AuditRecord`] (who, what, when, why, how much went) to the audit log:
    ///
    /// - the warm memories (a session's summary and its agents' notes), with their trashed
    ///   copies and kept versions, and their entries in every index (the full-text index's
    ///   segments holding them are rewritten, so no index file keeps their words; the vector
    ///   index, which holds no text, drops their vectors from its live set, and from its log
    ///   at its next compaction);
    /// - every cold record of them: demoted copies, and a session's turns (segments
    ///   rewritten);
    /// - digests that folded them in are rebuilt from their other originals (removed if none
    ///   is left);
    /// - a session's timeline entries; a live session is dropped.
    ///
    /// A pinned memory or a live session (here or in another process) is an
    /// [`Error::Conflict`] unless `force`; a blank reason, or a memory named without its
    /// collection, an [`Error::Validation`]. What must go is written down before anything
    /// changes (`purge-intent.json`), so a purge that failed is finished by running it again
    /// (until then, other purges are refused). Compactions and purges wait for each other.
    /// History in git commits (a store in a git work tree) is not rewritten.
    pub fn purge(&self, request: &PurgeRequest) -> Result<AuditRecord> {
        let tiers = self.tiers_for("purging")?;
        check_purge(request)?;
        let (target, session) = match (&request.reference, &request.session) {
            (Some(reference), None) if reference.collection().is_some() => {
                (format!("memory {reference}"), None)
            }
            (Some(reference), None) => {
                return Err(Error::validation(
                    format!("purging {reference} needs its collection"),
                    "name the memory as collection/id (a purge must be exact)",
                ));
            }
            (None, Some(session)) => {
                check_name("session id", session)?;
                (format!("session {session}"), Some(session.as_str()))
            }
            _ => {
                return Err(Error::validation(
                    "purge needs a memory or a session, and only one",
                    "give `ref` (collection/id) or `session` (a session's id)",
                ));
            }
        };
        let _maintenance = tiers.maintenance()?;
        let intent_path = tiers.dir().join(INTENT_FILE);
        let prior = read_intent(&intent_path, &target)?;
        let cold = self.cold_records(tiers, request.reference.as_ref(), session)?;
        let mut refs: BTreeSet<MemoryRef> =
            self.purged_refs(request.reference.as_ref(), session, &cold)?.into_iter().collect();
        refs.extend(prior.iter().flat_map(|p| p.refs.iter().cloned()));
        let live = session.is_some_and(|s| tiers.hot().is_live(s));
        let mut pinned = None;
        for reference in &refs {
            if self.existing(reference)?.is_some_and(|m| is_pinned(&m)) {
                pinned = Some(reference.clone());
                break;
            }
        }
        let forced = live || pinned.is_some() || prior.as_ref().is_some_and(|p| p.forced);
        if !request.force && (live || pinned.is_some()) {
            let what = match &pinned {
                Some(reference) if !live => format!("{reference} is pinned"),
                _ => "the session is live".to_owned(),
            };
            return Err(Error::conflict(
                format!("not purging {target}: {what}"),
                "end the session or unpin the memory first, or purge with `force` (audited)",
            ));
        }
        // What must go is written down first: a purge that stops part-way resumes from it.
        let mut digests = self.digests_holding(&refs)?;
        digests.extend(prior.iter().flat_map(|p| p.digests.iter().cloned()));
        let intent = PurgeIntent { target: target.clone(), forced, refs: refs.clone(), digests };
        write_intent(&intent_path, &intent)?;

        if let Some(session) = session {
            tiers.hot().discard(session)?;
        }
        let mut warm = Vec::new();
        let mut copies = 0;
        for reference in &refs {
            match self.indexed.delete(reference, self.now()) {
                Ok(_) => warm.push(reference.clone()),
                Err(Error::NotFound { .. }) => {}
                Err(e) => return Err(e),
            }
            copies += self.indexed.store().expunge(reference)?;
        }
        let rebuilt = self.rebuild_digests(tiers, &intent, &mut copies)?;
        let ids: Vec<String> = cold.iter().map(|record| record.id.clone()).collect();
        let purged_cold = tiers.cold().purge(&ids)?.purged;
        let timeline = match session {
            Some(session) => tiers.timeline().remove_session(session)?,
            None => 0,
        };
        self.indexed.compact_removed()?;
        let record = AuditRecord {
            at: self.now(),
            by: request.by.clone(),
            target,
            reason: request.reason.trim().to_owned(),
            forced,
            warm,
            copies,
            cold: purged_cold,
            digests: rebuilt,
            timeline,
        };
        tiers.audit().append(&record)?;
        crate::store::fsutil::remove_file_if_present(&intent_path, "purge intent")?;
        Ok(record)
    }

    /// The cold records a purge removes: copies of the memory (demoted ones name it), or a
    /// session's turns and the demoted copies of its warm memories.
    fn cold_records(
        &self,
        tiers: &Tiers,
        reference: Option<&MemoryRef>,
        session: Option<&str>,
    ) -> Result<Vec<ArchivedRecord>> {
        let mut found = Vec::new();
        let mut failure = None;
        tiers.cold().scan(&mut |record| {
            match record {
                Ok(record) if purges(&record, reference, session) => found.push(record),
                Ok(_) => {}
                Err(e) => failure = Some(e),
            }
            ControlFlow::Continue(())
        })?;
        // A damaged frame may hold what must go: purge only once the archive reads whole.
        match failure {
            Some(e) => Err(e),
            None => Ok(found),
        }
    }

    /// The warm memories a purge removes: the memory, or a session's summary and notes
    /// (those still warm and those compaction demoted).
    fn purged_refs(
        &self,
        reference: Option<&MemoryRef>,
        session: Option<&str>,
        cold: &[ArchivedRecord],
    ) -> Result<Vec<MemoryRef>> {
        let mut refs = BTreeSet::new();
        refs.extend(reference.cloned());
        if let Some(session) = session {
            // Its summary, even if gone from the warm tier: its trashed copies go too.
            refs.insert(format!("{SESSIONS_COLLECTION}/{session}").parse()?);
            let collection = SESSIONS_COLLECTION.parse()?;
            for memory in self.warm_memories(Some(&collection))? {
                if is_session_memory(&memory, session) {
                    refs.insert(memory.reference());
                }
            }
        }
        refs.extend(cold.iter().filter_map(|r| r.memory.as_ref()).map(|m| m.reference()));
        Ok(refs.into_iter().collect())
    }

    /// The warm digests that folded in one of `refs`.
    fn digests_holding(&self, refs: &BTreeSet<MemoryRef>) -> Result<BTreeSet<MemoryRef>> {
        let names: BTreeSet<String> = refs.iter().map(ToString::to_string).collect();
        Ok(self
            .warm_memories(None)?
            .iter()
            .filter(|m| is_digest(m) && m.related_to.iter().any(|r| names.contains(r)))
            .map(|m| m.reference())
            .collect())
    }

    /// Rebuilds each digest of the intent from its other originals (or removes it when none
    /// is left), and expunges its old versions; returns the digests.
    fn rebuild_digests(
        &self,
        tiers: &Tiers,
        intent: &PurgeIntent,
        copies: &mut usize,
    ) -> Result<Vec<MemoryRef>> {
        let purged: BTreeSet<String> = intent.refs.iter().map(ToString::to_string).collect();
        for reference in &intent.digests {
            let Some(digest_memory) = self.existing(reference)?.filter(is_digest) else {
                // Removed by an earlier run that stopped before expunging it.
                *copies += self.indexed.store().expunge(reference)?;
                continue;
            };
            if digest_memory.related_to.iter().any(|r| purged.contains(r)) {
                let members = self.digest_members(tiers, &digest_memory, &purged)?;
                if members.is_empty() {
                    self.indexed.delete(reference, self.now())?;
                } else {
                    let id = reference.id().as_str();
                    let period = id.strip_prefix("digest-").unwrap_or_default().to_owned();
                    let group = Group { digest: reference.clone(), period, members };
                    let fresh: Vec<&Memory> = group.members.iter().map(AsRef::as_ref).collect();
                    let input = summary_input(None, &fresh);
                    // A purge must finish: the manifest's summary command failing (untrusted,
                    // broken, too slow) gives way to the extractive summariser. A summariser
                    // set in code is the caller's: its failure stops the purge, which running
                    // it again finishes.
                    let from_code = self.summarizer.read().is_some();
                    let summary = match self.summarize_automatically(input.clone(), DIGEST_TOKENS) {
                        Ok(summary) => summary,
                        Err(e) if from_code => return Err(e),
                        Err(_) => condense(&ExtractiveSummarizer, input, DIGEST_TOKENS)?,
                    };
                    self.put_with(digest(&group, None, &fresh, &summary), PutMode::Upsert)?;
                }
            }
            *copies += self.indexed.store().expunge(reference)?;
        }
        Ok(intent.digests.iter().cloned().collect())
    }

    /// The originals of a digest, from the cold tier, but for the `purged` ones.
    fn digest_members(
        &self,
        tiers: &Tiers,
        digest: &Memory,
        purged: &BTreeSet<String>,
    ) -> Result<Vec<Arc<Memory>>> {
        let mut members = Vec::new();
        for id in crate::store::tiered::compaction::folded(digest) {
            let reference = id.split_once('@').map_or(id.as_str(), |(r, _)| r);
            if purged.contains(reference) {
                continue;
            }
            match tiers.cold().get(&id) {
                Ok(record) => members.extend(record.memory.map(|m| Arc::new(*m))),
                Err(Error::NotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        members.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(members)
    }
}

/// A blank reason, or a reason or name with control characters, is a validation error.
fn check_purge(request: &PurgeRequest) -> Result<()> {
    if request.reason.trim().is_empty() {
        return Err(Error::validation(
            "a purge needs a reason",
            "say why (e.g. \"GDPR erasure request #123\"): it goes in the audit log",
        ));
    }
    let bad = |text: &str| text.chars().any(|c| c.is_control() && c != '\n');
    if bad(&request.reason) || request.by.as_deref().is_some_and(|by| bad(by) || by.contains('\n'))
    {
        return Err(Error::validation(
            "the reason or the name has control characters",
            "give plain text",
        ));
    }
    Ok(())
}

/// Whether a purge of `reference` or `session` removes the cold `record`.
fn purges(record: &ArchivedRecord, reference: Option<&MemoryRef>, session: Option<&str>) -> bool {
    let of_memory = |r: &MemoryRef| record.memory.as_ref().is_some_and(|m| m.reference() == *r);
    let by_ref = reference.is_some_and(of_memory);
    let by_session = session.is_some_and(|s| {
        record.session.as_deref() == Some(s)
            || record.memory.as_ref().is_some_and(|m| is_session_memory(m, s))
    });
    by_ref || by_session
}

/// The file a purge writes before it changes anything, and removes once its audit record is
/// written.
const INTENT_FILE: &str = "purge-intent.json";

/// What a purge removes, written down before it starts.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct PurgeIntent {
    /// `memory collection/id` or `session <id>`.
    target: String,
    /// Whether pinned memories or a live session were purged on `force`.
    forced: bool,
    /// The warm memories (and their demoted copies) to remove.
    refs: BTreeSet<MemoryRef>,
    /// The digests to rebuild without them.
    digests: BTreeSet<MemoryRef>,
}

/// The intent a purge of `target` left unfinished, if any. One of another target is an
/// [`Error::Conflict`]: that purge is finished first.
fn read_intent(path: &std::path::Path, target: &str) -> Result<Option<PurgeIntent>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
    };
    let intent: PurgeIntent = serde_json::from_slice(&bytes).map_err(|e| {
        Error::corrupted(
            path,
            None,
            format!("an interrupted purge's record does not parse: {e}"),
            "run that purge again with the same target, or move the file away",
        )
    })?;
    if intent.target != target {
        return Err(Error::conflict(
            format!("a purge of {} was interrupted", intent.target),
            format!("run that purge again first ({})", path.display()),
        ));
    }
    Ok(Some(intent))
}

/// Writes `intent` durably.
fn write_intent(path: &std::path::Path, intent: &PurgeIntent) -> Result<()> {
    let bytes = serde_json::to_vec(intent).map_err(|e| {
        Error::validation(format!("a purge record could not be written: {e}"), "report this")
    })?;
    crate::store::fsutil::write_atomic(path, &bytes)
}
