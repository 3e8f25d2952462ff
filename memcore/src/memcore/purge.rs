//! Purge on a tiered store (seed 003's compliance removal): a memory or a session removed
//! from every tier and every derived index for good, with an audit record.

use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::sync::Arc;

use super::Memcore;
use super::tiers::SESSIONS_COLLECTION;
use crate::decay::is_pinned;
use crate::session::condense;
use crate::session::registry::check_name;
use crate::store::tiered::compaction::{DIGEST_KIND, DIGEST_TOKENS, Group, digest, summary_input};
use crate::store::{ArchivedRecord, AuditRecord, PurgeRequest, Tiers};
use crate::{Error, Memory, MemoryRef, PutMode, Result};

impl Memcore {
    /// Purges a memory (`ref`) or a session from every tier, for good, and appends an
    /// [`AuditRecord`] (who, what, when, why, how much went) to the audit log:
    ///
    /// - the warm memories (a session's summary and its agents' notes), with their trashed
    ///   copies and kept versions, and their entries in every index (the full-text index's
    ///   segments holding them are rewritten, so no index file keeps their words);
    /// - every cold record of them: demoted copies, and a session's turns (segments
    ///   rewritten);
    /// - digests that folded them in are rebuilt from their other originals (removed if none
    ///   is left);
    /// - a session's timeline entries; a live session is dropped.
    ///
    /// A pinned memory or a live session is an [`Error::Conflict`] unless `force`; a blank
    /// reason an [`Error::Validation`]. Running it again after a failure finishes the job.
    /// History in git commits (a store in a git work tree) is not rewritten.
    pub fn purge(&self, request: &PurgeRequest) -> Result<AuditRecord> {
        let tiers = self.tiers_for("purging")?;
        check_purge(request)?;
        let (target, session) = match (&request.reference, &request.session) {
            (Some(reference), None) => (format!("memory {reference}"), None),
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
        let cold = self.cold_records(tiers, request.reference.as_ref(), session)?;
        let refs = self.purged_refs(request.reference.as_ref(), session, &cold)?;
        let live = session.is_some_and(|s| tiers.hot().get(s).is_some());
        let pinned: Vec<&MemoryRef> = refs
            .iter()
            .filter(|r| self.existing(r).ok().flatten().is_some_and(|m| is_pinned(&m)))
            .collect();
        if !request.force && (live || !pinned.is_empty()) {
            let what = if live {
                "the session is live".to_owned()
            } else {
                format!("{} is pinned", pinned[0])
            };
            return Err(Error::conflict(
                format!("not purging {target}: {what}"),
                "end the session or unpin the memory first, or purge with `force` (audited)",
            ));
        }
        if let Some(session) = session.filter(|_| live) {
            tiers.hot().end(session)?;
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
        let ids: Vec<String> = cold.iter().map(|record| record.id.clone()).collect();
        let purged_cold = tiers.cold().purge(&ids)?.purged;
        let digests = self.rebuild_digests(tiers, &refs, &mut copies)?;
        let timeline = match session {
            Some(session) => tiers.timeline().remove_session(session)?,
            None => 0,
        };
        self.indexed.indexes().text.compact_deleted()?;
        let record = AuditRecord {
            at: self.now(),
            by: request.by.clone(),
            target,
            reason: request.reason.trim().to_owned(),
            forced: request.force && (live || !pinned.is_empty()),
            warm,
            copies,
            cold: purged_cold,
            digests,
            timeline,
        };
        tiers.audit().append(&record)?;
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
        if let Some(reference) = reference {
            // A bare id names the memory in whichever collection holds it.
            refs.insert(
                self.existing(reference)?.map_or_else(|| reference.clone(), |m| m.reference()),
            );
        }
        if let Some(session) = session {
            let collection = SESSIONS_COLLECTION.parse()?;
            for memory in self.warm_memories(Some(&collection))? {
                if session_memory(&memory, session) {
                    refs.insert(memory.reference());
                }
            }
        }
        refs.extend(cold.iter().filter_map(|r| r.memory.as_ref()).map(|m| m.reference()));
        Ok(refs.into_iter().collect())
    }

    /// Rebuilds every warm digest that folded in one of `purged` from its other originals
    /// (or removes it when none is left), dropping its old versions; returns the digests.
    fn rebuild_digests(
        &self,
        tiers: &Tiers,
        purged: &[MemoryRef],
        copies: &mut usize,
    ) -> Result<Vec<MemoryRef>> {
        let purged: BTreeSet<String> = purged.iter().map(ToString::to_string).collect();
        let mut rebuilt = Vec::new();
        for digest_memory in self.warm_memories(None)? {
            let holds = digest_memory.related_to.iter().any(|r| purged.contains(r));
            if digest_memory.kind.as_deref() != Some(DIGEST_KIND) || !holds {
                continue;
            }
            let reference = digest_memory.reference();
            let members = self.digest_members(tiers, &digest_memory, &purged)?;
            if members.is_empty() {
                self.indexed.delete(&reference, self.now())?;
            } else {
                let period =
                    reference.id().as_str().strip_prefix("digest-").unwrap_or_default().to_owned();
                let group = Group { digest: reference.clone(), period, members };
                let fresh: Vec<&Memory> = group.members.iter().map(AsRef::as_ref).collect();
                let summary = condense(
                    self.summarizer_or_default().as_ref(),
                    summary_input(None, &fresh),
                    DIGEST_TOKENS,
                )?;
                self.put_with(digest(&group, None, &fresh, &summary), PutMode::Upsert)?;
            }
            *copies += self.indexed.store().expunge(&reference)?;
            rebuilt.push(reference);
        }
        Ok(rebuilt)
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
            || record.memory.as_ref().is_some_and(|m| session_memory(m, s))
    });
    by_ref || by_session
}

/// Whether `memory` is one a session's end wrote: `sessions/<id>` or `sessions/<id>:<agent>`.
fn session_memory(memory: &Memory, session: &str) -> bool {
    memory.collection.as_str() == SESSIONS_COLLECTION
        && (memory.id.as_str() == session
            || memory.id.as_str().strip_prefix(session).is_some_and(|rest| rest.starts_with(':')))
}
