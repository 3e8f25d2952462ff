//! `init`: makes the working directory a project with its own store.

use std::io::Write;
use std::path::PathBuf;

use memcore::{Backend, Config, DEFAULT_PROJECT_STORE, Memcore, PROJECT_CONFIG_NAMES};
use serde_json::json;

use crate::cli::{GlobalArgs, InitArgs};
use crate::failure::Failure;
use crate::output::{Output, serde_name};

/// `init`: opens the store `.memcore/` (a file store creates it; git notes only need the
/// repository holding it) and then writes `.memcore.yaml` naming it and the backend, so a
/// failure leaves no config pointing at nothing; refuses to replace an existing project
/// config.
pub(super) fn run(global: &GlobalArgs, args: &InitArgs, out: &mut Output) -> Result<(), Failure> {
    if global.global || global.store.is_some() {
        return Err(Failure::usage(
            "init makes a project-local store in the working directory; --global and --store \
             name other stores",
            "run `memcore init` without --global or --store, in the project's root directory",
        ));
    }
    let dir = crate::store::working_dir()?;
    if let Some(existing) = PROJECT_CONFIG_NAMES.iter().map(|n| dir.join(n)).find(|p| p.exists()) {
        return Err(memcore::Error::conflict(
            format!("{} exists: this directory is a memcore project already", existing.display()),
            "edit that file to change the project's settings, or remove it to start over",
        )
        .into());
    }
    let backend = global.backend.unwrap_or_default();
    if args.git_autocommit && backend == Backend::GitNotes {
        return Err(Failure::usage(
            "--git-autocommit commits memory files; git notes need no commits of the work tree",
            "drop --git-autocommit, or leave out --backend git-notes for a file store",
        ));
    }
    let mut config = Config {
        path: Some(PathBuf::from(DEFAULT_PROJECT_STORE)),
        backend,
        git_autocommit: args.git_autocommit,
        ..Config::default()
    };
    // A shared database holds many projects: this one's memories are under its name (the
    // same on every machine that checks the project out; edit it in the config to differ).
    if backend == Backend::Postgres
        && let Some(name) = dir.file_name().and_then(|name| name.to_str())
    {
        config.postgres.namespace = name.to_owned();
    }
    let store = dir.join(DEFAULT_PROJECT_STORE);
    Memcore::builder().path(&store).config(config.clone()).open()?;

    let config_file = dir.join(PROJECT_CONFIG_NAMES[0]);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&config_file)
        .and_then(|mut file| file.write_all(config.to_yaml().as_bytes()));
    written.map_err(|err| {
        memcore::Error::io(format!("writing the project config {}", config_file.display()), err)
    })?;

    if out.json() {
        return out.print_json(&json!({
            "config_file": config_file,
            "store": store,
            "backend": serde_name(&backend),
        }));
    }
    let place = match backend {
        Backend::File => store.display().to_string(),
        Backend::Tiered => format!("{} (warm), with hot and cold tiers", store.display()),
        Backend::GitNotes => format!("git notes of the repository holding {}", dir.display()),
        Backend::Postgres => format!(
            "namespace `{}` of the PostgreSQL database (indexes in {})",
            config.postgres.namespace,
            store.display()
        ),
    };
    out.confirm(&format!(
        "initialised a project store: {place} (settings in {})",
        config_file.display()
    ))
}
