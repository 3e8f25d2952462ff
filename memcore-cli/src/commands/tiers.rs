//! `session start|turn|note|live|end|retrieve`, `timeline`, `compact`, `retain` and `purge`: live
//! sessions, compaction, pinning and purging of a tiered store.

use std::path::Path;

use memcore::session::{
    SessionEndRequest, SessionNoteRequest, SessionStartRequest, SessionTurnRequest,
};
use memcore::{
    CompactRequest, HotSession, Memcore, PurgeRequest, RetainRequest, RetrieveRequest,
    TimelineRequest,
};

use crate::cli::{
    CompactArgs, PurgeArgs, RetainArgs, SessionEndArgs, SessionNoteArgs, SessionRetrieveArgs,
    SessionStartArgs, SessionTurnArgs, TimelineArgs,
};
use crate::failure::Failure;
use crate::input;
use crate::output::{Output, serde_name};

/// `session start ID`.
pub(super) fn start(
    memcore: &Memcore,
    args: SessionStartArgs,
    out: &mut Output,
) -> Result<(), Failure> {
    let mut request = SessionStartRequest::new(args.session);
    request.title = args.title;
    request.agents = args.agents;
    let session = memcore.session_start(&request)?;
    if out.json() {
        return out.print_json(&session);
    }
    out.confirm(&format!("session {} started", session.session_id))
}

/// `session turn ID ROLE TEXT`.
pub(super) fn turn(
    memcore: &Memcore,
    args: SessionTurnArgs,
    out: &mut Output,
) -> Result<(), Failure> {
    let text = if args.text == "-" {
        let limit = memcore.config().limits.max_content_bytes as u64;
        let text = input::read_text(Path::new("-"), limit, "a turn may have")?;
        text.strip_suffix('\n').map(str::to_owned).unwrap_or(text)
    } else {
        args.text
    };
    let session = memcore.session_turn(&SessionTurnRequest::new(args.session, args.role, text))?;
    if out.json() {
        return out.print_json(&session);
    }
    out.confirm(&format!("session {}: turn {}", session.session_id, session.turn_count))
}

/// `session note ID TEXT`.
pub(super) fn note(
    memcore: &Memcore,
    args: SessionNoteArgs,
    out: &mut Output,
) -> Result<(), Failure> {
    let mut request = if args.action_item {
        SessionNoteRequest::action_item(args.session, args.text)
    } else {
        SessionNoteRequest::note(args.session, args.text)
    };
    request.agent = args.agent;
    let session = memcore.session_note(&request)?;
    if out.json() {
        return out.print_json(&session);
    }
    out.confirm(&format!(
        "session {}: {} open action items, {} notes",
        session.session_id,
        session.action_items.len(),
        session.notes.len()
    ))
}

/// `session live ID`.
pub(super) fn live(memcore: &Memcore, session: &str, out: &mut Output) -> Result<(), Failure> {
    let session = memcore.session_live(session)?;
    if out.json() {
        return out.print_json(&session);
    }
    print_live(&session, out)
}

/// A live session as text: header, summary, last turns, action items, notes, the sources
/// recalls delivered.
fn print_live(session: &HotSession, out: &mut Output) -> Result<(), Failure> {
    let title =
        if session.title.is_empty() { String::new() } else { format!(" ({})", session.title) };
    out.line(&format!(
        "session {}{title}: {} turns since {}",
        session.session_id,
        session.turn_count,
        session.started_at.to_rfc3339()
    ))?;
    if !session.summary.is_empty() {
        out.line(&format!("summary:\n{}", session.summary))?;
    }
    for turn in &session.turns {
        out.line(&format!("[{}] {}: {}", turn.number, turn.role, turn.content))?;
    }
    for item in &session.action_items {
        out.line(&format!("todo: {item}"))?;
    }
    for note in &session.notes {
        let owner = note.agent.as_deref().unwrap_or("session");
        out.line(&format!("note ({owner}): {}", note.text))?;
    }
    for evidence in &session.evidence {
        out.line(&format!(
            "source [{}]: {} ({})",
            evidence.label, evidence.title, evidence.source
        ))?;
    }
    Ok(())
}

/// `session end ID`.
pub(super) fn end(
    memcore: &Memcore,
    args: SessionEndArgs,
    out: &mut Output,
) -> Result<(), Failure> {
    let mut request = SessionEndRequest::new(args.session);
    request.topics = args.topics;
    request.consensus = args.consensus;
    let report = memcore.session_end(&request)?;
    if out.json() {
        return out.print_json(&report);
    }
    let memories: Vec<String> = report.memories.iter().map(ToString::to_string).collect();
    out.confirm(&format!(
        "session {} ended: {} turns in the cold tier, {} written",
        report.session,
        report.turns,
        memories.join(", ")
    ))
}

