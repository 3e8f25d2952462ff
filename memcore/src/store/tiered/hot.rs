//! [`HotTier`]: the working set of live sessions (seed 003's hot layer). Per session: the
//! last `context_turns` turns, a rolling summary of the turns before them, open action items
//! and working notes (each note may belong to an agent). Reads come from memory; every change
//! is written first to a JSON snapshot (`<dir>/<session>.json`, atomically), so a process
//! that crashed resumes its sessions on open. Every turn is also appended to the session's
//! journal (`<dir>/<session>.turns.jsonl`, durably), so the whole transcript survives for the
//! cold tier while only the last turns stay in memory. A session is ended once its summary
//! and transcript moved down (to the warm and cold tiers): ending removes both files.
//!
//! Writes to one session are serialised (each waits for the one before, summariser call
//! included); reads never wait for a write, and sessions do not wait for each other. One
//! process owns a live session at a time (the orchestrator running it); others may read its
//! snapshot by opening the tier. Nothing bounds the number of action items, notes or
//! recalls, nor a turn's length: the snapshot grows with them, and is written whole on every
//! change.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::jsonl;
use super::recall::Tier;
use crate::session::registry::check_name;
use crate::session::{ExtractiveSummarizer, Summarizer, TranscriptMessage, condense};
use crate::store::fsutil::{create_private_dir_all, remove_file_if_present, write_atomic};
use crate::{Error, Result, Timestamp};

/// The prefix of a document chunk's label (seed 003's `[Doc n]`).
const DOCUMENT_LABEL: &str = "Doc ";
/// The prefix of any other evidence's label (`[M1]`, as composed contexts label memories).
const MEMORY_LABEL: &str = "M";

/// The longest query a session's retrieval history keeps, in characters.
pub(crate) const MAX_RECORDED_QUERY_CHARS: usize = 200;

/// How many turns a hot session keeps verbatim unless told otherwise (seed 003's
/// `hot_context_turns`).
pub const DEFAULT_HOT_CONTEXT_TURNS: usize = 12;

/// About how many tokens the rolling summary takes unless told otherwise.
pub const DEFAULT_HOT_SUMMARY_TOKENS: usize = 300;

/// One turn of a live session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct HotTurn {
    /// Its number in the session, from 1.
    pub number: u64,
    /// Who spoke (`user`, `assistant`, an agent's id).
    pub role: String,
    /// What was said.
    pub content: String,
    /// When.
    pub at: Timestamp,
}

/// A working note, an agent's own or the session's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct HotNote {
    /// The agent it belongs to; `None` for the whole session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The note.
    pub text: String,
}

/// A piece of evidence a live session was given by a recall, under its label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct HotEvidence {
    /// Its label in the order the session first recalled each source: `Doc 1`, `Doc 2`, ...
    /// for a document's chunk, `M1`, `M2`, ... for anything else.
    pub label: String,
    /// The tier it came from.
    pub tier: Tier,
    /// A memory's `collection/id` (warm) or the archive record's id (cold).
    pub source: String,
    /// Its title.
    pub title: String,
    /// The agent who owns it (an agent's memory); `None` for shared evidence. A session's
    /// end lists owned evidence only in that agent's notes, never in the shared summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The document it is a chunk of, for a document's chunk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<String>,
    /// The passage a retrieval appended to the session's context (empty for a recall, which
    /// delivers excerpts only).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
}

/// One recall made in a live session: seed 003's retrieval history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct HotRetrieval {
    /// When.
    pub at: Timestamp,
    /// What was asked.
    pub query: String,
    /// Whose view it searched, if one agent's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The labels of what it delivered, best first.
    pub labels: Vec<String>,
    /// What it delivered, as the labels' sources (a memory's `collection/id`, an archive
    /// record's id), in the same order.
    #[serde(default)]
    pub sources: Vec<String>,
}

