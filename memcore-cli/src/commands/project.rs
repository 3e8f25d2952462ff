//! `project init | info | trust`.

use memcore::Memcore;
use memcore::project::{ProjectInfo, ProjectInitRequest, SummaryMode};

use crate::cli::{ProjectCommand, ProjectInitArgs};
use crate::failure::Failure;
use crate::output::Output;

/// Runs a `project` subcommand.
pub(super) fn run(
    memcore: &Memcore,
    command: ProjectCommand,
    out: &mut Output,
) -> Result<(), Failure> {
    let info = match command {
        ProjectCommand::Init(args) => memcore.project_init(&init_request(args)?)?,
        ProjectCommand::Info => memcore.project_info()?,
        ProjectCommand::Trust => memcore.project_trust()?,
    };
    if out.json() {
        return out.print_json(&info);
    }
    show(&info, out)
}

/// The request of `project init`'s arguments.
fn init_request(args: ProjectInitArgs) -> Result<ProjectInitRequest, Failure> {
    let mode = match args.summary_mode.as_deref() {
        None => None,
        Some(mode) => Some(serde_json::from_value::<SummaryMode>(mode.into()).map_err(|_| {
            memcore::Error::validation(
                format!("unknown summary mode {mode:?}"),
                "use heuristic, command (with the program after --) or none",
            )
        })?),
    };
    let mut request = ProjectInitRequest::new();
    request.project_id = args.project_id;
    request.display_name = args.title;
    request.description = args.description;
    request.default_agents = args.agents;
    request.hot_context_turns = args.hot_context_turns;
    request.warm_window_days = args.warm_window_days;
    request.archive_after_days = args.archive_after_days;
    request.summary_mode = mode;
    request.summary_command = args.summary_command;
    request.summary_timeout_ms = args.summary_timeout_ms;
    Ok(request)
}

/// The project as fields, then its newest sessions.
fn show(info: &ProjectInfo, out: &mut Output) -> Result<(), Failure> {
    let policy = &info.policy;
    let mut fields = vec![("PROJECT DIR", info.project_dir.clone())];
    match &info.manifest {
        Some(manifest) => {
            fields.push(("MANIFEST", info.manifest_path.clone()));
            let optional = [
                ("ID", manifest.project_id.clone()),
                ("TITLE", manifest.display_name.clone()),
                ("DESCRIPTION", manifest.description.clone()),
            ];
            fields.extend(optional.into_iter().filter_map(|(key, value)| Some((key, value?))));
            let other: Vec<&str> = manifest.other.keys().map(String::as_str).collect();
            if !other.is_empty() {
                fields.push(("OTHER KEYS", other.join(", ")));
            }
        }
        None => fields.push(("MANIFEST", format!("none ({} would hold it)", info.manifest_path))),
    }
    fields.push(("BACKEND", policy.backend.clone()));
    fields.push(("HOT CONTEXT TURNS", policy.hot_context_turns.to_string()));
    fields.push(("WARM WINDOW DAYS", policy.warm_window_days.to_string()));
    fields.push(("ARCHIVE AFTER DAYS", policy.archive_after_days.to_string()));
    fields.push(("SUMMARY", policy.summary_mode.as_str().to_owned()));
    if !policy.summary_command.is_empty() {
        let trusted = match policy.command_trusted {
            Some(true) => "trusted".to_owned(),
            Some(false) => "NOT trusted: read it, then run `memcore project trust`".to_owned(),
            None => format!("unused: summary mode {}", policy.summary_mode.as_str()),
        };
        fields.push(("COMMAND", format!("{:?} ({trusted})", policy.summary_command)));
    }
    fields.push(("AGENTS", info.agents.join(", ")));
    fields.push(("DOCUMENTS", info.documents.to_string()));
    out.fields(&fields)?;
    let rows: Vec<Vec<String>> = info
        .recent_sessions
        .iter()
        .map(|entry| {
            vec![
                entry.session_id.clone().unwrap_or_default(),
                entry.at.format("%Y-%m-%d %H:%M").to_string(),
                entry.title.clone(),
            ]
        })
        .collect();
    if !rows.is_empty() {
        out.table(&["SESSION", "ENDED", "TITLE"], &rows)?;
    }
    for note in &info.notes {
        out.note(note);
    }
    Ok(())
}
