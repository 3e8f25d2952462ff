//! [`CommandSummarizer`]: a manifest's summary mode `command`, a local program that reads the
//! text on stdin and prints its summary on stdout, run without a shell, under a deadline.

use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use wait_timeout::ChildExt;

use crate::compose::TokenCounter;
use crate::session::{Summarizer, SummaryMessage, SummaryRequest, TranscriptMessage};
use crate::{Error, Result};

/// The most a summary may be, in bytes: more is not a summary.
const MAX_OUTPUT_BYTES: u64 = 1 << 20;
/// How much of the program's standard error a failure quotes, in bytes.
const MAX_STDERR_BYTES: u64 = 2_048;

/// What to do about a summary command that failed.
const COMMAND_RECOVERY: &str = "fix the program named by summary.command in project.json (it \
     must read the text on stdin, print a shorter UTF-8 summary on stdout and exit 0 in time), \
     raise summary.timeout_ms, or set summary.mode to heuristic";

/// A summariser that runs a local program: the text to summarise (one `role: content` line
/// per message) goes to its standard input, its standard output is the summary. The program
/// runs in the project directory without a shell (its arguments are passed as they are),
/// with `MEMCORE_SUMMARY_TOKENS` set to the summary's target in tokens, and is killed (with
/// its process group) at the deadline.
///
/// It refuses to run unless trusted: a manifest may come from a cloned repository, and
/// opening a store must not run that repository's programs unasked.
#[derive(Debug)]
pub struct CommandSummarizer {
    argv: Vec<String>,
    dir: PathBuf,
    timeout: Duration,
    trusted: AtomicBool,
}

impl CommandSummarizer {
    /// Runs `argv` (the program, then its arguments) in `dir`, for at most `timeout`;
    /// `trusted` says whether this machine's user has trusted it.
    pub fn new(
        argv: Vec<String>,
        dir: impl Into<PathBuf>,
        timeout: Duration,
        trusted: bool,
    ) -> Self {
        Self { argv, dir: dir.into(), timeout, trusted: AtomicBool::new(trusted) }
    }

    /// The program and its arguments.
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// Trusts it from now on (the user trusted it while the store was open).
    pub(crate) fn set_trusted(&self) {
        self.trusted.store(true, Ordering::Release);
    }

    /// The program as it is started: a relative path with a `/` is taken from the project
    /// directory, a bare name is looked up in `PATH`.
    pub fn program(&self) -> PathBuf {
        program_path(&self.dir, self.argv.first().map_or("", String::as_str))
    }

    /// Runs the program on `input`: its output, checked to be UTF-8 text without control
    /// characters, within 1 MiB.
    pub fn run(&self, input: &str, target_tokens: usize) -> Result<String> {
        if !self.trusted.load(Ordering::Acquire) {
            return Err(Error::validation(
                format!("the summary command {:?} is not trusted on this machine", self.argv),
                "read project.json's summary.command, then trust it with `memcore project \
                 trust` (the project_trust operation), or set summary.mode to heuristic",
            ));
        }
        let name = self.argv.first().cloned().unwrap_or_default();
        let mut command = Command::new(self.program());
        command
            .args(self.argv.iter().skip(1))
            .current_dir(&self.dir)
            .env("MEMCORE_SUMMARY_TOKENS", target_tokens.to_string())
            .stdin(input_file(input)?)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().map_err(|e| {
            Error::callback(
                format!("the summary command {name:?} did not start: {e}"),
                COMMAND_RECOVERY,
            )
        })?;
        let stdout = drain(child.stdout.take(), MAX_OUTPUT_BYTES + 1);
        let stderr = drain(child.stderr.take(), MAX_STDERR_BYTES);
        let status = match child.wait_timeout(self.timeout) {
            Ok(Some(status)) => status,
            Ok(None) => {
                stop(&mut child);
                return Err(Error::callback(
                    format!(
                        "the summary command {name:?} did not finish within {} ms",
                        self.timeout.as_millis()
                    ),
                    COMMAND_RECOVERY,
                ));
            }
            Err(e) => {
                stop(&mut child);
                return Err(Error::io(format!("waiting for the summary command {name:?}"), e));
            }
        };
        // The program is gone; a child it left holding the pipes is killed with its group.
        stop(&mut child);
        let stdout = joined(stdout);
        let stderr = String::from_utf8_lossy(&joined(stderr)).trim().to_owned();
        if !status.success() {
            let said = if stderr.is_empty() { String::new() } else { format!(": {stderr}") };
            return Err(Error::callback(
                format!("the summary command {name:?} failed ({status}){said}"),
                COMMAND_RECOVERY,
            ));
        }
        check_output(&name, stdout)
    }
}

impl Summarizer for CommandSummarizer {
    fn name(&self) -> &str {
        "command"
    }

    fn summarize(
        &self,
        request: &SummaryRequest,
        _counter: &dyn TokenCounter,
    ) -> Result<Vec<SummaryMessage>> {
        let input = as_text(&request.messages);
        let summary = self.run(&input, request.target_tokens)?;
        Ok(vec![SummaryMessage::new("summary", summary)])
    }
}

