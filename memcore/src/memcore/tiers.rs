//! The tiered store's sessions and timeline on a handle (seed 003): starting a live session,
//! adding turns, notes and action items to it (the hot tier), ending it (its transcript to
//! the cold tier, its summary, action items and notes to the warm one, an entry on the
//! timeline), and listing the timeline.

use super::Memcore;
use crate::SESSION_KEY;
use crate::concurrent::alongside;

use crate::store::tiered::MAX_RECORDED_QUERY_CHARS;
use crate::store::tiered::compaction::is_digest;
use crate::store::tiered::{as_messages, not_live};
use crate::store::{
    ArchivedKind, ArchivedRecord, HotEvidence, HotSession, HotTurn, SessionEndReport,
    SessionEndRequest, SessionNoteKind, SessionNoteRequest, SessionStartRequest,
    SessionTurnRequest, Tiers, TimelineEntry, TimelineKind, TimelineListing, TimelineRequest,
};
use crate::text::one_line;
use crate::{AGENT_KEY, Error, Memory, MemoryId, NewMemory, Result};

/// The collection a session's warm memories are written to.
pub(crate) const SESSIONS_COLLECTION: &str = "sessions";

impl Memcore {
    /// Starts a live session in the hot tier, with the project manifest's `default_agents`
    /// when it names none. A session live already, or ended already, is an
    /// [`Error::Conflict`]; an invalid session or agent id is an [`Error::Validation`]; a
    /// store that is not tiered is [`Error::Unsupported`].
    ///
    /// ```
    /// use memcore::{Backend, Memcore};
    /// use memcore::session::{SessionEndRequest, SessionStartRequest, SessionTurnRequest};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let memcore = Memcore::builder().path(dir.path()).backend(Backend::Tiered).open()?;
    /// memcore.session_start(&SessionStartRequest::new("standup"))?;
    /// memcore.session_turn(&SessionTurnRequest::new("standup", "ann", "The build is green."))?;
    /// let ended = memcore.session_end(&SessionEndRequest::new("standup"))?;
    /// assert_eq!(ended.turns, 1);
    /// assert_eq!(ended.memories[0].to_string(), "sessions/standup");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn session_start(&self, request: &SessionStartRequest) -> Result<HotSession> {
        let tiers = self.tiers_for("starting a session")?;
        let agents = match request.agents.as_slice() {
            [] => self.default_agents(),
            given => given.to_vec(),
        };
        // The warm memories its end writes are named after it.
        MemoryId::new(request.session.as_str())?;
        for agent in &agents {
            MemoryId::new(notes_id(&request.session, agent))?;
        }
        // Ids name one session for good: its transcript and warm memories keep the id.
        if self.ended_before(tiers, &request.session)? {
            return Err(Error::conflict(
                format!("session {} ended already", request.session),
                "give the new session another id, e.g. with a date or a counter",
            ));
        }
        let title = request.title.as_deref().unwrap_or_default();
        let started = tiers.hot().start_with(&request.session, title, &agents, self.now())?;
        Ok(HotSession::clone(&started))
    }

    /// Adds a turn to a live session; turns beyond the last `tiered.hot_context_turns` roll
    /// into its summary, and every turn is journalled for the cold tier. A session that is
    /// not live is an [`Error::NotFound`].
    pub fn session_turn(&self, request: &SessionTurnRequest) -> Result<HotSession> {
        let tiers = self.tiers_for("adding a turn")?;
        let session =
            tiers.hot().add_turn(&request.session, &request.role, &request.content, self.now())?;
        Ok(HotSession::clone(&session))
    }

    /// Adds a working note (the session's, or one of its agents') or an open action item to
    /// a live session.
    pub fn session_note(&self, request: &SessionNoteRequest) -> Result<HotSession> {
        let tiers = self.tiers_for("adding a note")?;
        let hot = tiers.hot();
        if request.text.trim().is_empty() {
            return Err(Error::validation("the note is empty", "give the note's text"));
        }
        // The session's end writes its notes and action items into memories, which must fit.
        if let Some(live) = hot.get(&request.session) {
            let held: usize = live.action_items.iter().map(String::len).sum::<usize>()
                + live.notes.iter().map(|n| n.text.len()).sum::<usize>();
            let room = self.config().limits.max_content_bytes / 2;
            if held + request.text.len() > room {
                return Err(Error::validation(
                    format!(
                        "session {} holds {held} bytes of notes and action items",
                        request.session
                    ),
                    format!(
                        "keep them under {room} bytes (half of limits.max_content_bytes): store longer text as a memory"
                    ),
                ));
            }
        }
        let session = match (request.kind, request.agent.as_deref()) {
            (SessionNoteKind::ActionItem, None) => {
                hot.add_action_item(&request.session, &request.text)?
            }
            (SessionNoteKind::ActionItem, Some(_)) => {
                return Err(Error::validation(
                    "an action item belongs to the session, not to one agent",
                    "leave the agent out, or add a note instead",
                ));
            }
            (SessionNoteKind::Note, agent) => {
                if let Some(agent) = agent {
                    let live = hot.get(&request.session);
                    if live.is_some_and(|live| !live.agents.iter().any(|a| a == agent)) {
                        return Err(Error::validation(
                            format!("agent {agent} does not take part in {}", request.session),
                            "name one of the agents the session started with",
                        ));
                    }
                }
                hot.add_note(&request.session, agent, &request.text)?
            }
        };
        Ok(HotSession::clone(&session))
    }

    /// The live session's hot state: a read from memory.
    pub fn session_live(&self, session: &str) -> Result<HotSession> {
        let tiers = self.tiers_for("reading a live session")?;
        let live = tiers.hot().get(session).ok_or_else(|| not_live(session))?;
        Ok(HotSession::clone(&live))
    }

    /// Ends a live session (seed 003's "hot to warm"):
    ///
    /// 1. its whole transcript is archived in the cold tier (`turn/<session>/<n>`);
    /// 2. its summary (the rolling summary and last turns, summarised to
    ///    `tiered.hot_summary_tokens` by the handle's summariser, else the extractive one),
    ///    open action items and session notes become the warm memory `sessions/<session>`,
    ///    and each agent's notes `sessions/<session>:<agent>`;
    /// 3. its timeline entry is appended (unless the timeline holds it);
    /// 4. its hot state is cleared.
    ///
    /// The session's writes wait meanwhile. Each step is idempotent, so an end that failed
    /// part-way is resumed by ending again (nothing lost, no turn archived twice; the warm
    /// memories are written again, as new versions, if they were written before the
    /// failure). The cold and warm tiers are written at once, on two threads. Ending a session
    /// that is not live (ended already) is an [`Error::NotFound`].
    pub fn session_end(&self, request: &SessionEndRequest) -> Result<SessionEndReport> {
        let tiers = self.tiers_for("ending a session")?;
        let bad_topic = |t: &String| t.trim().is_empty() || t.chars().any(char::is_control);
        if let Some(bad) = request.topics.iter().find(|t| bad_topic(t)) {
            return Err(Error::validation(
                format!("invalid topic {bad:?}"),
                "give topics as short labels without line breaks (they become tags)",
            ));
        }
        let now = self.now();
        tiers.hot().end_with(&request.session, |session, turns| {
            let id = session.session_id.as_str();
            // The two tiers' writes (each a durable append and an index commit) are
            // independent: the transcript is archived on a second thread while this one
            // summarises and writes the warm memories.
            let (archived, stored) = alongside(
                || tiers.cold().archive(turn_records(session, &turns)),
                || {
                    let messages = as_messages(&session.summary, &session.turns);
                    let budget = tiers.settings().hot_summary_tokens;
                    let summary = self.summarize_automatically(messages, budget)?;
                    self.put_many(warm_entries(session, &summary, &request.topics))
                },
                || {
                    Error::storage(
                        format!("archiving the turns of session {id} panicked"),
                        None,
                        "end the session again (nothing is lost); report this as a bug",
                    )
                },
            );
            let archived = archived?.archived;
            let stored = stored?;
            let entry = timeline_entry(session, request, now);
            let entry = tiers.timeline().append_once(entry, |e| {
                e.kind == TimelineKind::Session && e.session_id.as_deref() == Some(id)
            })?;
            Ok(SessionEndReport {
                session: id.to_owned(),
                turns: session.turn_count,
                archived,
                memories: stored.iter().map(crate::Memory::reference).collect(),
                timeline: entry,
            })
        })
    }

    /// The timeline entries `request` admits, oldest first.
    pub fn timeline(&self, request: &TimelineRequest) -> Result<TimelineListing> {
        let (entries, unreadable) =
            self.tiers_for("reading the timeline")?.timeline().entries(request)?;
        Ok(TimelineListing { entries, unreadable })
    }

    /// Whether a session `id` ended before: its summary is in the warm tier, or its entry on
    /// the timeline.
    fn ended_before(&self, tiers: &Tiers, id: &str) -> Result<bool> {
        match self.get(format!("{SESSIONS_COLLECTION}/{id}").as_str()) {
            Ok(_) => return Ok(true),
            Err(Error::NotFound { .. }) => {}
            Err(e) => return Err(e),
        }
        let (entries, _) = tiers.timeline().entries(&TimelineRequest::default())?;
        Ok(entries
            .iter()
            .any(|e| e.kind == TimelineKind::Session && e.session_id.as_deref() == Some(id)))
    }

    /// The hot and cold tiers and the timeline, if the store is tiered: for reads of a live
    /// session without a copy ([`crate::HotTier::get`]) and searches of the cold archive.
    pub fn tiers(&self) -> Option<&Tiers> {
        self.indexed.store().tiers()
    }

    /// The store's tiers, or [`Error::Unsupported`] naming `operation`.
    pub(super) fn tiers_for(&self, operation: &str) -> Result<&Tiers> {
        let store = self.indexed.store();
        store.tiers().ok_or_else(|| {
            Error::unsupported(
                operation,
                store.backend(),
                "live sessions and the timeline need a tiered store: open it with backend \
                 `tiered` (`backend: tiered` in its settings, or --backend tiered)",
            )
        })
    }
}

