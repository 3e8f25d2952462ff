//! The subcommands, one module per concern; each calls memcore and prints the result.

mod agents;
mod api;
mod capture;
mod compose;
mod decay;
mod docs;
mod history;
mod hook;
mod hydrate;
mod index;
mod init;
mod links;
mod model;
mod notes;
mod project;
mod read;
mod search;
mod stats;
mod tiers;
mod write;

use memcore::Memcore;

use crate::cli::{Cli, Command, GlobalArgs, ModelCommand};
use crate::failure::Failure;
use crate::output::Output;
use crate::store;

/// Runs the subcommand `cli` names.
pub(crate) fn run(cli: Cli, out: &mut Output) -> Result<(), Failure> {
    let global = &cli.global;
    match cli.command {
        Command::Put(args) => write::put(&open(global, out)?, args, out),
        Command::Get(args) => read::get(&open(global, out)?, &args, out),
        Command::Update(args) => write::update(&open(global, out)?, args, out),
        Command::Delete(args) => write::delete(&open(global, out)?, &args.reference, out),
        Command::Restore(args) => write::restore(&open(global, out)?, &args, out),
        Command::List(args) => read::list(&open(global, out)?, &args, out),
        Command::Collections => read::collections(&open(global, out)?, out),
        Command::Search(args) => search::run(&open(global, out)?, args, out),
        Command::Versions(args) => history::versions(&open(global, out)?, &args.reference, out),
        Command::Diff(args) => history::diff(&open(global, out)?, &args, out),
        Command::Hydrate(args) => hydrate::run(&open(global, out)?, &args, out),
        // Opened without the open-time sync, so that the report says what the sync did.
        Command::Sync => index::sync(&announce(store::open(global, false)?, out), out),
        Command::Notes(command) => notes::run(&open(global, out)?, command, out),
        Command::Reindex => index::reindex(&open(global, out)?, out),
        Command::Verify => index::verify(&open(global, out)?, out),
        Command::Repair => index::repair(&open(global, out)?, out),
        Command::Stats => stats::run(&open(global, out)?, out),
        Command::Status(args) => decay::status(&open(global, out)?, &args, out),
        Command::Lifecycle(command) => decay::lifecycle(&open(global, out)?, command, out),
        Command::Keepit(command) => decay::keepit(&open(global, out)?, command, out),
        Command::Links(args) => links::links(&open(global, out)?, &args.reference, out),
        Command::Backlinks(args) => links::backlinks(&open(global, out)?, &args.target, out),
        Command::Append(args) => links::append(&open(global, out)?, &args, out),
        Command::Merge(args) => links::merge(&open(global, out)?, args, out),
        Command::Capture(args) => capture::run(&open(global, out)?, args, out),
        Command::Compose(args) => compose::compose(&open(global, out)?, args, out),
        Command::Session(command) => compose::session(&open(global, out)?, command, out),
        Command::Timeline(args) => tiers::timeline(&open(global, out)?, args, out),
        Command::Compact(args) => tiers::compact(&open(global, out)?, args, out),
        Command::Retain(args) => tiers::retain(&open(global, out)?, args, out),
        Command::Purge(args) => tiers::purge(&open(global, out)?, args, out),
        Command::Agent(command) => agents::run(&open(global, out)?, command, out),
        Command::Project(command) => project::run(&open(global, out)?, command, out),
        Command::Docs(command) => docs::run(&open(global, out)?, command, out),
        Command::Hook(command) => hook::command(global, command, out),
        Command::Serve(args) => crate::serve::serve(open(global, out)?, &args, out),
        Command::Mcp(args) => {
            let tools = crate::mcp::Catalogue::select(&args.tools)?;
            crate::mcp::serve(open(global, out)?, tools)
        }
        Command::Init(args) => init::run(global, &args, out),
        Command::Model(args) => match args.command {
            None => model::run(global, out),
            Some(ModelCommand::Fetch(args)) => model::fetch(global, &args, out),
        },
        Command::Call(args) => {
            let request = api::request(&args)?;
            api::call(&open(global, out)?, &args.operation, request, out)
        }
        Command::Operations(args) => api::operations(&args, out),
    }
}

/// Tells what index work memcore did on the way: a repair of damage always (a warning), the
/// rest with `-v` (notes).
fn tell_maintenance(work: &[memcore::Maintenance], out: &mut Output) {
    for work in work {
        if work.needs_attention() {
            out.warn(&work.to_string());
        } else if out.verbose() {
            out.note(&work.to_string());
        }
    }
}

/// Opens the store (syncing a git-notes store with what changed behind memcore's back); with
/// `-v` says which one.
fn open(global: &GlobalArgs, out: &mut Output) -> Result<Memcore, Failure> {
    Ok(announce(store::open(global, true)?, out))
}

/// Says what opening had to repair (an index rebuilt: always, as a warning); with `-v`, which
/// store `memcore` is, where its settings come from and any other work opening did.
fn announce(memcore: Memcore, out: &mut Output) -> Memcore {
    tell_maintenance(memcore.opened_with(), out);
    if out.verbose() {
        let location = memcore.location();
        let settings = match &location.config_file {
            Some(file) => format!("settings from {}", file.display()),
            None => "default settings".to_owned(),
        };
        out.note(&format!("store: {} ({settings})", location.root.display()));
    }
    memcore
}
