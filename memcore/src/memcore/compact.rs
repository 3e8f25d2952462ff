//! Compaction and pinning of a tiered store on a handle (seed 003's "warm aging" and
//! "manual overrides"): memories past the warm window fold into one digest per collection
//! and quarter, and leave the warm tier for the cold one; pinned memories stay.

use std::ops::ControlFlow;
use std::sync::Arc;

use super::Memcore;
use super::tiers::{SESSIONS_COLLECTION, is_session_memory};
use crate::store::tiered::compaction::{
    DIGEST_TOKENS, Group, cold_id, digest, folded, is_digest, plan, summary_input,
};
use crate::store::{
    ArchivedRecord, CompactRequest, CompactionReport, DigestStep, PutMode, RetainReport,
    RetainRequest, Tiers,
};
use crate::{Collection, Error, Memory, MemoryRef, MemoryUpdate, Result};

impl Memcore {
    /// Compacts the warm tier: every memory last changed more than `tiered.warm_window_days`
    /// before `now` (pinned memories and digests excepted) is
    ///
    /// 1. archived whole in the cold tier (`collection/id@<content hash>`, pointing at its
    ///    digest),
    /// 2. folded into its collection's digest of the quarter it was created in
    ///    (`<collection>/digest-<yyyy>-q<n>`: a summary through the handle's summariser, else
    ///    the extractive one, then its sources; `related_to` names every original), and
    /// 3. deleted from the warm tier with its trashed copies and kept versions.
    ///
    /// Each step is idempotent and the digest records what it folded in, so a compaction
    /// that failed part-way is finished by running it again (nothing lost, nothing folded
    /// twice). With `dry_run` it only reports the plan. A store that is not tiered is
    /// [`Error::Unsupported`].
    ///
    /// ```
    /// use memcore::{Backend, CompactRequest, Memcore, NewMemory, Timestamp};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let memcore = Memcore::builder().path(dir.path()).backend(Backend::Tiered).open()?;
    /// let then: Timestamp = "2020-01-15T00:00:00Z".parse()?;
    /// memcore.put(NewMemory::new("We chose zstd for the archive.").collection("decisions").created_at(then))?;
    /// let plan = memcore.compact(&CompactRequest::new().dry_run().at("2020-12-01T00:00:00Z".parse()?))?;
    /// assert_eq!(plan.digests[0].digest.to_string(), "decisions/digest-2020-q1");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn compact(&self, request: &CompactRequest) -> Result<CompactionReport> {
        let tiers = self.tiers_for("compacting")?;
        let now = request.now.unwrap_or_else(|| self.now());
        let days = tiers.settings().warm_window_days;
        let cutoff = chrono::Duration::try_days(i64::from(days))
            .and_then(|window| now.checked_sub_signed(window))
            .ok_or_else(|| {
                Error::validation(
                    format!("tiered.warm_window_days {days} reaches before the year 0"),
                    "set a window of days to years, e.g. 120",
                )
            })?;
        let _maintenance = tiers.maintenance()?;
        let (groups, pinned) = plan(self.warm_memories(None)?, cutoff);
        let mut report = CompactionReport {
            dry_run: request.dry_run,
            cutoff,
            digests: Vec::with_capacity(groups.len()),
            pinned,
            demoted: 0,
        };
        for group in &groups {
            let existing = self.existing(&group.digest)?;
            if let Some(other) = existing.as_ref().filter(|memory| !is_digest(memory)) {
                return Err(Error::conflict(
                    format!("{} is not a digest compaction wrote", other.reference()),
                    "rename or move that memory: compaction writes its digests under that id",
                ));
            }
            let already = existing.as_ref().map(folded).unwrap_or_default();
            let fresh: Vec<&Memory> = group
                .members
                .iter()
                .map(AsRef::as_ref)
                .filter(|m| !already.contains(&cold_id(m)))
                .collect();
            report.digests.push(DigestStep {
                digest: group.digest.clone(),
                period: group.period.clone(),
                originals: group.members.iter().map(|m| m.reference()).collect(),
                folded: fresh.len(),
                extends: existing.is_some(),
            });
            if !request.dry_run {
                report.demoted += self.demote(tiers, group, existing.as_ref(), &fresh)?;
            }
        }
        Ok(report)
    }

    /// Carries out one digest of a compaction; returns how many memories left the warm tier.
    /// The digest is made (and checked against the limits) before anything is written.
    fn demote(
        &self,
        tiers: &Tiers,
        group: &Group,
        existing: Option<&Memory>,
        fresh: &[&Memory],
    ) -> Result<usize> {
        let updated = if fresh.is_empty() {
            None
        } else {
            let input = summary_input(existing, fresh);
            let summary = self.summarize_automatically(input, DIGEST_TOKENS)?;
            let digest = digest(group, existing, fresh, &summary);
            self.complete(digest.clone(), self.now())?;
            Some(digest)
        };
        let records = group.members.iter().map(|memory| {
            let mut record = ArchivedRecord::of_memory(Memory::clone(memory));
            record.id = cold_id(memory);
            record.origin = Some(group.digest.clone());
            record
        });
        tiers.cold().archive(records.collect())?;
        if let Some(digest) = updated {
            self.put_with(digest, PutMode::Upsert)?;
        }
        // A memory changed since the plan was read is not old any more: it stays.
        let mut unchanged = Vec::with_capacity(group.members.len());
        let mut gone = Vec::new();
        for memory in &group.members {
            let reference = memory.reference();
            match self.existing(&reference)? {
                Some(current) if current.version == memory.version => unchanged.push(reference),
                Some(_) => {}
                None => gone.push(reference),
            }
        }
        self.indexed.delete_many(&unchanged, self.now())?;
        let mut demoted = 0;
        for reference in unchanged.iter().chain(&gone) {
            self.indexed.store().expunge(reference)?;
            demoted += 1;
        }
        // Sources an earlier run deleted but did not get to expunge (it stopped in between).
        for source in existing.map(|digest| digest.related_to.as_slice()).unwrap_or_default() {
            if let Ok(reference) = source.parse::<MemoryRef>()
                && self.existing(&reference)?.is_none()
            {
                self.indexed.store().expunge(&reference)?;
            }
        }
        Ok(demoted)
    }

    /// Pins memories (importance 1.0), so that compaction leaves them in the warm tier and
    /// purge refuses them unless forced: the memory `ref`, or the warm memories of the ended
    /// session `session` (its summary and its agents' notes). Naming both or neither is an
    /// [`Error::Validation`]; a session that has not ended an [`Error::NotFound`].
    pub fn retain(&self, request: &RetainRequest) -> Result<RetainReport> {
        let references = match (&request.reference, &request.session) {
            (Some(reference), None) => vec![reference.clone()],
            (None, Some(session)) => self.session_memories(session)?,
            _ => {
                return Err(Error::validation(
                    "retain needs a memory or a session, and only one",
                    "give `ref` (collection/id) or `session` (an ended session's id)",
                ));
            }
        };
        let pin = MemoryUpdate { importance: Some(1.0), ..MemoryUpdate::default() };
        let mut pinned = Vec::with_capacity(references.len());
        for reference in references {
            pinned.push(self.update(&reference, pin.clone())?.reference());
        }
        Ok(RetainReport { pinned })
    }

    /// The warm memories an ended session wrote: `sessions/<id>` and `sessions/<id>:<agent>`.
    fn session_memories(&self, session: &str) -> Result<Vec<MemoryRef>> {
        let summary: MemoryRef = format!("{SESSIONS_COLLECTION}/{session}").parse()?;
        self.get(&summary)?;
        let collection: Collection = SESSIONS_COLLECTION.parse()?;
        let mut found = Vec::new();
        for memory in self.warm_memories(Some(&collection))? {
            if is_session_memory(&memory, session) {
                found.push(memory.reference());
            }
        }
        found.sort();
        Ok(found)
    }

    /// The memories of the warm tier (of `collection`, or all); unreadable ones are left out
    /// (verify reports them).
    pub(super) fn warm_memories(
        &self,
        collection: Option<&Collection>,
    ) -> Result<Vec<Arc<Memory>>> {
        let mut memories = Vec::new();
        self.indexed.store().scan(collection, &mut |memory| {
            if let Ok(memory) = memory {
                memories.push(memory);
            }
            ControlFlow::Continue(())
        })?;
        Ok(memories)
    }

    /// The memory `reference` names, or `None` when there is none.
    pub(super) fn existing(&self, reference: &MemoryRef) -> Result<Option<Memory>> {
        match self.get(reference) {
            Ok(memory) => Ok(Some(memory)),
            Err(Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }
}
