//! [`CommandSummarizer`]: a manifest's summary mode `command`, a local program that reads the
//! text on stdin and prints its summary on stdout, run without a shell, under a deadline.

use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use super::TrustedCommands;
use crate::compose::TokenCounter;
use crate::session::{Summarizer, SummaryMessage, SummaryRequest, TranscriptMessage};
use crate::{Error, Result};

/// The most a summary may be, in bytes: more is not a summary.
const MAX_OUTPUT_BYTES: u64 = 1 << 20;
/// How much of the program's standard error a failure quotes, in bytes.
const MAX_STDERR_BYTES: u64 = 2_048;
/// The longest pause between two looks at whether the program exited.
const MAX_POLL: Duration = Duration::from_millis(20);

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
/// It refuses to run unless trusted, checked before every run: a manifest may come from a
/// cloned repository, and opening a store must not run that repository's programs unasked,
/// nor a script a pull changed since it was trusted.
#[derive(Debug)]
pub struct CommandSummarizer {
    argv: Vec<String>,
    dir: PathBuf,
    timeout: Duration,
    trust: Option<TrustedCommands>,
}

impl CommandSummarizer {
    /// Runs `argv` (the program, then its arguments) in the project directory `dir`, for at
    /// most `timeout`, when `trust` (this machine's list) trusts it.
    pub fn new(
        argv: Vec<String>,
        dir: impl Into<PathBuf>,
        timeout: Duration,
        trust: Option<TrustedCommands>,
    ) -> Self {
        Self { argv, dir: dir.into(), timeout, trust }
    }

    /// The program and its arguments.
    pub fn argv(&self) -> &[String] {
        &self.argv
    }

    /// Whether this machine's user trusts the command as it is now.
    pub fn is_trusted(&self) -> Result<bool> {
        match &self.trust {
            Some(trust) => trust.is_trusted(&self.dir, &self.argv),
            None => Ok(false),
        }
    }

    /// Runs the program on `input`: its output, checked to be UTF-8 text without control
    /// characters, within 1 MiB.
    pub fn run(&self, input: &str, target_tokens: usize) -> Result<String> {
        if !self.is_trusted()? {
            return Err(Error::validation(
                format!("the summary command {:?} is not trusted on this machine", self.argv),
                "read project.json's summary.command (and the script it runs), then trust it \
                 with `memcore project trust` (the project_trust operation), or set \
                 summary.mode to heuristic",
            ));
        }
        let name = self.argv.first().cloned().unwrap_or_default();
        let program = resolve_program(&self.dir, &name).ok_or_else(|| {
            Error::callback(
                format!("the summary command {name:?} names no program found"),
                COMMAND_RECOVERY,
            )
        })?;
        let mut command = Command::new(&program);
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
        let deadline = Instant::now() + self.timeout;
        let (sender, outputs) = channel();
        drain(child.stdout.take(), MAX_OUTPUT_BYTES + 1, 0, sender.clone());
        drain(child.stderr.take(), MAX_STDERR_BYTES, 1, sender);
        let exited = wait_until(&mut child, deadline);
        // The group is killed while its leader is unreaped, so its id is still theirs:
        // whatever the program left running (and holding the pipes) goes with it.
        stop_group(&child);
        let status = match exited {
            Ok(true) => child.wait(),
            Ok(false) | Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Error::callback(
                    format!(
                        "the summary command {name:?} did not finish within {} ms",
                        self.timeout.as_millis()
                    ),
                    COMMAND_RECOVERY,
                ));
            }
        }
        .map_err(|e| Error::io(format!("waiting for the summary command {name:?}"), e))?;
        let (stdout, stderr) = collect(&outputs, deadline).ok_or_else(|| {
            Error::callback(
                format!("the summary command {name:?} left a process holding its output open"),
                COMMAND_RECOVERY,
            )
        })?;
        let stderr = String::from_utf8_lossy(&stderr).trim().to_owned();
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

