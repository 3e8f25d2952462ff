//! The decay engine on a store ([`crate::decay`]): status transitions with archive
//! compression, automatic lifecycle processing, and keepit markers of stored memories.

use super::Memcore;
use crate::decay::{
    self, KeepitMarker, KeepitPreview, KeepitPreviewRequest, KeepitSource, LifecycleAction,
    LifecycleConfig, LifecycleOptions, LifecycleReport, LifecycleStats, LifecycleStep,
};
use std::ops::ControlFlow;
use std::sync::Arc;

use crate::{
    Collection, Error, IntoMemoryRef, Memory, MemoryRef, MemoryUpdate, Result, Status, Timestamp,
};

/// How often a status change is retried when another writer changed the memory meanwhile.
const STATUS_ATTEMPTS: usize = 5;

impl Memcore {
    /// Moves the memory `reference` names to `status` (seed 002's transition table): a new
    /// version, reflected in the indexes at once. An invalid move is a validation error
    /// naming the allowed targets. Archiving compresses the content when
    /// `lifecycle.compress_archived` is on (the default) and that saves space; moving back to
    /// active restores the original exactly.
    ///
    /// ```
    /// use memcore::{Memcore, NewMemory, Status};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let memcore = Memcore::open(dir.path())?;
    /// memcore.put(NewMemory::new("# Ship v2\n\nCut the release branch.").id("ship"))?;
    /// assert_eq!(memcore.transition("ship", Status::Resolved)?.status, Status::Resolved);
    /// let err = memcore.transition("ship", Status::Active).unwrap_err();
    /// assert_eq!(err.recovery(), "from resolved it can go to: archived, tombstone");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn transition(&self, reference: impl IntoMemoryRef, status: Status) -> Result<Memory> {
        let change = MemoryUpdate::new().status(status);
        self.change_status(&reference.into_memory_ref()?, &change, self.now())
    }

    /// Writes `change` (which sets a status) with the lifecycle's side effects, retrying when
    /// another writer changed the memory between reading and writing (unless the caller
    /// pinned a version).
    pub(super) fn change_status(
        &self,
        reference: &MemoryRef,
        change: &MemoryUpdate,
        now: Timestamp,
    ) -> Result<Memory> {
        let compress = self.config().lifecycle.compress_archived;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let memory = self.indexed.store().get(reference)?;
            let effective = decay::with_status_effects(&memory, change, compress)?;
            match self.indexed.update(reference, &effective, now) {
                Err(Error::Conflict { .. })
                    if change.expected_version.is_none() && attempt < STATUS_ATTEMPTS => {}
                written => return written,
            }
        }
    }

    /// Runs automatic lifecycle processing (seed 002, 6.3): archives active and resolved
    /// memories unchanged for `archive_after_days` or less relevant than `min_relevance`
    /// (never pinned ones), tombstones memories archived for `tombstone_after_days`, and
    /// deletes (moves to the trash) tombstones older than `delete_after_days`.
    ///
    /// A dry run returns the plan and changes nothing; a real run carries out the same plan
    /// one memory at a time, each step a durable write of its own, so an interrupted run is
    /// finished by running again. A memory changed since it was planned is decided again.
    ///
    /// ```
    /// use chrono::Duration;
    /// use memcore::decay::LifecycleOptions;
    /// use memcore::{Memcore, NewMemory, Status};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let memcore = Memcore::open(dir.path())?;
    /// memcore.put(NewMemory::new("Met the team; agreed on weekly demos.").id("standup"))?;
    /// let later = memcore::now() + Duration::days(100);
    ///
    /// let plan = memcore.process_lifecycle(&LifecycleOptions::new().dry_run(true).now(later))?;
    /// assert_eq!(plan.steps[0].to, Some(Status::Archived));
    /// let done = memcore.process_lifecycle(&LifecycleOptions::new().now(later))?;
    /// assert_eq!((done.stats.archived, done.steps), (1, plan.steps));
    /// assert_eq!(memcore.get("standup")?.status, Status::Archived);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn process_lifecycle(&self, options: &LifecycleOptions) -> Result<LifecycleReport> {
        let thresholds = options.thresholds(&self.config().lifecycle)?;
        let collections = options
            .collections
            .iter()
            .map(|name| Collection::new(name.as_str()))
            .collect::<Result<Vec<_>>>()?;
        let now = options.now.unwrap_or_else(|| self.now());
        let (plan, mut errors, scanned) = self.plan_lifecycle(&collections, now, &thresholds)?;
        // Every memory read is either planned or skipped; planned ones are then counted by
        // what became of them.
        let skipped = scanned - errors.len() - plan.len();
        let mut stats =
            LifecycleStats { scanned, skipped, failed: errors.len(), ..Default::default() };
        let mut steps = Vec::with_capacity(plan.len());
        for planned in plan {
            let outcome = if options.dry_run {
                Ok(Some(planned))
            } else {
                self.carry_out(planned, now, &thresholds)
            };
            match outcome {
                Ok(Some(step)) => {
                    stats.count(step.action);
                    steps.push(step);
                }
                Ok(None) => stats.skipped += 1,
                Err(e) => {
                    stats.failed += 1;
                    errors.push(e);
                }
            }
        }
        Ok(LifecycleReport { dry_run: options.dry_run, now, stats, steps, errors })
    }

    /// The steps for the memories of `collections` (all when empty), the memories that could
    /// not be read, and how many memories were looked at.
    fn plan_lifecycle(
        &self,
        collections: &[Collection],
        now: Timestamp,
        thresholds: &LifecycleConfig,
    ) -> Result<(Vec<LifecycleStep>, Vec<Error>, usize)> {
        let decay = &self.config().decay;
        let (mut steps, mut errors, mut scanned) = (Vec::new(), Vec::new(), 0);
        let mut visit = |item: Result<Arc<Memory>>| {
            scanned += 1;
            match item {
                Ok(memory) => steps.extend(decay::plan_step(&memory, now, decay, thresholds)),
                Err(e) => errors.push(e),
            }
            ControlFlow::Continue(())
        };
        if collections.is_empty() {
            self.indexed.store().scan(None, &mut visit)?;
        } else {
            for collection in collections {
                self.indexed.store().scan(Some(collection), &mut visit)?;
            }
        }
        Ok((steps, errors, scanned))
    }

    /// Carries out one planned step if the memory is still as planned; else decides it again
    /// on its current version. `None` when there is nothing left to do.
    fn carry_out(
        &self,
        planned: LifecycleStep,
        now: Timestamp,
        thresholds: &LifecycleConfig,
    ) -> Result<Option<LifecycleStep>> {
        let memory = match self.indexed.store().get(&planned.reference) {
            Ok(memory) => memory,
            Err(Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let step = if memory.version == planned.version {
            planned
        } else {
            match decay::plan_step(&memory, now, &self.config().decay, thresholds) {
                Some(step) => step,
                None => return Ok(None),
            }
        };
        match step.action {
            LifecycleAction::Delete => {
                self.indexed.delete(&step.reference, now)?;
            }
            LifecycleAction::Archive | LifecycleAction::Tombstone => {
                let target = step.to.unwrap_or(Status::Tombstone);
                let change = MemoryUpdate::new().status(target).expected_version(step.version);
                let effective =
                    decay::with_status_effects(&memory, &change, thresholds.compress_archived)?;
                match self.indexed.update(&step.reference, &effective, now) {
                    Ok(_) => {}
                    // Changed between reading and writing: the next run decides it again.
                    Err(Error::Conflict { .. }) => return Ok(None),
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(Some(step))
    }

    /// The keepit markers of a memory's content or of a text; see
    /// [`decay::extract_markers`].
    pub fn keepit_markers(&self, source: &KeepitSource) -> Result<Vec<KeepitMarker>> {
        decay::extract_markers(&self.source_text(source)?)
    }

    /// Sets the weight of marker `index` (from 0) of the memory `reference` names, in place:
    /// a new version whose content differs only in that weight (seed 004, 5.4).
    pub fn set_keepit_weight(
        &self,
        reference: impl IntoMemoryRef,
        index: usize,
        weight: f64,
    ) -> Result<Memory> {
        let reference = reference.into_memory_ref()?;
        let memory = self.indexed.store().get(&reference)?;
        let content = decay::set_weight(&memory.content, index, weight)?;
        let change = MemoryUpdate::new().content(content).expected_version(memory.version);
        self.indexed.update(&reference, &change, self.now())
    }

    /// Which keepit markers of a memory or text survive a compression at each session
    /// distance; see [`decay::preview`].
    pub fn keepit_preview(&self, request: &KeepitPreviewRequest) -> Result<KeepitPreview> {
        decay::preview(&self.source_text(&request.source())?, &request.settings())
    }

    /// The text `source` names: a memory's content or the text itself.
    fn source_text(&self, source: &KeepitSource) -> Result<String> {
        source.check()?;
        match (&source.reference, &source.text) {
            (Some(reference), _) => Ok(self.get(reference)?.content),
            (None, text) => Ok(text.clone().unwrap_or_default()),
        }
    }
}
