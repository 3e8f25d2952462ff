//! The operations, each a unit struct implementing [`Operation`] over a [`Memcore`] method
//! (declared with [`operation!`]), and [`OPERATIONS`], the registry the bindings call
//! through.

use super::records::{
    CollectionsResult, DiffRequest, DiffResult, HydrateRequest, MemoryRecord, NoArguments,
    NotesMergeRequest, OpenedResult, PutRequest, PutResult, RefRequest, UpdateRequest,
    VersionRequest, VersionsResult,
};
use super::{Access, Operation, OperationEntry};
use crate::agent::{AgentProfile, AgentRememberRequest, AgentRequest, AgentView};
use crate::capture::{CaptureDecision, CaptureRequest};
use crate::compose::{ComposeRequest, ComposedContext};
use crate::decay::{
    KeepitMarkers, KeepitPreview, KeepitPreviewRequest, KeepitSetRequest, KeepitSource,
    LifecycleOptions, LifecycleReport, TransitionRequest,
};
use crate::docs::{
    DocsFeedbackRequest, DocsIngestRequest, DocsListRequest, DocsPurgeRequest, DocsRebuildRequest,
    DocsSearchRequest, DocumentHits, DocumentListing, DocumentPurged, FeedbackRecord, IngestReport,
};
use crate::links::{AppendRequest, BacklinksRequest, LinkList, MergeRequest, MergeResult};
use crate::project::{ProjectInfo, ProjectInitRequest};
use crate::session::{
    CompositionContext, CompositionRecord, CompositionRequest, CompressionRecord, PruneResult,
    SessionAddRequest, SessionComposeRequest, SessionCompressRequest, SessionEndReport,
    SessionEndRequest, SessionListing, SessionNoteRequest, SessionPruneRequest, SessionRecord,
    SessionRequest, SessionStartRequest, SessionTurnRequest, SessionVersionRequest, VersionContent,
};
use crate::{
    AuditRecord, CompactRequest, CompactionReport, HotSession, Hydrated, ListOptions, Listing,
    Memcore, NotesMergeReport, PurgeRequest, Query, RecallRequest, RecallResults, ReindexReport,
    RepairReport, Result, RetainReport, RetainRequest, Retrieval, RetrieveRequest, SearchResults,
    Stats, SyncReport, TimelineListing, TimelineRequest, TrashEntry, VerifyReport,
};

/// Every operation, in the order tool listings show them.
pub static OPERATIONS: &[OperationEntry] = &[
    OperationEntry::of::<Put>(),
    OperationEntry::of::<Get>(),
    OperationEntry::of::<Update>(),
    OperationEntry::of::<Delete>(),
    OperationEntry::of::<Restore>(),
    OperationEntry::of::<Transition>(),
    OperationEntry::of::<Search>(),
    OperationEntry::of::<Recall>(),
    OperationEntry::of::<Retrieve>(),
    OperationEntry::of::<List>(),
    OperationEntry::of::<Collections>(),
    OperationEntry::of::<Versions>(),
    OperationEntry::of::<Diff>(),
    OperationEntry::of::<Hydrate>(),
    OperationEntry::of::<StatsOp>(),
    OperationEntry::of::<Opened>(),
    OperationEntry::of::<Verify>(),
    OperationEntry::of::<Repair>(),
    OperationEntry::of::<Reindex>(),
    OperationEntry::of::<Sync>(),
    OperationEntry::of::<NotesMerge>(),
    OperationEntry::of::<Lifecycle>(),
    OperationEntry::of::<KeepitList>(),
    OperationEntry::of::<KeepitSet>(),
    OperationEntry::of::<KeepitPreviewOp>(),
    OperationEntry::of::<Capture>(),
    OperationEntry::of::<Links>(),
    OperationEntry::of::<Backlinks>(),
    OperationEntry::of::<Append>(),
    OperationEntry::of::<Merge>(),
    OperationEntry::of::<Compose>(),
    OperationEntry::of::<SessionAdd>(),
    OperationEntry::of::<SessionList>(),
    OperationEntry::of::<SessionShow>(),
    OperationEntry::of::<SessionCompress>(),
    OperationEntry::of::<SessionCompose>(),
    OperationEntry::of::<SessionPrune>(),
    OperationEntry::of::<SessionVersion>(),
    OperationEntry::of::<CompositionShow>(),
    OperationEntry::of::<CompositionDelete>(),
    OperationEntry::of::<SessionStart>(),
    OperationEntry::of::<SessionTurn>(),
    OperationEntry::of::<SessionNote>(),
    OperationEntry::of::<SessionLive>(),
    OperationEntry::of::<SessionEnd>(),
    OperationEntry::of::<TimelineOp>(),
    OperationEntry::of::<Compact>(),
    OperationEntry::of::<Retain>(),
    OperationEntry::of::<Purge>(),
    OperationEntry::of::<DocsIngest>(),
    OperationEntry::of::<DocsList>(),
    OperationEntry::of::<DocsSearch>(),
    OperationEntry::of::<DocsPurge>(),
    OperationEntry::of::<DocsRebuild>(),
    OperationEntry::of::<DocsFeedback>(),
    OperationEntry::of::<AgentSet>(),
    OperationEntry::of::<AgentProfileOp>(),
    OperationEntry::of::<AgentRemember>(),
    OperationEntry::of::<ProjectInit>(),
    OperationEntry::of::<ProjectInfoOp>(),
    OperationEntry::of::<ProjectTrust>(),
];

