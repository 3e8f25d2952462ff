//! The decay engine on a store ([`crate::decay`]): status transitions with archive
//! compression, automatic lifecycle processing, and keepit markers of stored memories.

use std::borrow::Cow;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::Mutex;

use super::Memcore;
use crate::decay::{
    self, KeepitMarker, KeepitPreview, KeepitPreviewRequest, KeepitSource, LifecycleAction,
    LifecycleConfig, LifecycleOptions, LifecycleReport, LifecycleStats, LifecycleStep,
};
use crate::{
    Collection, Error, IntoMemoryRef, Memory, MemoryRef, MemoryUpdate, Result, Status, Timestamp,
};

/// How often a status change is retried when another writer changed the memory meanwhile.
const STATUS_ATTEMPTS: usize = 5;

/// How many lifecycle steps share one store write.
const LIFECYCLE_BATCH: usize = 512;

/// The lifecycle's plan for one collection.
#[derive(Debug, Default)]
struct CollectionPlan {
    /// The steps, in store order.
    steps: Vec<LifecycleStep>,
    /// Memories that could not be read.
    errors: Vec<Error>,
    /// Memories looked at.
    scanned: usize,
}

/// What became of one planned lifecycle step.
#[derive(Debug)]
enum Outcome {
    /// Carried out (or, in a dry run, planned).
    Done(Box<LifecycleStep>),
    /// Nothing left to do: gone, or changed since planned and no longer due.
    Skipped,
    /// It failed; the error is reported once per failed write.
    Failed(Option<Error>),
    /// Not a step: an error a store write reported although its steps landed.
    Reported(Error),
}

