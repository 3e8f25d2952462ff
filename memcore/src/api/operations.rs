//! The operations, each a unit struct implementing [`Operation`] over a [`Memcore`] method,
//! and [`OPERATIONS`], the registry the bindings call through.

use super::records::{
    CollectionsResult, DiffRequest, DiffResult, GetRequest, HydrateRequest, MemoryRecord,
    NoArguments, PutRequest, PutResult, RefRequest, RestoreRequest, UpdateRequest,
};
use super::{Operation, OperationEntry};
use crate::{
    Hydrated, ListOptions, Listing, Memcore, Query, ReindexReport, RepairReport, Result,
    SearchResults, Stats, SyncReport, TrashEntry, VerifyReport, Version,
};

/// Every operation, in the order tool listings show them.
pub static OPERATIONS: &[OperationEntry] = &[
    OperationEntry::of::<Put>(),
    OperationEntry::of::<Get>(),
    OperationEntry::of::<Update>(),
    OperationEntry::of::<Delete>(),
    OperationEntry::of::<Restore>(),
    OperationEntry::of::<Search>(),
    OperationEntry::of::<List>(),
    OperationEntry::of::<Collections>(),
    OperationEntry::of::<Versions>(),
    OperationEntry::of::<Diff>(),
    OperationEntry::of::<Hydrate>(),
    OperationEntry::of::<StatsOp>(),
    OperationEntry::of::<Verify>(),
    OperationEntry::of::<Repair>(),
    OperationEntry::of::<Reindex>(),
    OperationEntry::of::<Sync>(),
];

/// `put`: [`Memcore::put_many_with`], or [`Memcore::put_many_at`] with a commit.
pub(super) struct Put;

impl Operation for Put {
    const NAME: &'static str = "put";
    const SUMMARY: &'static str =
        "Store memories (markdown content plus metadata), replacing ones with the same id";
    type Request = PutRequest;
    type Result = PutResult;

    fn run(memcore: &Memcore, request: PutRequest) -> Result<PutResult> {
        let stored = match &request.commit {
            Some(rev) => memcore.put_many_at(request.memories, rev, request.mode)?,
            None => memcore.put_many_with(request.memories, request.mode)?,
        };
        Ok(PutResult { memories: stored.into_iter().map(MemoryRecord::of).collect() })
    }
}

/// `get`: [`Memcore::get`], or [`Memcore::get_version`] with a version.
pub(super) struct Get;

impl Operation for Get {
    const NAME: &'static str = "get";
    const SUMMARY: &'static str = "Read one memory, as it is now or at an earlier version";
    type Request = GetRequest;
    type Result = MemoryRecord;

    fn run(memcore: &Memcore, request: GetRequest) -> Result<MemoryRecord> {
        let memory = match &request.version {
            Some(rev) => memcore.get_version(&request.reference, rev)?,
            None => memcore.get(&request.reference)?,
        };
        Ok(MemoryRecord::of(memory))
    }
}

/// `update`: [`Memcore::update`].
pub(super) struct Update;

impl Operation for Update {
    const NAME: &'static str = "update";
    const SUMMARY: &'static str =
        "Change a memory's content or metadata (a new version; the old one stays in history)";
    type Request = UpdateRequest;
    type Result = MemoryRecord;

    fn run(memcore: &Memcore, request: UpdateRequest) -> Result<MemoryRecord> {
        memcore.update(&request.reference, request.change).map(MemoryRecord::of)
    }
}

/// `delete`: [`Memcore::delete`].
pub(super) struct Delete;

impl Operation for Delete {
    const NAME: &'static str = "delete";
    const SUMMARY: &'static str = "Move a memory to the trash (restore brings it back)";
    type Request = RefRequest;
    type Result = TrashEntry;

    fn run(memcore: &Memcore, request: RefRequest) -> Result<TrashEntry> {
        memcore.delete(&request.reference)
    }
}

/// `restore`: [`Memcore::restore`], or [`Memcore::restore_version`] with a version.
pub(super) struct Restore;

impl Operation for Restore {
    const NAME: &'static str = "restore";
    const SUMMARY: &'static str =
        "Bring a deleted memory back from the trash, or write an earlier version back";
    type Request = RestoreRequest;
    type Result = MemoryRecord;

    fn run(memcore: &Memcore, request: RestoreRequest) -> Result<MemoryRecord> {
        let memory = match &request.version {
            Some(rev) => memcore.restore_version(&request.reference, rev)?,
            None => memcore.restore(&request.reference)?,
        };
        Ok(MemoryRecord::of(memory))
    }
}

/// `search`: [`Memcore::search`].
pub(super) struct Search;