/// The [`Access`] an operation declares: `reads` or `writes`.
macro_rules! access {
    (reads) => {
        Access::Reads
    };
    (writes) => {
        Access::Writes
    };
}

/// Declares an operation: a unit struct and its [`Operation`] impl, whose `run` is `body`
/// with the handle and the request bound to the two names given.
macro_rules! operation {
    (
        $(#[$doc:meta])*
        $op:ident = $name:literal ($access:ident), $summary:literal,
        |$memcore:ident, $request:ident: $request_ty:ty| -> $result_ty:ty $body:block
    ) => {
        $(#[$doc])*
        pub(super) struct $op;

        impl Operation for $op {
            const NAME: &'static str = $name;
            const SUMMARY: &'static str = $summary;
            const ACCESS: Access = access!($access);
            type Request = $request_ty;
            type Result = $result_ty;

            fn run($memcore: &Memcore, $request: $request_ty) -> Result<$result_ty> $body
        }
    };
}

operation! {
    /// `put`: [`Memcore::put_many_with`], or [`Memcore::put_many_at`] with a commit.
    Put = "put" (writes),
    "Store memories (markdown content plus metadata), replacing ones with the same id",
    |memcore, request: PutRequest| -> PutResult {
        let stored = match &request.commit {
            Some(rev) => memcore.put_many_at(request.memories, rev, request.mode)?,
            None => memcore.put_many_with(request.memories, request.mode)?,
        };
        Ok(PutResult { memories: stored.into_iter().map(MemoryRecord::of).collect() })
    }
}

operation! {
    /// `get`: [`Memcore::get`], or [`Memcore::get_version`] with a version.
    Get = "get" (reads), "Read one memory, as it is now or at an earlier version",
    |memcore, request: VersionRequest| -> MemoryRecord {
        let memory = match &request.version {
            Some(rev) => memcore.get_version(&request.reference, rev)?,
            None => memcore.get(&request.reference)?,
        };
        Ok(MemoryRecord::of(memory))
    }
}

operation! {
    /// `update`: [`Memcore::update`].
    Update = "update" (writes),
    "Change a memory's content or metadata (a new version; the old one stays in history)",
    |memcore, request: UpdateRequest| -> MemoryRecord {
        memcore.update(&request.reference, request.change).map(MemoryRecord::of)
    }
}

operation! {
    /// `delete`: [`Memcore::delete`].
    Delete = "delete" (writes), "Move a memory to the trash (restore brings it back)",
    |memcore, request: RefRequest| -> TrashEntry { memcore.delete(&request.reference) }
}

operation! {
    /// `restore`: [`Memcore::restore`], or [`Memcore::restore_version`] with a version.
    Restore = "restore" (writes),
    "Bring a deleted memory back from the trash, or write an earlier version back",
    |memcore, request: VersionRequest| -> MemoryRecord {
        let memory = match &request.version {
            Some(rev) => memcore.restore_version(&request.reference, rev)?,
            None => memcore.restore(&request.reference)?,
        };
        Ok(MemoryRecord::of(memory))
    }
}

operation! {
    /// `search`: [`Memcore::search`].
    Search = "search" (reads),
    "Find memories by meaning and words (hybrid, semantic or full text), with filters",
    |memcore, request: Query| -> SearchResults { memcore.search(&request) }
}

operation! {
    /// `recall`: [`Memcore::recall`].
    Recall = "recall" (writes),
    "Search across tiers: warm memories first, the cold archive (ended sessions' turns, \
     demoted memories) as fallback or on request; hits labelled M1, M2, ... with tier and \
     provenance, recorded in a live session's retrieval history when one is named",
    |memcore, request: RecallRequest| -> RecallResults { memcore.recall(&request) }
}

operation! {
    /// `retrieve`: [`Memcore::retrieve`].
    Retrieve = "retrieve" (writes),
    "Retrieve into a live session mid-conversation: for keywords, or each <<retrieve: ...>> \
     marker of an agent's output, append [Doc 1]-labelled passages (warm tier, then cold) to \
     its context and record the query in its retrieval history",
    |memcore, request: RetrieveRequest| -> Retrieval { memcore.retrieve(&request) }
}

operation! {
    /// `list`: [`Memcore::list`].
    List = "list" (reads), "List memories by collection then id, optionally filtered by key=value",
    |memcore, request: ListOptions| -> Listing { memcore.list(&request) }
}

operation! {
    /// `collections`: [`Memcore::collections`].
    Collections = "collections" (reads), "List the store's collections",
    |memcore, _request: NoArguments| -> CollectionsResult {
        Ok(CollectionsResult { collections: memcore.collections()? })
    }
}

operation! {
    /// `versions`: [`Memcore::versions`].
    Versions = "versions" (reads), "List a memory's versions, oldest first",
    |memcore, request: RefRequest| -> VersionsResult {
        Ok(VersionsResult { versions: memcore.versions(&request.reference)? })
    }
}

operation! {
    /// `diff`: [`Memcore::diff`].
    Diff = "diff" (reads), "Show how a memory changed between two versions",
    |memcore, request: DiffRequest| -> DiffResult {
        let diff = memcore.diff(&request.reference, &request.from, &request.to)?;
        Ok(DiffResult { diff })
    }
}

operation! {
    /// `hydrate`: [`Memcore::hydrate`].
    Hydrate = "hydrate" (reads),
    "Read a memory with its git context: its note and commit, then the files changed",
    |memcore, request: HydrateRequest| -> Hydrated {
        memcore.hydrate(&request.reference, request.level)
    }
}

operation! {
    /// `stats`: [`Memcore::stats`].
    StatsOp = "stats" (reads), "Count the store's memories by collection and status",
    |memcore, _request: NoArguments| -> Stats { memcore.stats() }
}

operation! {
    /// `opened`: [`Memcore::opened_with`].
    Opened = "opened" (reads),
    "Say what opening the store did to its indexes (a damaged index rebuilt, a crash replayed)",
    |memcore, _request: NoArguments| -> OpenedResult {
        Ok(OpenedResult { maintenance: memcore.opened_with().to_vec() })
    }
}

operation! {
    /// `verify`: [`Memcore::verify`].
    Verify = "verify" (reads), "Compare every index with the store (changes nothing)",
    |memcore, _request: NoArguments| -> VerifyReport { memcore.verify() }
}

operation! {
    /// `repair`: [`Memcore::repair`].
    Repair = "repair" (writes), "Re-index what verify finds missing or stale",
    |memcore, _request: NoArguments| -> RepairReport { memcore.repair() }
}

operation! {
    /// `reindex`: [`Memcore::reindex`] (without progress reports).
    Reindex = "reindex" (writes), "Rebuild every index from the store",
    |memcore, _request: NoArguments| -> ReindexReport { memcore.reindex(&mut |_| {}) }
}

operation! {
    /// `sync`: [`Memcore::sync`].
    Sync = "sync" (writes),
    "Index changes made behind memcore's back (e.g. git notes fetched from a clone)",
    |memcore, _request: NoArguments| -> SyncReport { memcore.sync() }
}

operation! {
    /// `notes_merge`: [`Memcore::merge_notes`].
    NotesMerge = "notes_merge" (writes),
    "Merge the git notes another clone wrote (fetched to refs/notes/REMOTE/mem/*): every memory once",
    |memcore, request: NotesMergeRequest| -> NotesMergeReport {
        memcore.merge_notes(&request.remote)
    }
}

operation! {
    /// `transition`: [`Memcore::transition`].
    Transition = "transition" (writes),
    "Move a memory to another lifecycle status (active, resolved, archived, tombstone)",
    |memcore, request: TransitionRequest| -> MemoryRecord {
        memcore.transition(&request.reference, request.status).map(MemoryRecord::of)
    }
}

operation! {
    /// `lifecycle`: [`Memcore::process_lifecycle`].
    Lifecycle = "lifecycle" (writes),
    "Archive, tombstone and delete memories by age and relevance (dry_run to only plan)",
    |memcore, request: LifecycleOptions| -> LifecycleReport {
        memcore.process_lifecycle(&request)
    }
}

operation! {
    /// `keepit_list`: [`Memcore::keepit_markers`].
    KeepitList = "keepit_list" (reads), "List the ##keepitX.XX## markers of a memory or a text",
    |memcore, request: KeepitSource| -> KeepitMarkers {
        Ok(KeepitMarkers { markers: memcore.keepit_markers(&request)? })
    }
}

operation! {
    /// `keepit_set`: [`Memcore::set_keepit_weight`].
    KeepitSet = "keepit_set" (writes),
    "Change the weight of one keepit marker of a memory, in place",
    |memcore, request: KeepitSetRequest| -> MemoryRecord {
        memcore
            .set_keepit_weight(&request.reference, request.index, request.weight)
            .map(MemoryRecord::of)
    }
}

operation! {
    /// `keepit_preview`: [`Memcore::keepit_preview`].
    KeepitPreviewOp = "keepit_preview" (reads),
    "Show which keepit markers survive a compression at each session distance",
    |memcore, request: KeepitPreviewRequest| -> KeepitPreview { memcore.keepit_preview(&request) }
}

operation! {
    /// `capture`: [`Memcore::capture`].
    Capture = "capture" (writes),
    "Find what in a text is worth remembering ([remember] markers, decisions, learnings, \
     blockers, ...), check it is new, and store it when asked (apply)",
    |memcore, request: CaptureRequest| -> CaptureDecision { memcore.capture(&request) }
}

operation! {
    /// `links`: [`Memcore::links`].
    Links = "links" (reads),
    "List a memory's [[links]]: the memory or ghost node each reaches, edge type, anchor context",
    |memcore, request: RefRequest| -> LinkList {
        Ok(LinkList { links: memcore.links(&request.reference)? })
    }
}

operation! {
    /// `backlinks`: [`Memcore::backlinks`].
    Backlinks = "backlinks" (reads),
    "List the links into a memory or ghost node (ghost:src/server.py), with their anchor context",
    |memcore, request: BacklinksRequest| -> LinkList {
        Ok(LinkList { links: memcore.backlinks(&request.target)? })
    }
}

operation! {
    /// `append`: [`Memcore::append`].
    Append = "append" (writes),
    "Add text to the end of a memory (a new version; its links re-indexed)",
    |memcore, request: AppendRequest| -> MemoryRecord {
        memcore.append(&request.reference, &request.text).map(MemoryRecord::of)
    }
}

operation! {
    /// `merge`: [`Memcore::merge`].
    Merge = "merge" (writes),
    "Merge memories into a new one (content under headings, tags united, links re-pointed, \
     sources to the trash), all or nothing",
    |memcore, request: MergeRequest| -> MergeResult { memcore.merge(&request) }
}

operation! {
    /// `compose`: [`Memcore::compose`].
    Compose = "compose" (reads),
    "Assemble the context for a prompt within a token budget: working memory (pinned, \
     blockers, recent decisions) plus what the query finds, labelled [M1]... for citation, \
     with a manifest of every candidate and why it was or was not included",
    |memcore, request: ComposeRequest| -> ComposedContext { memcore.compose(&request) }
}

operation! {
    /// `session_add`: [`Memcore::session_add`].
    SessionAdd = "session_add" (writes),
    "Register a conversation transcript (Claude Code JSONL or {role, content, timestamp} \
     lines) as a session: an immutable copy, its tokens, times and keepit markers",
    |memcore, request: SessionAddRequest| -> SessionRecord { memcore.session_add(&request) }
}

operation! {
    /// `session_list`: [`Memcore::session_list`].
    SessionList = "session_list" (reads), "List the registered sessions and compositions",
    |memcore, _request: NoArguments| -> SessionListing { memcore.session_list() }
}

operation! {
    /// `session_show`: [`Memcore::session_show`].
    SessionShow = "session_show" (reads),
    "Show a session: its metadata, keepit markers and compression versions",
    |memcore, request: SessionRequest| -> SessionRecord { memcore.session_show(&request.session) }
}

operation! {
    /// `session_compress`: [`Memcore::session_compress`].
    SessionCompress = "session_compress" (writes),
    "Compress a session into a new version (uniform or tiered; keepit markers survive by \
     the decay threshold) with the extractive summariser or the handle's callback",
    |memcore, request: SessionCompressRequest| -> CompressionRecord {
        memcore.session_compress(&request)
    }
}

operation! {
    /// `session_compose`: [`Memcore::session_compose`].
    SessionCompose = "session_compose" (writes),
    "Compose several sessions into one context within a token budget, choosing or making a \
     version of each (seed 004's composition algorithm)",
    |memcore, request: SessionComposeRequest| -> CompositionRecord {
        memcore.session_compose(&request)
    }
}

operation! {
    /// `session_prune`: [`Memcore::session_prune`].
    SessionPrune = "session_prune" (writes),
    "Delete compression versions of a session (refusing, unless forced, ones a composition uses)",
    |memcore, request: SessionPruneRequest| -> PruneResult { memcore.session_prune(&request) }
}

operation! {
    /// `session_version`: [`Memcore::session_version`].
    SessionVersion = "session_version" (reads),
    "Show a version of a session with its text (or the original transcript)",
    |memcore, request: SessionVersionRequest| -> VersionContent {
        memcore.session_version(&request.session, &request.version)
    }
}

operation! {
    /// `composition_show`: [`Memcore::session_composition`].
    CompositionShow = "composition_show" (reads),
    "Show a composition: its record and the context it composed",
    |memcore, request: CompositionRequest| -> CompositionContext {
        memcore.session_composition(&request.name)
    }
}

operation! {
    /// `composition_delete`: [`Memcore::session_composition_delete`].
    CompositionDelete = "composition_delete" (writes),
    "Delete a composition (its record and files; the versions it used can then be pruned)",
    |memcore, request: CompositionRequest| -> CompositionRecord {
        memcore.session_composition_delete(&request.name)
    }
}

operation! {
    /// `session_start`: [`Memcore::session_start`].
    SessionStart = "session_start" (writes),
    "Start a live session in a tiered store's hot tier (its id, title and agents)",
    |memcore, request: SessionStartRequest| -> HotSession { memcore.session_start(&request) }
}

operation! {
    /// `session_turn`: [`Memcore::session_turn`].
    SessionTurn = "session_turn" (writes),
    "Add a turn to a live session: the last turns stay verbatim, older ones roll into its \
     summary, every turn is kept for the cold tier",
    |memcore, request: SessionTurnRequest| -> HotSession { memcore.session_turn(&request) }
}

operation! {
    /// `session_note`: [`Memcore::session_note`].
    SessionNote = "session_note" (writes),
    "Add a working note (the session's or one agent's) or an open action item to a live session",
    |memcore, request: SessionNoteRequest| -> HotSession { memcore.session_note(&request) }
}

operation! {
    /// `session_live`: [`Memcore::session_live`].
    SessionLive = "session_live" (reads),
    "Show a live session's hot state: last turns, rolling summary, action items and notes",
    |memcore, request: SessionRequest| -> HotSession { memcore.session_live(&request.session) }
}

operation! {
    /// `session_end`: [`Memcore::session_end`].
    SessionEnd = "session_end" (writes),
    "End a live session: its transcript to the cold tier, its summary, action items and notes \
     to the warm tier (sessions/<id>), an entry on the timeline; resumable if interrupted",
    |memcore, request: SessionEndRequest| -> SessionEndReport { memcore.session_end(&request) }
}

operation! {
    /// `timeline`: [`Memcore::timeline`].
    TimelineOp = "timeline" (reads),
    "List the timeline of ended sessions and events, by agent and time",
    |memcore, request: TimelineRequest| -> TimelineListing { memcore.timeline(&request) }
}

operation! {
    /// `compact`: [`Memcore::compact`].
    Compact = "compact" (writes),
    "Compact a tiered store: memories past the warm window fold into a digest per collection \
     and quarter and move to the cold tier (pinned ones stay); dry_run reports the plan",
    |memcore, request: CompactRequest| -> CompactionReport { memcore.compact(&request) }
}

operation! {
    /// `retain`: [`Memcore::retain`].
    Retain = "retain" (writes),
    "Pin a memory, or an ended session's summary and notes (importance 1.0): compaction \
     leaves them warm",
    |memcore, request: RetainRequest| -> RetainReport { memcore.retain(&request) }
}

operation! {
    /// `purge`: [`Memcore::purge`].
    Purge = "purge" (writes),
    "Remove a memory or a session from every tier and index of a tiered store for good (its \
     digests rebuilt, its timeline entry removed), with a reason for the audit log; pinned \
     memories and live sessions need force",
    |memcore, request: PurgeRequest| -> AuditRecord { memcore.purge(&request) }
}

operation! {
    /// `docs_ingest`: [`Memcore::docs_ingest`].
    DocsIngest = "docs_ingest" (writes),
    "Ingest markdown or text files as documents: each split along its headings and \
     paragraphs into chunks stored and indexed as memories; unchanged files write nothing, \
     changed ones replace exactly their chunks",
    |memcore, request: DocsIngestRequest| -> IngestReport { memcore.docs_ingest(&request) }
}

operation! {
    /// `docs_list`: [`Memcore::docs_list`].
    DocsList = "docs_list" (reads),
    "List the ingested documents: source, hash, chunking, tags and chunk ids",
    |memcore, request: DocsListRequest| -> DocumentListing { memcore.docs_list(&request) }
}

operation! {
    /// `docs_search`: [`Memcore::docs_search`].
    DocsSearch = "docs_search" (reads),
    "Search the documents' chunks; each hit names its document, heading path and position",
    |memcore, request: DocsSearchRequest| -> DocumentHits { memcore.docs_search(&request) }
}

operation! {
    /// `docs_purge`: [`Memcore::docs_purge`].
    DocsPurge = "docs_purge" (writes),
    "Remove a document for good: its record, chunks, feedback, and every index entry of them",
    |memcore, request: DocsPurgeRequest| -> DocumentPurged { memcore.docs_purge(&request) }
}

operation! {
    /// `docs_rebuild`: [`Memcore::docs_rebuild`].
    DocsRebuild = "docs_rebuild" (writes),
    "Split documents again from their files (all of them by default), after an edit or with \
     a new chunk size or overlap",
    |memcore, request: DocsRebuildRequest| -> IngestReport { memcore.docs_rebuild(&request) }
}

operation! {
    /// `docs_feedback`: [`Memcore::docs_feedback`].
    DocsFeedback = "docs_feedback" (writes),
    "Rate how useful a document or one of its chunks was (1 to 5), append-only",
    |memcore, request: DocsFeedbackRequest| -> FeedbackRecord { memcore.docs_feedback(&request) }
}

operation! {
    /// `agent_set`: [`Memcore::agent_set`].
    AgentSet = "agent_set" (writes),
    "Set an agent's profile (name, persona, style, memory limits, other fields), kept as \
     the memory agents/<id>",
    |memcore, request: AgentProfile| -> AgentProfile { memcore.agent_set(&request) }
}

operation! {
    /// `agent_profile`: [`Memcore::agent_profile`].
    AgentProfileOp = "agent_profile" (reads),
    "Show an agent's profile with its newest memories and how many it owns",
    |memcore, request: AgentRequest| -> AgentView { memcore.agent_profile(&request) }
}

operation! {
    /// `agent_remember`: [`Memcore::agent_remember`].
    AgentRemember = "agent_remember" (writes),
    "Store a memory of an agent's own (its agent metadata names it), within its profile's \
     max_memories",
    |memcore, request: AgentRememberRequest| -> MemoryRecord {
        Ok(MemoryRecord::of(memcore.agent_remember(&request)?))
    }
}

operation! {
    /// `project_init`: [`Memcore::project_init`].
    ProjectInit = "project_init" (writes),
    "Write the project's manifest (project.json in the store: id, agents, retention, summary \
     mode); what is left out is the policy in force",
    |memcore, request: ProjectInitRequest| -> ProjectInfo { memcore.project_init(&request) }
}

operation! {
    /// `project_info`: [`Memcore::project_info`].
    ProjectInfoOp = "project_info" (reads),
    "Show the project's manifest, the retention and summary policy in force, its agents, \
     documents and newest sessions",
    |memcore, _request: NoArguments| -> ProjectInfo { memcore.project_info() }
}

operation! {
    /// `project_trust`: [`Memcore::project_trust`].
    ProjectTrust = "project_trust" (writes),
    "Trust the manifest's summary command on this machine (it runs only once trusted)",
    |memcore, _request: NoArguments| -> ProjectInfo { memcore.project_trust() }
}
