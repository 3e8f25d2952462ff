//! The `memcore` command as a library: [`run`] parses a command line and runs it, so that the
//! binary and other programs that embed the command (the Python package's `python -m
//! memcore`) are one implementation.
//!
//! Modules, one job each: parse the command line (`cli`), open the store the global flags
//! name (`store`), run one subcommand (`commands`; the MCP server is `mcp`), print its result
//! as text or JSON (`output`) and exit with a code that says what went wrong (`exit`).

mod cli;
mod commands;
mod exit;
mod failure;
mod input;
mod mcp;
mod output;
mod serve;
mod store;

use std::ffi::OsString;
use std::path::PathBuf;

use failure::Failure;
use memcore::ModelFiles;
use output::Output;

/// What the program running the command brings with it.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Host {
    /// Model files installed with the program, used when no model directory is configured
    /// or set and the default cache lacks them
    /// ([`memcore::MemcoreBuilder::installed_model`]).
    pub installed_model: Option<ModelFiles>,
    /// The Python interpreter `model fetch` runs unless `$MEMCORE_PYTHON` names one; `None`:
    /// `python3`.
    pub python: Option<PathBuf>,
    /// Called once the command line is parsed, before the command starts a thread, with
    /// whether it runs a server that lives as long as its client (`serve`, `ui`, `mcp`):
    /// the binary tunes glibc's allocator by it.
    pub before_command: Option<fn(serves: bool)>,
}

impl Host {
    /// A host with nothing installed beside it: what the `memcore` binary is.
    pub fn new() -> Self {
        Self::default()
    }

    /// The model files installed with the program.
    #[must_use]
    pub fn installed_model(mut self, files: ModelFiles) -> Self {
        self.installed_model = Some(files);
        self
    }

    /// The Python interpreter `model fetch` runs.
    #[must_use]
    pub fn python(mut self, python: impl Into<PathBuf>) -> Self {
        self.python = Some(python.into());
        self
    }

    /// What to call once the command line is parsed (see [`Host::before_command`]).
    #[must_use]
    pub fn before_command(mut self, hook: fn(serves: bool)) -> Self {
        self.before_command = Some(hook);
        self
    }
}

/// Whether `command` runs a server that lives as long as its client (`serve`, `ui`, `mcp`)
/// rather than one command.
fn serves(command: &cli::Command) -> bool {
    matches!(command, cli::Command::Serve(_) | cli::Command::Mcp(_))
}

/// Runs the command line `args` (the program name first, as [`std::env::args_os`] gives
/// it) and returns the exit status: 0 on success, else the code the command's `--help`
/// documents for the failure. Output goes to the process's stdout and stderr.
///
/// ONNX Runtime sends telemetry unless `ORT_DISABLE_TELEMETRY` is set before it loads: the
/// caller sets it (the binary does, first thing).
pub fn run(args: impl IntoIterator<Item = OsString>, host: Host) -> u8 {
    let args: Vec<OsString> = args.into_iter().collect();
    let mut cli = match cli::parse(&args) {
        Ok(cli) => cli,
        // `--help` and `--version` arrive here too, as clap "errors" meant for stdout.
        Err(err) if !err.use_stderr() => {
            let _ = err.print();
            return 0;
        }
        Err(err) => {
            if cli::json_requested(&args) {
                Output::new(true, false, false).error(&Failure::from(err));
            } else {
                let _ = err.print();
            }
            return exit::USAGE;
        }
    };
    if let Some(hook) = host.before_command {
        hook(serves(&cli.command));
    }
    cli.global.host = host;
    let mut out = Output::new(cli.global.json, cli.global.quiet, cli.global.verbose);
    match commands::run(cli, &mut out) {
        Ok(()) => 0,
        Err(failure) => {
            out.error(&failure);
            exit::code(&failure)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    /// Whether the command line `line` runs a server.
    fn serves(line: &str) -> bool {
        let args: Vec<OsString> = line.split_whitespace().map(OsString::from).collect();
        crate::cli::parse(&args).is_ok_and(|cli| super::serves(&cli.command))
    }

    #[test]
    fn only_the_servers_serve() {
        for line in ["memcore serve", "memcore ui --addr 127.0.0.1:0", "memcore --store s mcp"] {
            assert!(serves(line), "{line}");
        }
        for line in ["memcore put a.md b.md", "memcore search x", "memcore reindex", "memcore"] {
            assert!(!serves(line), "{line}");
        }
    }
}