/// Whether `memory` is one a session's end wrote: `sessions/<id>` or `sessions/<id>:<agent>`
/// (a digest of the sessions collection is not).
pub(super) fn is_session_memory(memory: &Memory, session: &str) -> bool {
    let id = memory.id.as_str();
    memory.collection.as_str() == SESSIONS_COLLECTION
        && !is_digest(memory)
        && (id == session || id.strip_prefix(session).is_some_and(|rest| rest.starts_with(':')))
}

/// The cold-tier records of a session's turns (`turn/<session>/<n>`), each with its agent
/// when one of the session's agents spoke it.
fn turn_records(session: &HotSession, turns: &[HotTurn]) -> Vec<ArchivedRecord> {
    let id = session.session_id.as_str();
    turns
        .iter()
        .map(|turn| {
            let text = format!("{}: {}", turn.role, turn.content);
            let record =
                ArchivedRecord::new(turn_id(id, turn.number), ArchivedKind::Turn, turn.at, text)
                    .session(id);
            if session.agents.contains(&turn.role) { record.agent(&turn.role) } else { record }
        })
        .collect()
}

/// The cold tier's id of a session's turn.
fn turn_id(session: &str, number: u64) -> String {
    format!("turn/{session}/{number}")
}

/// The warm memory id of an agent's notes in a session: `<session>:<agent>` (`:` is in no
/// session id, so no session's summary id is another's notes id).
fn notes_id(session: &str, agent: &str) -> String {
    format!("{session}:{agent}")
}

