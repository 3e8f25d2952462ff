//! The store the global flags name: `--store PATH`, `--local`, `--global`, or by detection.

use std::path::PathBuf;

use memcore::{Location, Memcore, Scope};

use crate::cli::GlobalArgs;
use crate::failure::Failure;

/// The scope `--local` / `--global` ask for (detection without either).
fn scope(global: &GlobalArgs) -> Scope {
    match (global.local, global.global) {
        (true, _) => Scope::Local,
        (_, true) => Scope::Global,
        _ => Scope::Auto,
    }
}

/// The working directory, where detection starts and `init` writes.
pub(crate) fn working_dir() -> Result<PathBuf, Failure> {
    std::env::current_dir()
        .map_err(|err| memcore::Error::io("reading the working directory", err).into())
}

/// Opens the store the flags name (creating a file store if missing), with the backend
/// `--backend` names instead of the configured one; `sync_on_open` as
/// [`memcore::MemcoreBuilder::sync_on_open`].
pub(crate) fn open(global: &GlobalArgs, sync_on_open: bool) -> Result<Memcore, Failure> {
    open_in(global, working_dir()?, sync_on_open)
}

/// Opens the store the flags name as [`open`] does, detecting it from `start` (else the
/// working directory) when no `--store` is given: a hook's event names the agent's directory.
pub(crate) fn open_from(global: &GlobalArgs, start: Option<PathBuf>) -> Result<Memcore, Failure> {
    let start = match start {
        Some(start) => start,
        None => working_dir()?,
    };
    open_in(global, start, true)
}

/// The store the flags name, detected from `start` without `--store`.
fn open_in(global: &GlobalArgs, start: PathBuf, sync_on_open: bool) -> Result<Memcore, Failure> {
    let builder = Memcore::builder().sync_on_open(sync_on_open);
    let mut builder = match &global.store {
        Some(path) => builder.path(path),
        None => builder.scope(scope(global)).start_dir(start),
    };
    if let Some(backend) = global.backend {
        builder = builder.backend(backend);
    }
    if let Some(files) = &global.host.installed_model {
        builder = builder.installed_model(files.clone());
    }
    Ok(builder.open()?)
}

/// Where the store the flags name is, and its settings, without opening or creating it.
pub(crate) fn locate(global: &GlobalArgs) -> Result<Location, Failure> {
    let location = match &global.store {
        Some(path) => Location::at(path)?,
        None => memcore::locate(scope(global), &working_dir()?)?,
    };
    Ok(location)
}