/// `session retrieve ID [KEYWORDS] [--output FILE]`: the passages appended, as the prompt
/// context they make.
pub(super) fn retrieve(
    memcore: &Memcore,
    args: SessionRetrieveArgs,
    out: &mut Output,
) -> Result<(), Failure> {
    let mut request = match (args.keywords, args.output) {
        (Some(keywords), _) => RetrieveRequest::keywords(args.session, keywords),
        (None, Some(path)) => {
            let limit = memcore.config().limits.max_content_bytes as u64;
            let output = input::read_text(&path, limit, "an agent's output may have")?;
            RetrieveRequest::output(args.session, output)
        }
        (None, None) => unreachable!("clap requires KEYWORDS or --output"),
    };
    request.agent = args.agent;
    request = request.limit(args.limit).mode(args.mode);
    let retrieval = memcore.retrieve(&request)?;
    for warning in &retrieval.warnings {
        out.warn(warning);
    }
    if out.json() {
        return out.print_json(&retrieval);
    }
    if retrieval.passages.is_empty() {
        let asked =
            if retrieval.queries.is_empty() { "no retrieval asked for" } else { "nothing found" };
        out.note(asked);
        return Ok(());
    }
    out.line(&retrieval.context)
}

/// `timeline`.
pub(super) fn timeline(
    memcore: &Memcore,
    args: TimelineArgs,
    out: &mut Output,
) -> Result<(), Failure> {
    let mut request = TimelineRequest::default();
    request.agent = args.agent;
    request.since = args.since;
    request.until = args.until;
    let listing = memcore.timeline(&request)?;
    if listing.unreadable > 0 {
        out.warn(&format!("{} timeline lines could not be read", listing.unreadable));
    }
    if out.json() {
        return out.print_json(&listing);
    }
    let rows: Vec<Vec<String>> = listing
        .entries
        .iter()
        .map(|entry| {
            vec![
                entry.at.to_rfc3339(),
                serde_name(&entry.kind),
                entry.session_id.clone().unwrap_or_default(),
                entry.title.clone(),
                entry.agents.join(","),
                entry.duration.map(|d| format!("{d}s")).unwrap_or_default(),
                entry.consensus.clone().unwrap_or_default(),
            ]
        })
        .collect();
    out.table(&["AT", "KIND", "SESSION", "TITLE", "AGENTS", "DURATION", "CONSENSUS"], &rows)
}

/// `compact [--dry-run] [--now TIME]`: one line per digest, then the totals.
pub(super) fn compact(
    memcore: &Memcore,
    args: CompactArgs,
    out: &mut Output,
) -> Result<(), Failure> {
    let mut request = CompactRequest::new();
    request.dry_run = args.dry_run;
    request.now = args.now;
    let report = memcore.compact(&request)?;
    if out.json() {
        return out.print_json(&report);
    }
    let rows: Vec<Vec<String>> = report
        .digests
        .iter()
        .map(|step| {
            vec![
                step.digest.to_string(),
                step.originals.len().to_string(),
                step.folded.to_string(),
                if step.extends { "extends" } else { "new" }.to_owned(),
            ]
        })
        .collect();
    if !rows.is_empty() {
        out.table(&["DIGEST", "ORIGINALS", "FOLDED", "DIGEST IS"], &rows)?;
    }
    let due: usize = report.digests.iter().map(|step| step.originals.len()).sum();
    out.confirm(&if report.dry_run {
        format!(
            "would demote {due} memories changed before {} ({} pinned stay)",
            report.cutoff.to_rfc3339(),
            report.pinned
        )
    } else {
        format!(
            "demoted {} memories to the cold tier ({} pinned stay)",
            report.demoted, report.pinned
        )
    })
}

/// `retain REF` or `retain --session ID`.
pub(super) fn retain(memcore: &Memcore, args: RetainArgs, out: &mut Output) -> Result<(), Failure> {
    let request = match (args.reference, args.session) {
        (Some(reference), _) => RetainRequest::memory(reference.parse()?),
        (None, session) => RetainRequest::session(session.unwrap_or_default()),
    };
    let report = memcore.retain(&request)?;
    if out.json() {
        return out.print_json(&report);
    }
    let pinned: Vec<String> = report.pinned.iter().map(ToString::to_string).collect();
    out.confirm(&format!("pinned {}", pinned.join(", ")))
}

/// `purge REF --reason R` or `purge --session ID --reason R`.
pub(super) fn purge(memcore: &Memcore, args: PurgeArgs, out: &mut Output) -> Result<(), Failure> {
    let mut request = match (args.reference, args.session) {
        (Some(reference), _) => PurgeRequest::memory(reference.parse()?, args.reason),
        (None, session) => PurgeRequest::session(session.unwrap_or_default(), args.reason),
    };
    request.by = args.by;
    request.force = args.force;
    let record = memcore.purge(&request)?;
    if out.json() {
        return out.print_json(&record);
    }
    out.confirm(&format!(
        "purged {}: {} warm memories, {} copies, {} cold records, {} digests rebuilt, {} \
         timeline entries (recorded in the audit log)",
        record.target,
        record.warm.len(),
        record.copies,
        record.cold,
        record.digests.len(),
        record.timeline
    ))
}