/// The program `program` names, from `dir`: a relative path with a `/` joined to it, any
/// other name as it is (a bare name is looked up in `PATH`).
pub(crate) fn program_path(dir: &Path, program: &str) -> PathBuf {
    let path = Path::new(program);
    if path.is_relative() && program.contains('/') { dir.join(path) } else { path.to_path_buf() }
}

/// The messages as the program reads them: one `role: content` line each (the content
/// alone for a summary).
fn as_text(messages: &[TranscriptMessage]) -> String {
    let mut text = String::new();
    for message in messages {
        match message.role.as_str() {
            "summary" | "" => text.push_str(&message.content),
            role => {
                text.push_str(role);
                text.push_str(": ");
                text.push_str(&message.content);
            }
        }
        text.push('\n');
    }
    text
}

/// `input` as the program's standard input: an unlinked temporary file rather than a pipe,
/// so that a program that stops reading early never raises `SIGPIPE` in the host process
/// (a C program embedding memcore may not ignore it) and never blocks a writer.
fn input_file(input: &str) -> Result<Stdio> {
    let failed = |e| Error::io("writing the summary command's input to a temporary file", e);
    let mut file = tempfile::tempfile().map_err(failed)?;
    file.write_all(input.as_bytes()).map_err(failed)?;
    file.rewind().map_err(failed)?;
    Ok(Stdio::from(file))
}

/// Reads at most `limit` bytes of `pipe` on a thread, then drains the rest unread so the
/// program is never blocked on a full pipe.
fn drain(pipe: Option<impl Read + Send + 'static>, limit: u64) -> Option<JoinHandle<Vec<u8>>> {
    pipe.map(|mut pipe| {
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let _ = (&mut pipe).take(limit).read_to_end(&mut kept);
            let _ = std::io::copy(&mut pipe, &mut std::io::sink());
            kept
        })
    })
}

/// What a [`drain`] thread read.
fn joined(reader: Option<JoinHandle<Vec<u8>>>) -> Vec<u8> {
    reader.and_then(|thread| thread.join().ok()).unwrap_or_default()
}

/// Kills the child's process group (whatever it started) and reaps the child.
fn stop(child: &mut Child) {
    #[cfg(unix)]
    {
        let group = rustix::process::Pid::from_child(child);
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The program's output as a summary: UTF-8 text, at most [`MAX_OUTPUT_BYTES`], without
/// control characters but line breaks and tabs; an error naming the fault otherwise.
fn check_output(name: &str, output: Vec<u8>) -> Result<String> {
    let garbage = |what: &str| {
        Error::callback(format!("the summary command {name:?} printed {what}"), COMMAND_RECOVERY)
    };
    if output.len() as u64 > MAX_OUTPUT_BYTES {
        return Err(garbage("more than 1 MiB"));
    }
    let text = String::from_utf8(output).map_err(|_| garbage("bytes that are not UTF-8 text"))?;
    if text.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t')) {
        return Err(garbage("control characters (binary output?)"));
    }
    Ok(text.trim().to_owned())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn shell(script: &str, timeout_ms: u64) -> CommandSummarizer {
        let argv = vec!["/bin/sh".into(), "-c".into(), script.into()];
        CommandSummarizer::new(argv, "/", Duration::from_millis(timeout_ms), true)
    }

    #[test]
    fn the_program_reads_stdin_and_its_output_is_the_summary() {
        let summary = shell("tr a-z A-Z | head -c 5", 10_000).run("hello world", 3).unwrap();
        assert_eq!(summary, "HELLO");
        let target = shell("printf %s \"$MEMCORE_SUMMARY_TOKENS\"", 10_000).run("x", 42).unwrap();
        assert_eq!(target, "42");
    }

    #[test]
    fn failures_hangs_and_garbage_are_typed_errors() {
        let failed = shell("echo broken >&2; exit 3", 10_000).run("text", 3).unwrap_err();
        assert!(failed.to_string().contains("broken"), "{failed}");
        let started = std::time::Instant::now();
        let hung = shell("sleep 30 & sleep 30", 200).run("text", 3).unwrap_err();
        assert!(hung.to_string().contains("did not finish"), "{hung}");
        assert!(started.elapsed() < Duration::from_secs(20));
        let binary = shell("printf '\\377\\376'", 10_000).run("text", 3).unwrap_err();
        assert!(binary.to_string().contains("not UTF-8"), "{binary}");
        let control = shell("printf 'a\\001b'", 10_000).run("text", 3).unwrap_err();
        assert!(control.to_string().contains("control"), "{control}");
        let missing = CommandSummarizer::new(
            vec!["./no-such-program".into()],
            "/nonexistent-dir-for-memcore",
            Duration::from_secs(1),
            true,
        );
        assert!(missing.run("text", 3).is_err());
    }

    #[test]
    fn an_untrusted_command_never_runs() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("ran");
        let argv = vec!["/bin/sh".into(), "-c".into(), format!("touch {}", marker.display())];
        let untrusted = CommandSummarizer::new(argv, "/", Duration::from_secs(5), false);
        let error = untrusted.run("text", 3).unwrap_err();
        assert!(error.to_string().contains("not trusted"), "{error}");
        assert!(!marker.exists());
    }
}
