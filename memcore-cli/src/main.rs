//! `memcore`: persistent, searchable memory for AI agents, from a shell.
//!
//! A thin command over the `memcore` library: parse the command line (`cli`), open the store
//! the global flags name (`store`), run one subcommand (`commands`; the MCP server is `mcp`),
//! print its result as text or JSON (`output`) and exit with a code that says what went wrong
//! (`exit`).

mod cli;
mod commands;
mod exit;
mod failure;
mod input;
mod mcp;
mod output;
mod store;

use std::process::ExitCode;

use failure::Failure;
use output::Output;

fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        // `--help` and `--version` arrive here too, as clap "errors" meant for stdout.
        Err(err) if !err.use_stderr() => {
            let _ = err.print();
            return ExitCode::SUCCESS;
        }
        Err(err) => {
            if cli::json_requested() {
                Output::new(true, false, false).error(&Failure::from(err));
            } else {
                let _ = err.print();
            }
            return ExitCode::from(exit::USAGE);
        }
    };
    let mut out = Output::new(cli.global.json, cli.global.quiet, cli.global.verbose);
    match commands::run(cli, &mut out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            out.error(&failure);
            ExitCode::from(exit::code(&failure))
        }
    }
}