impl Memcore {
    /// Moves the memory `reference` names to `status` (seed 002's transition table): a new
    /// version, reflected in the indexes at once. An invalid move is a validation error
    /// naming the allowed targets. Archiving compresses the content when
    /// `lifecycle.compress_archived` is on (the default) and that saves space; moving back to
    /// active restores the original exactly. Moving to the status the memory has already is
    /// no change (no new version).
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
            // Moving to the status a memory has already changes nothing: no new version.
            if change.status == Some(memory.status)
                && *change == MemoryUpdate::new().status(memory.status)
            {
                return Ok(Arc::unwrap_or_clone(memory));
            }
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
        let outcomes: Vec<Outcome> = if options.dry_run {
            plan.into_iter().map(|step| Outcome::Done(Box::new(step))).collect()
        } else {
            plan.chunks(LIFECYCLE_BATCH)
                .flat_map(|batch| self.carry_out_batch(batch, now, &thresholds))
                .collect()
        };
        let mut steps = Vec::with_capacity(outcomes.len());
        for outcome in outcomes {
            match outcome {
                Outcome::Done(step) => {
                    stats.count(step.action);
                    steps.push(*step);
                }
                Outcome::Skipped => stats.skipped += 1,
                Outcome::Failed(error) => {
                    stats.failed += 1;
                    errors.extend(error);
                }
                Outcome::Reported(error) => errors.push(error),
            }
        }
        Ok(LifecycleReport { dry_run: options.dry_run, now, stats, steps, errors })
    }

    /// The steps for the memories of `collections` (all when empty), the memories that could
    /// not be read, and how many memories were looked at. Collections are planned side by
    /// side, one thread per core (reading and parsing the memories is the cost); the plan is
    /// in store order whatever thread planned what.
    fn plan_lifecycle(
        &self,
        collections: &[Collection],
        now: Timestamp,
        thresholds: &LifecycleConfig,
    ) -> Result<(Vec<LifecycleStep>, Vec<Error>, usize)> {
        let collections = if collections.is_empty() {
            self.indexed.store().collections()?
        } else {
            collections.to_vec()
        };
        let next = AtomicUsize::new(0);
        let plans: Vec<Mutex<Option<Result<CollectionPlan>>>> =
            collections.iter().map(|_| Mutex::new(None)).collect();
        let work = || {
            loop {
                let at = next.fetch_add(1, Ordering::Relaxed);
                let Some(collection) = collections.get(at) else { break };
                *plans[at].lock() = Some(self.plan_collection(collection, now, thresholds));
            }
        };
        let workers = std::thread::available_parallelism().map_or(1, usize::from);
        std::thread::scope(|scope| {
            for _ in 1..workers.min(collections.len()) {
                // Without a thread (the system refused one), this one does the work.
                let _spawned = std::thread::Builder::new().spawn_scoped(scope, work);
            }
            work();
        });
        let (mut steps, mut errors, mut scanned) = (Vec::new(), Vec::new(), 0);
        for plan in plans {
            // Every slot was filled: the workers only stop when no collection is left.
            let Some(plan) = plan.into_inner() else { continue };
            let plan = plan?;
            steps.extend(plan.steps);
            errors.extend(plan.errors);
            scanned += plan.scanned;
        }
        Ok((steps, errors, scanned))
    }

    /// The plan for the memories of one collection.
    fn plan_collection(
        &self,
        collection: &Collection,
        now: Timestamp,
        thresholds: &LifecycleConfig,
    ) -> Result<CollectionPlan> {
        let decay = &self.config().decay;
        let mut plan = CollectionPlan::default();
        self.indexed.store().scan(Some(collection), &mut |item: Result<Arc<Memory>>| {
            plan.scanned += 1;
            match item {
                Ok(memory) => plan.steps.extend(decay::plan_step(&memory, now, decay, thresholds)),
                Err(e) => plan.errors.push(e),
            }
            ControlFlow::Continue(())
        })?;
        Ok(plan)
    }

    /// Carries out a batch of planned steps, in plan order: the status moves of memories
    /// still as planned in one store write, deletions and memories changed since planning
    /// one at a time.
    fn carry_out_batch(
        &self,
        batch: &[LifecycleStep],
        now: Timestamp,
        thresholds: &LifecycleConfig,
    ) -> Vec<Outcome> {
        let mut outcomes: Vec<Option<Outcome>> = batch.iter().map(|_| None).collect();
        let mut moves: Vec<(usize, MemoryRef, MemoryUpdate)> = Vec::new();
        for (at, step) in batch.iter().enumerate() {
            let read = self.indexed.store().get(&step.reference);
            match read {
                Ok(memory)
                    if memory.version == step.version && step.action != LifecycleAction::Delete =>
                {
                    let target = step.to.unwrap_or(Status::Tombstone);
                    let change = MemoryUpdate::new().status(target);
                    match decay::with_status_effects(&memory, &change, thresholds.compress_archived)
                    {
                        Ok(change) => moves.push((at, step.reference.clone(), change)),
                        Err(e) => outcomes[at] = Some(Outcome::Failed(Some(e))),
                    }
                }
                Ok(memory) => outcomes[at] = Some(self.carry_out(step, &memory, now, thresholds)),
                Err(Error::NotFound { .. }) => outcomes[at] = Some(Outcome::Skipped),
                Err(e) => outcomes[at] = Some(Outcome::Failed(Some(e))),
            }
        }
        let changes: Vec<(MemoryRef, MemoryUpdate)> = moves
            .iter()
            .map(|(_, reference, change)| (reference.clone(), change.clone()))
            .collect();
        let (written, mut error) = match self.indexed.update_many(&changes, now) {
            Ok(stored) => (Some(stored), None),
            Err(e) => (None, Some(e)),
        };
        for (at, reference, change) in moves {
            let step = &batch[at];
            // After a failed batch, what the store holds says which moves landed.
            let landed = match &written {
                Some(stored) => stored.iter().any(|m| m.reference() == reference),
                None => self
                    .indexed
                    .store()
                    .get(&reference)
                    .is_ok_and(|m| m.version > step.version && Some(m.status) == change.status),
            };
            outcomes[at] = Some(match (landed, &written) {
                (true, _) => Outcome::Done(Box::new(step.clone())),
                // Changed between reading and writing: the next run decides it again.
                (false, Some(_)) => Outcome::Skipped,
                (false, None) => Outcome::Failed(error.take()),
            });
        }
        let mut outcomes: Vec<Outcome> =
            outcomes.into_iter().map(|o| o.unwrap_or(Outcome::Skipped)).collect();
        outcomes.extend(error.map(Outcome::Reported));
        outcomes
    }

    /// Carries out one step on `memory` as it is now: a deletion if it is still as planned,
    /// else the step decided again on its current version.
    fn carry_out(
        &self,
        planned: &LifecycleStep,
        memory: &Memory,
        now: Timestamp,
        thresholds: &LifecycleConfig,
    ) -> Outcome {
        let step = if memory.version == planned.version {
            planned.clone()
        } else {
            match decay::plan_step(memory, now, &self.config().decay, thresholds) {
                Some(step) => step,
                None => return Outcome::Skipped,
            }
        };
        let done = match step.action {
            LifecycleAction::Delete => self.indexed.delete(&step.reference, now).map(|_| ()),
            LifecycleAction::Archive | LifecycleAction::Tombstone => {
                let change = MemoryUpdate::new().status(step.to.unwrap_or(Status::Tombstone));
                decay::with_status_effects(memory, &change, thresholds.compress_archived)
                    .and_then(|change| self.indexed.update(&step.reference, &change, now))
                    .map(|_| ())
            }
        };
        match done {
            Ok(()) => Outcome::Done(Box::new(step)),
            // Gone or changed between reading and writing: the next run decides it again.
            Err(Error::NotFound { .. } | Error::Conflict { .. }) => Outcome::Skipped,
            Err(e) => Outcome::Failed(Some(e)),
        }
    }

    /// The keepit markers of a memory's content or of a text; see
    /// [`decay::extract_markers`].
    pub fn keepit_markers(&self, source: &KeepitSource) -> Result<Vec<KeepitMarker>> {
        decay::extract_markers(
            &self.source_text(source.reference.as_ref(), source.text.as_deref())?,
        )
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
        let text = self.source_text(request.reference.as_ref(), request.text.as_deref())?;
        decay::preview(&text, &request.settings())
    }

    /// The text a keepit request names: a memory's content, or the text itself (borrowed).
    fn source_text<'a>(
        &self,
        reference: Option<&MemoryRef>,
        text: Option<&'a str>,
    ) -> Result<Cow<'a, str>> {
        Ok(match decay::one_source(reference, text)? {
            Ok(reference) => Cow::Owned(self.get(reference)?.content),
            Err(text) => Cow::Borrowed(text),
        })
    }
}