impl Operation for Search {
    const NAME: &'static str = "search";
    const SUMMARY: &'static str =
        "Find memories by meaning and words (hybrid, semantic or full text), with filters";
    type Request = Query;
    type Result = SearchResults;

    fn run(memcore: &Memcore, request: Query) -> Result<SearchResults> {
        memcore.search(&request)
    }
}

/// `list`: [`Memcore::list`].
pub(super) struct List;

impl Operation for List {
    const NAME: &'static str = "list";
    const SUMMARY: &'static str =
        "List memories by collection then id, optionally filtered by key=value";
    type Request = ListOptions;
    type Result = Listing;

    fn run(memcore: &Memcore, request: ListOptions) -> Result<Listing> {
        memcore.list(&request)
    }
}

/// `collections`: [`Memcore::collections`].
pub(super) struct Collections;

impl Operation for Collections {
    const NAME: &'static str = "collections";
    const SUMMARY: &'static str = "List the store's collections";
    type Request = NoArguments;
    type Result = CollectionsResult;

    fn run(memcore: &Memcore, _: NoArguments) -> Result<CollectionsResult> {
        Ok(CollectionsResult { collections: memcore.collections()? })
    }
}

/// `versions`: [`Memcore::versions`].
pub(super) struct Versions;

impl Operation for Versions {
    const NAME: &'static str = "versions";
    const SUMMARY: &'static str = "List a memory's versions, oldest first";
    type Request = RefRequest;
    type Result = Vec<Version>;

    fn run(memcore: &Memcore, request: RefRequest) -> Result<Vec<Version>> {
        memcore.versions(&request.reference)
    }
}

/// `diff`: [`Memcore::diff`].
pub(super) struct Diff;

impl Operation for Diff {
    const NAME: &'static str = "diff";
    const SUMMARY: &'static str = "Show how a memory changed between two versions";
    type Request = DiffRequest;
    type Result = DiffResult;

    fn run(memcore: &Memcore, request: DiffRequest) -> Result<DiffResult> {
        let diff = memcore.diff(&request.reference, &request.from, &request.to)?;
        Ok(DiffResult { diff })
    }
}

/// `hydrate`: [`Memcore::hydrate`].
pub(super) struct Hydrate;

impl Operation for Hydrate {
    const NAME: &'static str = "hydrate";
    const SUMMARY: &'static str =
        "Read a memory with its git context: its note and commit, then the files changed";
    type Request = HydrateRequest;
    type Result = Hydrated;

    fn run(memcore: &Memcore, request: HydrateRequest) -> Result<Hydrated> {
        memcore.hydrate(&request.reference, request.level)
    }
}

/// `stats`: [`Memcore::stats`].
pub(super) struct StatsOp;

impl Operation for StatsOp {
    const NAME: &'static str = "stats";
    const SUMMARY: &'static str = "Count the store's memories by collection and status";
    type Request = NoArguments;
    type Result = Stats;

    fn run(memcore: &Memcore, _: NoArguments) -> Result<Stats> {
        memcore.stats()
    }
}

/// `verify`: [`Memcore::verify`].
pub(super) struct Verify;

impl Operation for Verify {
    const NAME: &'static str = "verify";
    const SUMMARY: &'static str = "Compare every index with the store (changes nothing)";
    type Request = NoArguments;
    type Result = VerifyReport;

    fn run(memcore: &Memcore, _: NoArguments) -> Result<VerifyReport> {
        memcore.verify()
    }
}

/// `repair`: [`Memcore::repair`].
pub(super) struct Repair;

impl Operation for Repair {
    const NAME: &'static str = "repair";
    const SUMMARY: &'static str = "Re-index what verify finds missing or stale";
    type Request = NoArguments;
    type Result = RepairReport;

    fn run(memcore: &Memcore, _: NoArguments) -> Result<RepairReport> {
        memcore.repair()
    }
}

/// `reindex`: [`Memcore::reindex`] (without progress reports).
pub(super) struct Reindex;

impl Operation for Reindex {
    const NAME: &'static str = "reindex";
    const SUMMARY: &'static str = "Rebuild every index from the store";
    type Request = NoArguments;
    type Result = ReindexReport;

    fn run(memcore: &Memcore, _: NoArguments) -> Result<ReindexReport> {
        memcore.reindex(&mut |_| {})
    }
}

/// `sync`: [`Memcore::sync`].
pub(super) struct Sync;

impl Operation for Sync {
    const NAME: &'static str = "sync";
    const SUMMARY: &'static str =
        "Index changes made behind memcore's back (e.g. git notes fetched from a clone)";
    type Request = NoArguments;
    type Result = SyncReport;

    fn run(memcore: &Memcore, _: NoArguments) -> Result<SyncReport> {
        memcore.sync()
    }
}