/// The warm memories a session's end writes: its summary (with open action items and the
/// session's notes), then one memory of notes per agent that has some.
fn warm_entries(session: &HotSession, summary: &str, topics: &[String]) -> Vec<NewMemory> {
    let id = &session.session_id;
    let title =
        if session.title.is_empty() { format!("Session {id}") } else { session.title.clone() };
    let plural = if session.turn_count == 1 { "" } else { "s" };
    let mut content = format!("{} turn{plural}.\n", session.turn_count);
    if !summary.trim().is_empty() {
        content.push('\n');
        content.push_str(summary.trim());
        content.push('\n');
    }
    push_list(&mut content, "Open action items", session.action_items.iter());
    push_list(
        &mut content,
        "Notes",
        session.notes.iter().filter(|n| n.agent.is_none()).map(|n| &n.text),
    );
    push_provenance(&mut content, session, None);
    let tags = std::iter::once("session".to_owned()).chain(topics.iter().cloned());
    let mut entries = vec![
        NewMemory::new(content)
            .id(id.as_str())
            .collection(SESSIONS_COLLECTION)
            .title(title.as_str())
            .kind("session")
            .context(format!("session {id}"))
            .tags(tags)
            .meta(SESSION_KEY, id.as_str())
            .created_at(session.started_at),
    ];
    for agent in &session.agents {
        let notes = session.notes_for(agent).filter(|n| n.agent.is_some()).map(|n| &n.text);
        let mut content = String::new();
        push_list(&mut content, &format!("Notes of {agent}"), notes);
        push_provenance(&mut content, session, Some(agent));
        if content.is_empty() {
            continue;
        }
        entries.push(
            NewMemory::new(content)
                .id(notes_id(id, agent))
                .collection(SESSIONS_COLLECTION)
                .title(format!("{agent} in {title}"))
                .kind("agent-notes")
                .context(format!("session {id}"))
                .tags(["session-notes"])
                .created_by(agent.as_str())
                .meta(SESSION_KEY, id.as_str())
                .meta(AGENT_KEY, agent.as_str())
                .created_at(session.started_at),
        );
    }
    entries
}

