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

/// ONNX Runtime 1.29 and later (the PyPI build memcore loads) sends Microsoft telemetry from
/// Linux and macOS and keeps a device id under `~/.cache/Microsoft`, unless this variable is
/// set before it loads; the library's own switch (`with_telemetry(false)`) comes too late to
/// stop the first event. memcore promises no network, so the command sets it unless the user
/// did.
const ORT_TELEMETRY_OPT_OUT: &str = "ORT_DISABLE_TELEMETRY";

/// Sets [`ORT_TELEMETRY_OPT_OUT`] unless the environment already has it.
#[allow(unsafe_code)]
fn opt_out_of_runtime_telemetry() {
    if std::env::var_os(ORT_TELEMETRY_OPT_OUT).is_none() {
        // SAFETY: the first thing `main` does, while the process has a single thread, so no
        // other thread can read or write the environment at the same time.
        unsafe { std::env::set_var(ORT_TELEMETRY_OPT_OUT, "1") };
    }
}

fn main() -> ExitCode {
    opt_out_of_runtime_telemetry();
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