/// The program file `program` names, canonical: a path with a `/` taken from the project
/// directory `dir`, a bare name looked up in the absolute directories of `PATH` (never a
/// relative one, which would find the project's files); `None` when there is none.
pub(crate) fn resolve_program(dir: &Path, program: &str) -> Option<PathBuf> {
    if program.is_empty() {
        return None;
    }
    let found = if program.contains('/') {
        Some(dir.join(program))
    } else {
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .filter(|entry| entry.is_absolute())
            .map(|entry| entry.join(program))
            .find(|candidate| candidate.is_file())
    };
    found?.canonicalize().ok().filter(|path| path.is_file())
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
/// program is never blocked on a full pipe; sends them, as output `which`, once the pipe
/// closes.
fn drain(
    pipe: Option<impl Read + Send + 'static>,
    limit: u64,
    which: usize,
    sender: std::sync::mpsc::Sender<(usize, Vec<u8>)>,
) {
    let Some(mut pipe) = pipe else {
        let _ = sender.send((which, Vec::new()));
        return;
    };
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let _ = (&mut pipe).take(limit).read_to_end(&mut kept);
        let _ = std::io::copy(&mut pipe, &mut std::io::sink());
        let _ = sender.send((which, kept));
    });
}

/// Both outputs (stdout, stderr) once their pipes closed, waiting until `deadline` (and a
/// moment more, for a program that exited just in time); `None` if one stays open.
fn collect(outputs: &Receiver<(usize, Vec<u8>)>, deadline: Instant) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut got: [Option<Vec<u8>>; 2] = [None, None];
    let last = deadline.max(Instant::now()) + Duration::from_millis(500);
    while got.iter().any(Option::is_none) {
        match outputs.recv_timeout(last.saturating_duration_since(Instant::now())) {
            Ok((which, bytes)) => got[which] = Some(bytes),
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return None,
        }
    }
    let [stdout, stderr] = got;
    Some((stdout.unwrap_or_default(), stderr.unwrap_or_default()))
}

/// Waits until the child exits (left unreaped) or `deadline`: whether it exited.
fn wait_until(child: &mut Child, deadline: Instant) -> std::io::Result<bool> {
    let mut pause = Duration::from_millis(1);
    loop {
        if exited(child)? {
            return Ok(true);
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(false);
        }
        std::thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(MAX_POLL);
    }
}

/// Whether the child has exited, without reaping it (its process group id stays its own).
#[cfg(unix)]
fn exited(child: &Child) -> std::io::Result<bool> {
    use rustix::process::{Pid, WaitId, WaitIdOptions, waitid};
    let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
    Ok(waitid(WaitId::Pid(Pid::from_child(child)), options)?.is_some())
}

/// Whether the child has exited (reaping it: there are no process groups to keep).
#[cfg(not(unix))]
fn exited(child: &mut Child) -> std::io::Result<bool> {
    Ok(child.try_wait()?.is_some())
}

/// Kills the child's process group (whatever it started); its leader is not reaped yet.
fn stop_group(child: &Child) {
    #[cfg(unix)]
    {
        let group = rustix::process::Pid::from_child(child);
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = child;
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

    /// A trusted `sh -c script`, its trust list in a directory kept for the test run.
    fn shell(script: &str, timeout_ms: u64) -> CommandSummarizer {
        let argv: Vec<String> = vec!["/bin/sh".into(), "-c".into(), script.into()];
        let home = tempfile::tempdir().expect("a temp dir").keep();
        let trust = TrustedCommands::at(home.join("trusted-commands.json"));
        trust.trust(Path::new("/"), &argv, crate::now()).expect("trusted");
        CommandSummarizer::new(argv, "/", Duration::from_millis(timeout_ms), Some(trust))
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
        // A process that left the group (after a moment, so that it has) and keeps stdout.
        let leaver = "(setsid sleep 30 &) ; sleep 0.3; echo done";
        let escaped = shell(leaver, 2_000).run("text", 3).unwrap_err();
        assert!(escaped.to_string().contains("holding its output"), "{escaped}");
        assert!(resolve_program(Path::new("/"), "./no-such-program").is_none());
        assert_eq!(resolve_program(Path::new("/"), "sh"), Path::new("/bin/sh").canonicalize().ok());
    }

    #[test]
    fn an_untrusted_command_never_runs() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("ran");
        let argv = vec!["/bin/sh".into(), "-c".into(), format!("touch {}", marker.display())];
        let untrusted = CommandSummarizer::new(argv, "/", Duration::from_secs(5), None);
        let error = untrusted.run("text", 3).unwrap_err();
        assert!(error.to_string().contains("not trusted"), "{error}");
        assert!(!marker.exists());
    }
}