/// The hot state of one live session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct HotSession {
    /// The session's id (a registry session name).
    pub session_id: String,
    /// What the session is about (empty when not given).
    #[serde(default)]
    pub title: String,
    /// The agents taking part.
    #[serde(default)]
    pub agents: Vec<String>,
    /// When it started.
    pub started_at: Timestamp,
    /// When it last changed (a turn's time; the clock's for other changes).
    pub updated_at: Timestamp,
    /// The last turns, oldest first (at most the tier's `context_turns`).
    pub turns: Vec<HotTurn>,
    /// How many turns the session has had.
    pub turn_count: u64,
    /// A summary of the turns no longer in `turns`.
    pub summary: String,
    /// Open action items, oldest first.
    pub action_items: Vec<String>,
    /// Working notes, oldest first.
    pub notes: Vec<HotNote>,
    /// The evidence recalls delivered to the session, by label.
    #[serde(default)]
    pub evidence: Vec<HotEvidence>,
    /// The recalls made in the session, oldest first.
    #[serde(default)]
    pub retrievals: Vec<HotRetrieval>,
}

impl HotSession {
    /// The notes `agent` sees: the session's and its own.
    pub fn notes_for(&self, agent: &str) -> impl Iterator<Item = &HotNote> {
        self.notes.iter().filter(move |note| note.agent.as_deref().is_none_or(|a| a == agent))
    }
}

/// What a change to a hot session is.
#[derive(Debug, Clone)]
enum Change {
    Turn { role: String, content: String, at: Timestamp },
    ActionItem(String),
    Resolved(usize),
    Note(HotNote),
    Retrieval { query: String, agent: Option<String>, found: Vec<HotEvidence>, at: Timestamp },
}

/// The hot tier of a store: its live sessions. `Send + Sync`.
///
/// ```
/// use memcore::{HotTier, now};
/// let dir = tempfile::tempdir()?;
/// let hot = HotTier::open(dir.path(), 12)?;
/// hot.start("standup-2026-11-27", now())?;
/// hot.add_turn("standup-2026-11-27", "ann", "I will fix the flaky test today.", now())?;
/// hot.add_action_item("standup-2026-11-27", "fix the flaky test")?;
/// let session = hot.get("standup-2026-11-27").expect("live");
/// assert_eq!(session.turns.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct HotTier {
    dir: PathBuf,
    context_turns: usize,
    summary_tokens: usize,
    summarizer: Option<Arc<dyn Summarizer>>,
    sessions: RwLock<HashMap<String, Arc<Slot>>>,
}

/// A live session: its state, and the lock its writes take in turn.
#[derive(Debug)]
struct Slot {
    /// Held while a change is made; `true` once the session ended.
    writing: Mutex<bool>,
    /// The state as last published.
    current: RwLock<Arc<HotSession>>,
}

impl Slot {
    fn new(session: HotSession) -> Arc<Self> {
        Arc::new(Self { writing: Mutex::new(false), current: RwLock::new(Arc::new(session)) })
    }
}