/// The most sources, or queries, a session's end lists in one memory (the rest counted).
const MAX_LISTED: usize = 50;
/// The longest source title listed, in characters.
const LISTED_TITLE_CHARS: usize = 120;

/// Appends the session's provenance (seed 003's auditable retrieval) for `agent`, or for the
/// whole session (`None`): the sources recalls delivered that it owns (shared ones for the
/// session; an agent's own memories only ever in its notes), the queries made in its view,
/// and a last line `Sources: Doc 1, M2` of their labels. At most [`MAX_LISTED`] of each.
fn push_provenance(content: &mut String, session: &HotSession, agent: Option<&str>) {
    // The session's own: what no agent of the session owns (shared evidence, and an
    // outsider's memory that a recall in everyone's view delivered).
    let listed_here = |owner: Option<&str>| match agent {
        Some(agent) => owner == Some(agent),
        None => owner.is_none_or(|owner| !session.agents.iter().any(|a| a == owner)),
    };
    let listed: Vec<&HotEvidence> =
        session.evidence.iter().filter(|e| listed_here(e.agent.as_deref())).collect();
    let sources = listed
        .iter()
        .map(|e| format!("[{}] {} ({})", e.label, plain(&e.title, LISTED_TITLE_CHARS), e.source));
    push_capped(content, "Sources", sources);
    let queries = session.retrievals.iter().filter(|r| r.agent.as_deref() == agent).map(|r| {
        let mut labels: Vec<&str> = r.labels.iter().take(MAX_LISTED).map(String::as_str).collect();
        let more = r.labels.len().saturating_sub(MAX_LISTED);
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        if labels.is_empty() {
            labels.push("nothing");
        }
        format!("{:?} -> {}{more}", plain(&r.query, MAX_RECORDED_QUERY_CHARS), labels.join(", "))
    });
    push_capped(content, "Retrieval history", queries);
    let labels: Vec<&str> = listed.iter().map(|e| e.label.as_str()).collect();
    if !labels.is_empty() {
        let more = labels.len().saturating_sub(MAX_LISTED);
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        let listed = labels[..labels.len().min(MAX_LISTED)].join(", ");
        content.push_str(&format!("\nSources: {listed}{more}\n"));
    }
}

/// `text` on one line, at most `max_chars`, as plain text: a `[[link]]` in a title or a
/// query listed in a summary would add a link edge.
fn plain(text: &str, max_chars: usize) -> String {
    one_line(text, max_chars).replace("[[", "[").replace("]]", "]")
}

/// [`push_list`] of the first [`MAX_LISTED`] `items`, then how many more there were.
fn push_capped(content: &mut String, heading: &str, items: impl Iterator<Item = String>) {
    let mut items: Vec<String> = items.collect();
    let more = items.len().saturating_sub(MAX_LISTED);
    if more > 0 {
        items.truncate(MAX_LISTED);
        items.push(format!("... and {more} more"));
    }
    push_list(content, heading, items.iter());
}

/// Appends a markdown section `heading` listing `items`, if there are any.
fn push_list<'a>(content: &mut String, heading: &str, items: impl Iterator<Item = &'a String>) {
    let mut items = items.peekable();
    if items.peek().is_none() {
        return;
    }
    if !content.is_empty() {
        content.push('\n');
    }
    content.push_str(&format!("## {heading}\n\n"));
    for item in items {
        content.push_str(&format!("- {}\n", item.trim()));
    }
}

/// The timeline entry of a session ending at `now`.
fn timeline_entry(
    session: &HotSession,
    request: &SessionEndRequest,
    now: crate::Timestamp,
) -> TimelineEntry {
    let title =
        if session.title.is_empty() { session.session_id.clone() } else { session.title.clone() };
    let seconds = (now - session.started_at).num_seconds().max(0);
    let mut entry = TimelineEntry::session(&session.session_id, title, now)
        .agents(session.agents.iter().cloned())
        .topics(request.topics.iter().cloned())
        .duration(u64::try_from(seconds).unwrap_or_default());
    if let Some(consensus) = &request.consensus {
        entry = entry.consensus(consensus.as_str());
    }
    entry
}
