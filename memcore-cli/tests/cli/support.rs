//! A sandbox per test: a temp directory holding the store, the global store
//! (`$MEMCORE_HOME`) and an empty model directory, and helpers to run the real binary in it.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::str::contains;
use serde_json::Value;

/// A memory to store: a title heading and a line of text.
pub(crate) const GPU: &str = "# GPU Acceleration Patterns\n\nPrefer Metal on Apple silicon.\n";

/// The keys of a JSON object, sorted.
pub(crate) fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    keys
}

/// One test's temp directory and the `memcore` commands run in it.
pub(crate) struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    /// A fresh sandbox with an empty `nomodel/` directory (so search falls back to text).
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("nomodel")).unwrap();
        Self { dir }
    }

    /// The sandbox directory, the working directory of every command.
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The store `--store` points at.
    pub(crate) fn store(&self) -> PathBuf {
        self.path().join("store")
    }

    /// `program` in the sandbox's environment: global store inside it, no embedding model,
    /// no colour forcing, no `HOOK_*` settings, working directory `cwd`.
    pub(crate) fn command_in(&self, program: &str, cwd: &Path) -> Command {
        Command::from_std(self.process_in(program, cwd))
    }

    /// [`Sandbox::command_in`] as a plain process, for a test that drives its pipes itself.
    pub(crate) fn process_in(&self, program: &str, cwd: &Path) -> std::process::Command {
        let mut cmd = std::process::Command::new(program);
        cmd.current_dir(cwd)
            .env("MEMCORE_HOME", self.path().join("home"))
            .env("MEMCORE_MODEL_DIR", self.path().join("nomodel"))
            .env_remove("ORT_DYLIB_PATH")
            .env_remove("CLICOLOR_FORCE");
        // The hooks' settings of whoever runs the tests do not apply to them.
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("HOOK_") {
                cmd.env_remove(name);
            }
        }
        cmd
    }

    /// `memcore` in the sandbox, working directory `cwd`.
    pub(crate) fn bare_in(&self, cwd: &Path) -> Command {
        self.command_in(env!("CARGO_BIN_EXE_memcore"), cwd)
    }

    /// `memcore --store <sandbox>/store ARGS...`.
    pub(crate) fn run(&self, args: &[&str]) -> Command {
        let mut cmd = self.bare_in(self.path());
        cmd.arg("--store").arg(self.store()).args(args);
        cmd
    }

    /// [`Sandbox::run`] as a plain process, for a test that drives its pipes itself.
    pub(crate) fn process(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = self.process_in(env!("CARGO_BIN_EXE_memcore"), self.path());
        cmd.arg("--store").arg(self.store()).args(args);
        cmd
    }

    /// Runs `ARGS... --json` on the store, expects success and returns the parsed stdout.
    pub(crate) fn json(&self, args: &[&str]) -> Value {
        json_of(&mut self.run(args))
    }

    /// Runs `memcore ARGS... --json` in `cwd`, expects exit `code` and returns the JSON error
    /// it printed (checked against the schema).
    pub(crate) fn error_in(&self, cwd: &Path, args: &[&str], code: i32) -> Value {
        let output = self.bare_in(cwd).args(args).arg("--json").output().unwrap();
        assert_eq!(output.status.code(), Some(code), "{args:?}");
        json_error(&output)
    }

    /// Stores `content` read from stdin with extra `put` options; returns its JSON.
    pub(crate) fn put(&self, content: &str, options: &[&str]) -> Value {
        let mut args = vec!["put", "-"];
        args.extend_from_slice(options);
        let output = self
            .run(&args)
            .arg("--json")
            .write_stdin(content)
            .assert()
            .success()
            .get_output()
            .clone();
        serde_json::from_slice(&output.stdout).unwrap()
    }

    /// Runs `args` (`stdin` on standard input), expects exit `code` with an error in text
    /// and as JSON, and checks that no file changed; returns the JSON error.
    pub(crate) fn rejected(&self, args: &[&str], stdin: &str, code: i32) -> Value {
        let before = self.snapshot();
        self.run(args).write_stdin(stdin).assert().code(code).stderr(contains("error"));
        let output = self.run(args).arg("--json").write_stdin(stdin).output().unwrap();
        assert_eq!(output.status.code(), Some(code), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}: nothing on stdout");
        let error = json_error(&output);
        assert!(self.snapshot() == before, "{args:?} changed files");
        error
    }

    /// Every file below the sandbox, with its contents, except the writers' lock.
    pub(crate) fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let mut files = Vec::new();
        let mut stack = vec![self.path().to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if !path.ends_with(".memcore/lock") {
                    let contents = std::fs::read(&path).unwrap();
                    files.push((path, contents));
                }
            }
        }
        files.sort();
        files
    }

    /// [`Sandbox::snapshot`] without the store's derived indexes, which a write the store
    /// refused (a conflict, an unsupported operation) re-indexes from the unchanged store.
    pub(crate) fn memory_snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        let index = self.store().join(".memcore/index");
        self.snapshot().into_iter().filter(|(path, _)| !path.starts_with(&index)).collect()
    }
}

/// Runs `cmd --json`, expects success and returns the parsed stdout.
pub(crate) fn json_of(cmd: &mut Command) -> Value {
    let output = cmd.arg("--json").assert().success().get_output().clone();
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The JSON error object a failed `--json` command printed on stderr, checked against the
/// documented schema and the exit code.
pub(crate) fn json_error(output: &std::process::Output) -> Value {
    let value: Value = serde_json::from_slice(&output.stderr).unwrap();
    let error = &value["error"];
    for key in ["category", "message", "recovery"] {
        assert!(error[key].as_str().is_some_and(|s| !s.is_empty()), "{key} in {value}");
    }
    assert_eq!(error["exit_code"], output.status.code().unwrap(), "{value}");
    error.clone()
}

/// The memory ids of a `search --json` result's hits, sorted.
pub(crate) fn hit_ids(results: &Value) -> Vec<String> {
    let mut ids: Vec<String> = results["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["memory"]["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}
