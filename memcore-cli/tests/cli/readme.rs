//! The README's worked session, run as a shell would run it when pasted.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::Sandbox;

/// The second `sh` block of the README's "Command line" section (the first installs).
fn session() -> String {
    let readme = include_str!("../../../README.md");
    let section = readme.split("\n## Command line\n").nth(1).expect("a Command line section");
    let block = section.split("```sh\n").nth(2).expect("a session block");
    block.split("```").next().unwrap().to_owned()
}

/// The `sh` block of the README's "Documents" section.
fn documents_session() -> String {
    let readme = include_str!("../../../README.md");
    let section = readme.split("\n### Documents: ").nth(1).expect("a Documents section");
    let block = section.split("```sh\n").nth(1).expect("a shell block");
    block.split("```").next().unwrap().to_owned()
}

/// `bash -eu` in the sandbox, with the built `memcore` first on the PATH.
fn shell(sandbox: &Sandbox) -> assert_cmd::Command {
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_memcore")).parent().unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin_dir.to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let mut command = sandbox.command_in("bash", sandbox.path());
    command.env("PATH", path).env("TMPDIR", sandbox.path()).arg("-eu");
    command
}

#[test]
fn the_readme_documents_session_works_in_a_shell() {
    let sandbox = Sandbox::new();
    shell(&sandbox).write_stdin(documents_session()).assert().success().stdout(
        contains("added")
            .and(contains("1. docs-deploy.md › Deploy Guide › Rollback"))
            .and(contains("rated docs-deploy.md 5 of 5"))
            .and(contains("unchanged"))
            .and(contains("docs/deploy.md")),
    );
}

#[test]
fn the_readme_session_works_in_a_shell() {
    let sandbox = Sandbox::new();
    shell(&sandbox).write_stdin(session()).assert().success().stdout(
        contains("initialised a project store")
            .and(contains("stored knowledge/gpu-acceleration-patterns (version 1)"))
            .and(contains("ID: gpu-acceleration-patterns"))
            .and(contains("updated knowledge/gpu-acceleration-patterns (version 2)"))
            .and(contains("+Prefer Metal on Apple silicon, CUDA on NVIDIA."))
            .and(contains("\"memories\"")),
    );
}

#[test]
fn the_readme_project_session_works_in_a_shell() {
    let readme = include_str!("../../../README.md");
    let section = readme.split("\n### Projects: ").nth(1).expect("a Projects section");
    let block = section.split("```sh\n").nth(1).expect("a shell block");
    let block = block.split("```").next().unwrap().to_owned();
    let sandbox = Sandbox::new();
    shell(&sandbox).write_stdin(block).assert().success().stdout(
        contains("[Doc 1] Runbook")
            .and(contains("Roll back with the previous image tag."))
            .and(contains("Sources: Doc 1"))
            .and(contains("Ops desk"))
            .and(contains("DOCUMENTS")),
    );
}
