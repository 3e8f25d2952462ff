//! Everything `memcore` prints: results on stdout (text, aligned tables or JSON), notes,
//! warnings and errors on stderr, the progress bar, and colour only on a terminal.

use std::io::{IsTerminal, Write};

use anstream::{AutoStream, ColorChoice};
use anstyle::{AnsiColor, Style};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use serde_json::json;

use crate::exit;
use crate::failure::Failure;

const HEADER: Style = Style::new().bold();
const ERROR: Style = AnsiColor::Red.on_default().bold();
const WARNING: Style = AnsiColor::Yellow.on_default().bold();
const HINT: Style = AnsiColor::Cyan.on_default();
const ADDED: Style = AnsiColor::Green.on_default();
const REMOVED: Style = AnsiColor::Red.on_default();

/// Whether colour is allowed on `stream`: it is a terminal, and neither `NO_COLOR`, nor
/// `CLICOLOR=0`, nor `TERM=dumb` says otherwise (`CLICOLOR_FORCE` cannot colour a pipe).
fn color_choice<S: anstream::stream::RawStream>(stream: &S) -> ColorChoice {
    let terminal = anstream::stream::IsTerminal::is_terminal(stream);
    if terminal && AutoStream::choice(stream) != ColorChoice::Never {
        ColorChoice::Always
    } else {
        ColorChoice::Never
    }
}

/// Whether clap may colour help and usage errors: stdout and stderr both allow colour.
pub(crate) fn color_wanted() -> bool {
    color_choice(&std::io::stdout()) == ColorChoice::Always
        && color_choice(&std::io::stderr()) == ColorChoice::Always
}

/// The name `value` (a memcore enum) serialises to: how memcore spells it in settings and
/// JSON (`auto`, `git-notes`).
pub(crate) fn serde_name<T: Serialize>(value: &T) -> String {
    serde_json::to_value(value).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

/// `1 memory`, `2 memories`.
pub(crate) fn memories(n: usize) -> String {
    if n == 1 { "1 memory".to_owned() } else { format!("{n} memories") }
}

/// Where and how a command prints.
pub(crate) struct Output {
    json: bool,
    quiet: bool,
    verbose: bool,
    stdout: AutoStream<std::io::Stdout>,
    stderr: AutoStream<std::io::Stderr>,
}

impl Output {
    /// Output in JSON or as text, with notes and warnings unless `quiet`, more if `verbose`.
    pub(crate) fn new(json: bool, quiet: bool, verbose: bool) -> Self {
        let stdout = std::io::stdout();
        let stderr = std::io::stderr();
        Self {
            json,
            quiet,
            verbose,
            stdout: AutoStream::new(stdout, color_choice(&std::io::stdout())),
            stderr: AutoStream::new(stderr, color_choice(&std::io::stderr())),
        }
    }

    /// Whether results are printed as JSON.
    pub(crate) fn json(&self) -> bool {
        self.json
    }

    /// Whether to print details (`-v`).
    pub(crate) fn verbose(&self) -> bool {
        self.verbose
    }

    /// Writes `text` and a newline to stdout. A closed pipe (`memcore list | head`) is not an
    /// error; any other write failure is.
    pub(crate) fn line(&mut self, text: &str) -> Result<(), Failure> {
        match writeln!(self.stdout, "{text}") {
            Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
                Err(memcore::Error::io("writing to standard output", err).into())
            }
            _ => Ok(()),
        }
    }

    /// Says on stdout what a command did (`stored knowledge/gpu (version 1)`); hidden by `-q`.
    pub(crate) fn confirm(&mut self, text: &str) -> Result<(), Failure> {
        if self.quiet { Ok(()) } else { self.line(text) }
    }

    /// Prints `value` as pretty JSON on stdout.
    pub(crate) fn print_json(&mut self, value: &impl Serialize) -> Result<(), Failure> {
        // memcore's records are plain data and always serialise.
        let text = serde_json::to_string_pretty(value).unwrap_or_default();
        self.line(&text)
    }

    /// Prints `key value` lines, the values aligned; the further lines of a value are indented
    /// to its first.
    pub(crate) fn fields(&mut self, fields: &[(&str, String)]) -> Result<(), Failure> {
        const WIDTH: usize = 12;
        for (key, value) in fields {
            let mut lines = value.lines();
            let first = lines.next().unwrap_or_default();
            self.line(format!("{key:<WIDTH$}{first}").trim_end())?;
            for line in lines {
                self.line(format!("{:WIDTH$}{line}", "").trim_end())?;
            }
        }
        Ok(())
    }

    /// Prints a unified diff, added lines green and removed lines red.
    pub(crate) fn diff(&mut self, diff: &str) -> Result<(), Failure> {
        for line in diff.lines() {
            let style = match line.as_bytes() {
                [b'+', b'+', b'+', ..] | [b'-', b'-', b'-', ..] => HEADER,
                [b'+', ..] => ADDED,
                [b'-', ..] => REMOVED,
                _ => Style::new(),
            };
            self.line(&format!("{style}{line}{style:#}"))?;
        }
        Ok(())
    }

    /// Prints a table: `headers` in bold, columns aligned to their widest cell.
    pub(crate) fn table(&mut self, headers: &[&str], rows: &[Vec<String>]) -> Result<(), Failure> {
        let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
        for row in rows {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(cell.chars().count());
            }
        }
        let last = widths.len().saturating_sub(1);
        let render = |cells: &mut dyn Iterator<Item = &str>, style: Style| {
            let padded: Vec<String> = cells
                .zip(&widths)
                .enumerate()
                .map(|(i, (cell, &width))| {
                    let width = if i == last { 0 } else { width };
                    format!("{style}{cell:<width$}{style:#}")
                })
                .collect();
            padded.join("  ").trim_end().to_owned()
        };
        let header = render(&mut headers.iter().copied(), HEADER);
        self.line(&header)?;
        for row in rows {
            let line = render(&mut row.iter().map(String::as_str), Style::new());
            self.line(&line)?;
        }
        Ok(())
    }

    /// A note for people on stderr (not a result); hidden by `-q`.
    pub(crate) fn note(&mut self, text: &str) {
        if !self.quiet {
            let _ = writeln!(self.stderr, "{text}");
        }
    }

    /// A warning on stderr; hidden by `-q`.
    pub(crate) fn warn(&mut self, text: &str) {
        if !self.quiet {
            let _ = writeln!(self.stderr, "{WARNING}warning:{WARNING:#} {text}");
        }
    }

    /// Reports `failure` on stderr: `error: [CATEGORY] message` and `hint: recovery`, or with
    /// `--json` one object `{"error": {"category", "message", "recovery", "exit_code"}}`.
    pub(crate) fn error(&mut self, failure: &Failure) {
        let _ = if self.json {
            let value = json!({
                "error": {
                    "category": failure.category(),
                    "message": failure.message(),
                    "recovery": failure.recovery(),
                    "exit_code": exit::code(failure),
                }
            });
            writeln!(self.stderr, "{value}")
        } else {
            writeln!(
                self.stderr,
                "{ERROR}error:{ERROR:#} [{}] {}\n{HINT}hint:{HINT:#} {}",
                failure.category(),
                failure.message(),
                failure.recovery()
            )
        };
    }

    /// A progress bar on stderr, drawn only on a terminal and never with `--json` or `-q`.
    pub(crate) fn progress_bar(&self) -> ProgressBar {
        if self.json || self.quiet || !std::io::stderr().is_terminal() {
            return ProgressBar::hidden();
        }
        let style = ProgressStyle::with_template("{bar:40} {pos}/{len} memories indexed")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(style)
    }
}