impl HotTier {
    /// Opens the hot tier in `dir` (created if missing), resuming the sessions whose
    /// snapshots are there; sessions keep their last `context_turns` turns (at least 1).
    /// A snapshot that does not parse is an [`Error::Corrupted`] naming it.
    pub fn open(dir: impl AsRef<Path>, context_turns: usize) -> Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        create_private_dir_all(&dir)?;
        let mut sessions = HashMap::new();
        let listing = |e| Error::io(format!("listing {}", dir.display()), e);
        for entry in std::fs::read_dir(&dir).map_err(listing)? {
            let path = entry.map_err(listing)?.path();
            if let Some(session) = path.to_str().and_then(|p| p.strip_suffix(".turns.jsonl")) {
                // A journal without its snapshot is what an end that stopped between the two
                // removals leaves: its turns moved down already.
                if !Path::new(&format!("{session}.json")).exists() {
                    remove_file_if_present(&path, "leftover turn journal")?;
                }
                continue;
            }
            if path.extension().is_none_or(|ext| ext != "json") {
                continue;
            }
            let bytes = std::fs::read(&path)
                .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
            let session: HotSession = serde_json::from_slice(&bytes).map_err(|e| {
                Error::corrupted(
                    &path,
                    None,
                    format!("a hot session snapshot does not parse: {e}"),
                    "move the file away to drop that session's hot state (its turns are in the \
                     cold tier), then open again",
                )
            })?;
            let named_so = path.file_stem().is_some_and(|stem| *stem == *session.session_id);
            if check_name("session id", &session.session_id).is_err() || !named_so {
                return Err(Error::corrupted(
                    &path,
                    None,
                    format!(
                        "a hot session snapshot holds session {:?}, which its file name does \
                         not give",
                        session.session_id
                    ),
                    "rename the file to `<session id>.json`, or move it away to drop that \
                     session's hot state",
                ));
            }
            sessions.insert(session.session_id.clone(), Slot::new(session));
        }
        Ok(Self {
            dir,
            context_turns: context_turns.max(1),
            summary_tokens: DEFAULT_HOT_SUMMARY_TOKENS,
            summarizer: Some(Arc::new(ExtractiveSummarizer)),
            sessions: RwLock::new(sessions),
        })
    }

    /// The same tier, summarising evicted turns with `summarizer` into about `tokens` tokens;
    /// with `None`, evicted turns leave the session's context unsummarised.
    pub fn with_summarizer(
        mut self,
        summarizer: Option<Arc<dyn Summarizer>>,
        tokens: usize,
    ) -> Self {
        self.summarizer = summarizer;
        self.summary_tokens = tokens.max(1);
        self
    }

    /// The live session `session_id`, if there is one: a read from memory.
    pub fn get(&self, session_id: &str) -> Option<Arc<HotSession>> {
        let slot = self.sessions.read().get(session_id).cloned()?;
        let current = slot.current.read().clone();
        Some(current)
    }

    /// The ids of the live sessions, sorted.
    pub fn live(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.sessions.read().keys().cloned().collect();
        ids.sort();
        ids
    }

    /// Starts the session `session_id` at `now`. An invalid id is an [`Error::Validation`];
    /// a session live already is an [`Error::Conflict`].
    pub fn start(&self, session_id: &str, now: Timestamp) -> Result<Arc<HotSession>> {
        self.start_with(session_id, "", &[], now)
    }

    /// Starts the session `session_id` at `now`, saying what it is about and who takes part.
    /// Errors as [`HotTier::start`]; a title with control characters, or an agent id that is
    /// invalid or given twice, is an [`Error::Validation`]; a session whose snapshot another
    /// process wrote is an [`Error::Conflict`].
    pub fn start_with(
        &self,
        session_id: &str,
        title: &str,
        agents: &[String],
        now: Timestamp,
    ) -> Result<Arc<HotSession>> {
        check_name("session id", session_id)?;
        for (i, agent) in agents.iter().enumerate() {
            check_name("agent id", agent)?;
            if agents[..i].contains(agent) {
                return Err(Error::validation(
                    format!("agent {agent} is named twice"),
                    "name each agent taking part once",
                ));
            }
        }
        if title.chars().any(char::is_control) {
            return Err(Error::validation(
                "the session's title has control characters (a line break, say)",
                "give the title on one line",
            ));
        }
        let mut sessions = self.sessions.write();
        if sessions.contains_key(session_id) {
            return Err(Error::conflict(
                format!("session {session_id} is live already"),
                "end it first, or keep adding to it",
            ));
        }
        let session = HotSession {
            session_id: session_id.to_owned(),
            title: title.trim().to_owned(),
            agents: agents.to_vec(),
            started_at: now,
            updated_at: now,
            turns: Vec::new(),
            turn_count: 0,
            summary: String::new(),
            action_items: Vec::new(),
            notes: Vec::new(),
            evidence: Vec::new(),
            retrievals: Vec::new(),
        };
        // Another process may run it (it opened the tier before, or after this one did).
        if self.snapshot(session_id).exists() {
            return Err(Error::conflict(
                format!("session {session_id} is live in another process"),
                "end it there, or open the store again to resume it here",
            ));
        }
        // A journal left by an earlier session of this id that ended mid-way is not this one's.
        remove_file_if_present(&self.journal(session_id), "old turn journal")?;
        self.save(&session)?;
        let slot = Slot::new(session);
        let current = slot.current.read().clone();
        sessions.insert(session_id.to_owned(), slot);
        Ok(current)
    }

    /// Adds a turn; the oldest turn beyond the tier's `context_turns` leaves `turns` for the
    /// rolling summary. A blank role, one with control characters, or `summary` is an
    /// [`Error::Validation`].
    pub fn add_turn(
        &self,
        session_id: &str,
        role: &str,
        content: &str,
        at: Timestamp,
    ) -> Result<Arc<HotSession>> {
        if role.trim().is_empty() || role.chars().any(char::is_control) || role == "summary" {
            return Err(Error::validation(
                format!("invalid role {role:?}"),
                "give who spoke: `user`, `assistant` or an agent's id (`summary` is reserved)",
            ));
        }
        let change = Change::Turn { role: role.to_owned(), content: content.to_owned(), at };
        self.change(session_id, change)
    }

    /// Adds an open action item.
    pub fn add_action_item(&self, session_id: &str, item: &str) -> Result<Arc<HotSession>> {
        self.change(session_id, Change::ActionItem(item.to_owned()))
    }

    /// Closes the open action item at `index` (0 is the oldest); an index past the end is
    /// an [`Error::NotFound`].
    pub fn resolve_action_item(&self, session_id: &str, index: usize) -> Result<Arc<HotSession>> {
        self.change(session_id, Change::Resolved(index))
    }

    /// Adds a working note, `agent`'s own or (`None`) the session's.
    pub fn add_note(
        &self,
        session_id: &str,
        agent: Option<&str>,
        text: &str,
    ) -> Result<Arc<HotSession>> {
        let note = HotNote { agent: agent.map(str::to_owned), text: text.to_owned() };
        self.change(session_id, Change::Note(note))
    }

    /// Records a recall of `query` (in `agent`'s view, if one's) that found `found` (best
    /// first; their labels are ignored) at `at`: each source gets the label it has in the
    /// session, or the next one (`M<n>`). The labels are those of the returned session's last
    /// retrieval. The query is kept to its first [`MAX_RECORDED_QUERY_CHARS`] characters.
    pub(crate) fn record_retrieval(
        &self,
        session_id: &str,
        query: &str,
        agent: Option<&str>,
        found: Vec<HotEvidence>,
        at: Timestamp,
    ) -> Result<Arc<HotSession>> {
        let change = Change::Retrieval {
            query: crate::text::shorten(query.trim(), MAX_RECORDED_QUERY_CHARS),
            agent: agent.map(str::to_owned),
            found,
            at,
        };
        self.change(session_id, change)
    }

    /// Every turn of the live session, from its journal, oldest first (for a number the
    /// journal holds twice, a retry after a failed write, the later).
    pub fn transcript(&self, session_id: &str) -> Result<Vec<HotTurn>> {
        let slot = self.slot(session_id)?;
        let _writing = slot.writing.lock();
        let session = slot.current.read().clone();
        self.journal_of(&session)
    }

    /// Ends the session: `move_down` gets its state and whole transcript while its writes
    /// wait (a turn added meanwhile would be lost), and once it succeeds the snapshot and
    /// journal are removed. If it fails, nothing changes: the session stays live, and ending
    /// it again retries. Ending a session that is not live is an [`Error::NotFound`]; one
    /// whose journal lacks turns an [`Error::Corrupted`], before `move_down` runs.
    pub fn end_with<T>(
        &self,
        session_id: &str,
        move_down: impl FnOnce(&HotSession, Vec<HotTurn>) -> Result<T>,
    ) -> Result<T> {
        let slot = self.slot(session_id)?;
        let mut ended = slot.writing.lock();
        if *ended {
            return Err(not_live(session_id));
        }
        let session = slot.current.read().clone();
        let moved = move_down(&session, self.journal_of(&session)?)?;
        remove_file_if_present(&self.snapshot(session_id), "hot session snapshot")?;
        remove_file_if_present(&self.journal(session_id), "turn journal")?;
        crate::store::fsutil::sync_dir(&self.dir)?;
        *ended = true;
        self.sessions.write().remove(session_id);
        Ok(moved)
    }

    /// Whether the session is live here or in another process (its snapshot exists).
    pub fn is_live(&self, session_id: &str) -> bool {
        self.sessions.read().contains_key(session_id) || self.snapshot(session_id).exists()
    }

    /// Drops the session's hot state, here and on disk (its snapshot and journal), without
    /// reading or moving anything: purge. Dropping a session that is not live does nothing.
    pub fn discard(&self, session_id: &str) -> Result<()> {
        check_name("session id", session_id)?;
        let slot = self.sessions.read().get(session_id).cloned();
        let mut ended = slot.as_ref().map(|slot| slot.writing.lock());
        remove_file_if_present(&self.snapshot(session_id), "hot session snapshot")?;
        remove_file_if_present(&self.journal(session_id), "turn journal")?;
        crate::store::fsutil::sync_dir(&self.dir)?;
        if let Some(ended) = ended.as_mut() {
            **ended = true;
        }
        self.sessions.write().remove(session_id);
        Ok(())
    }

    /// Ends the session without moving anything down ([`HotTier::end_with`] doing nothing)
    /// and returns its last state.
    pub fn end(&self, session_id: &str) -> Result<HotSession> {
        self.end_with(session_id, |session, _| Ok(session.clone()))
    }

    /// The turns of `session`'s journal, 1 to its `turn_count`: lines past it are of turns
    /// whose write failed. A missing turn is an [`Error::Corrupted`] naming the journal.
    fn journal_of(&self, session: &HotSession) -> Result<Vec<HotTurn>> {
        let path = self.journal(&session.session_id);
        let (turns, _torn) = jsonl::read::<HotTurn>(&path)?;
        let mut by_number = std::collections::BTreeMap::new();
        for turn in turns.into_iter().filter(|turn| turn.number <= session.turn_count) {
            by_number.insert(turn.number, turn);
        }
        if by_number.len() as u64 != session.turn_count {
            return Err(Error::corrupted(
                &path,
                None,
                format!(
                    "the turn journal of session {} holds {} of its {} turns",
                    session.session_id,
                    by_number.len(),
                    session.turn_count
                ),
                "restore the journal from a backup, or move it away and start a new session \
                 (this one cannot end without its turns)",
            ));
        }
        Ok(by_number.into_values().collect())
    }

    /// The live session's slot.
    fn slot(&self, session_id: &str) -> Result<Arc<Slot>> {
        self.sessions.read().get(session_id).cloned().ok_or_else(|| not_live(session_id))
    }

    /// Applies `change` to a copy of the session, saves the copy, then publishes it: a
    /// failed save (or summariser) changes nothing. Only this session's writes wait.
    fn change(&self, session_id: &str, change: Change) -> Result<Arc<HotSession>> {
        let slot = self.slot(session_id)?;
        let ended = slot.writing.lock();
        // Gone from disk: another process ended it (one stat, so that it is not revived).
        if *ended || !self.snapshot(session_id).exists() {
            return Err(not_live(session_id));
        }
        let mut next = HotSession::clone(&slot.current.read());
        if !matches!(change, Change::Turn { .. }) {
            next.updated_at = next.updated_at.max(crate::now());
        }
        match change {
            Change::Turn { role, content, at } => {
                next.turn_count += 1;
                next.updated_at = at;
                let turn = HotTurn { number: next.turn_count, role, content, at };
                // Journalled first: a failed snapshot leaves a line the next turn replaces.
                jsonl::append(&self.journal(session_id), &turn, "turn")?;
                next.turns.push(turn);
                if next.turns.len() > self.context_turns {
                    let evicted: Vec<HotTurn> =
                        next.turns.drain(..next.turns.len() - self.context_turns).collect();
                    next.summary = self.roll(&next.summary, &evicted)?;
                }
            }
            Change::ActionItem(item) => next.action_items.push(item),
            Change::Resolved(index) => {
                if index >= next.action_items.len() {
                    return Err(Error::not_found(
                        format!("open action item {index} of session {session_id}"),
                        "list the session's open action items (0 is the oldest)",
                    ));
                }
                next.action_items.remove(index);
            }
            Change::Note(note) => next.notes.push(note),
            Change::Retrieval { query, agent, found, at } => {
                let sources = found.iter().map(|found| found.source.clone()).collect();
                let labels =
                    found.into_iter().map(|found| label_of(&mut next.evidence, found)).collect();
                next.retrievals.push(HotRetrieval { at, query, agent, labels, sources });
            }
        }
        self.save(&next)?;
        let next = Arc::new(next);
        *slot.current.write() = Arc::clone(&next);
        Ok(next)
    }

    /// The rolling summary once `evicted` leaves the verbatim turns.
    fn roll(&self, summary: &str, evicted: &[HotTurn]) -> Result<String> {
        match &self.summarizer {
            Some(summarizer) => {
                condense(summarizer.as_ref(), as_messages(summary, evicted), self.summary_tokens)
            }
            None => Ok(String::new()),
        }
    }

    fn snapshot(&self, session_id: &str) -> PathBuf {
        self.dir.join(format!("{session_id}.json"))
    }

    fn journal(&self, session_id: &str) -> PathBuf {
        self.dir.join(format!("{session_id}.turns.jsonl"))
    }

    fn save(&self, session: &HotSession) -> Result<()> {
        let bytes = serde_json::to_vec(session).map_err(|e| {
            Error::validation(format!("a hot session could not be written: {e}"), "report this")
        })?;
        write_atomic(&self.snapshot(&session.session_id), &bytes)
    }
}

