//! `agent set | profile | remember`.

use std::path::Path;

use memcore::Memcore;
use memcore::agent::{AgentProfile, AgentRememberRequest, AgentRequest};

use crate::cli::AgentCommand;
use crate::failure::Failure;
use crate::input;
use crate::output::Output;

/// Runs an `agent` subcommand.
pub(super) fn run(
    memcore: &Memcore,
    command: AgentCommand,
    out: &mut Output,
) -> Result<(), Failure> {
    match command {
        AgentCommand::Set(args) => {
            let mut profile = AgentProfile::new(args.agent);
            profile.name = args.name;
            profile.persona = args.persona;
            profile.style = args.style;
            profile.recent_limit = args.recent_limit;
            profile.max_memories = args.max_memories;
            if let Some(fields) = args.fields {
                profile.fields = serde_json::from_str(&fields).map_err(|e| {
                    memcore::Error::validation(
                        format!("--fields is not a JSON object: {e}"),
                        r#"give an object, e.g. --fields '{"voice": "warm"}'"#,
                    )
                })?;
            }
            let stored = memcore.agent_set(&profile)?;
            if out.json() {
                return out.print_json(&stored);
            }
            out.confirm(&format!("agent {} set", stored.agent))
        }
        AgentCommand::Profile(args) => {
            let mut request = AgentRequest::new(args.agent);
            request.limit = args.limit;
            let view = memcore.agent_profile(&request)?;
            if out.json() {
                return out.print_json(&view);
            }
            let profile = &view.profile;
            let mut fields = vec![("AGENT", profile.agent.clone())];
            let optional = [
                ("NAME", profile.name.clone()),
                ("PERSONA", profile.persona.clone()),
                ("STYLE", profile.style.clone()),
                ("MAX MEMORIES", profile.max_memories.map(|n| n.to_string())),
            ];
            fields.extend(optional.into_iter().filter_map(|(key, value)| Some((key, value?))));
            for (key, value) in &profile.fields {
                fields.push(("FIELD", format!("{key}: {value}")));
            }
            fields.push(("MEMORIES", view.total.to_string()));
            out.fields(&fields)?;
            let rows: Vec<Vec<String>> = view
                .memories
                .iter()
                .map(|m| {
                    vec![
                        m.reference.to_string(),
                        m.updated_at.format("%Y-%m-%d %H:%M").to_string(),
                        m.title.clone(),
                    ]
                })
                .collect();
            if !rows.is_empty() {
                out.table(&["REF", "CHANGED", "TITLE"], &rows)?;
            }
            Ok(())
        }
        AgentCommand::Remember(args) => {
            let text = if args.text == "-" {
                let limit = memcore.config().limits.max_content_bytes as u64;
                input::read_text(Path::new("-"), limit, "a memory may have")?
            } else {
                args.text
            };
            let mut request = AgentRememberRequest::new(args.agent, text);
            request.title = args.title;
            request.collection = args.collection;
            request.tags = args.tags;
            let memory = memcore.agent_remember(&request)?;
            if out.json() {
                return out.print_json(&memcore::api::MemoryRecord::of(memory));
            }
            out.confirm(&format!("stored {} for agent {}", memory.reference(), request.agent))
        }
    }
}