/// The label `evidence` gives `found`'s source, added with the next label if it has none (a
/// passage delivered for a source held without one is kept).
fn label_of(evidence: &mut Vec<HotEvidence>, found: HotEvidence) -> String {
    let held = evidence.iter_mut().find(|e| e.tier == found.tier && e.source == found.source);
    if let Some(held) = held {
        if held.text.is_empty() {
            held.text = found.text;
        }
        return held.label.clone();
    }
    let labels = evidence.iter().map(|e| e.label.as_str());
    let label = next_label(labels, found.document.is_some());
    evidence.push(HotEvidence { label: label.clone(), ..found });
    label
}

/// The label after `labels` for a document's chunk (`Doc <n>`) or anything else (`M<n>`):
/// each kind is numbered on its own.
pub(crate) fn next_label<'a>(labels: impl Iterator<Item = &'a str>, document: bool) -> String {
    let prefix = if document { DOCUMENT_LABEL } else { MEMORY_LABEL };
    let taken = labels
        .filter(|label| label.strip_prefix(prefix).is_some_and(|n| n.parse::<u64>().is_ok()))
        .count();
    format!("{prefix}{}", taken + 1)
}

/// A summary and turns as the messages a summariser reads: the summary first (role
/// `summary`, which no turn may have), then each turn.
pub(crate) fn as_messages(summary: &str, turns: &[HotTurn]) -> Vec<TranscriptMessage> {
    let mut messages = Vec::with_capacity(turns.len() + 1);
    if !summary.is_empty() {
        messages.push(TranscriptMessage::new("summary", "summary", summary));
    }
    messages.extend(turns.iter().map(|turn| {
        TranscriptMessage::new(format!("turn-{}", turn.number), &turn.role, &turn.content)
    }));
    messages
}

pub(crate) fn not_live(session_id: &str) -> Error {
    Error::not_found(
        format!("live session {session_id}"),
        "start the session first (ended sessions are in the warm and cold tiers)",
    )
}
