//! `notes merge` and `notes sync`: git-notes memories shared between clones. The merge is
//! memcore's ([`Memcore::merge_notes`]); fetching and pushing run the `git` command, so that
//! the user's remotes, credentials and transports apply.

use std::path::Path;
use std::process::Command;

use memcore::{Memcore, NamespaceMerge, NotesMergeReport};

use crate::cli::NotesCommand;
use crate::failure::Failure;
use crate::output::{Output, memories, serde_name};

/// Runs a `notes` subcommand.
pub(super) fn run(
    memcore: &Memcore,
    command: NotesCommand,
    out: &mut Output,
) -> Result<(), Failure> {
    match command {
        NotesCommand::Merge(args) => {
            check_remote(&args.remote)?;
            let report = memcore.merge_notes(&args.remote)?;
            print(&report, out)
        }
        NotesCommand::Sync(args) => {
            let root = &memcore.location().root;
            let remote = &args.remote;
            // Checked first, so that a bad name never reaches git's command line.
            check_remote(remote)?;
            let tracking = format!("+refs/notes/mem/*:refs/notes/{remote}/mem/*");
            git(root, &["fetch", "--quiet", remote, &tracking])?;
            let report = memcore.merge_notes(remote)?;
            // What the merge did is shown even when the push then fails.
            print(&report, out)?;
            if args.no_push {
                return Ok(());
            }
            git(root, &["push", "--quiet", remote, "refs/notes/mem/*:refs/notes/mem/*"]).map_err(
                |failure| {
                    Failure::usage(
                        format!("merged locally, but the push failed: {}", failure.message()),
                        "fix the remote (or pull and merge again), then `memcore notes sync` again",
                    )
                },
            )
        }
    }
}

/// Refuses a remote name that is an option or holds characters no remote name has.
fn check_remote(remote: &str) -> Result<(), Failure> {
    let fine = |c: char| c.is_alphanumeric() || "._-/".contains(c);
    if remote.is_empty() || remote.starts_with('-') || !remote.chars().all(fine) {
        return Err(Failure::usage(
            format!("{remote:?} is not a git remote name"),
            "give the name of a remote of the repository (`git remote -v` lists them)",
        ));
    }
    Ok(())
}

/// Runs `git -C root args...`, failing with git's own message.
fn git(root: &Path, args: &[&str]) -> Result<(), Failure> {
    let shown = format!("git {}", args.join(" "));
    let output = Command::new("git").arg("-C").arg(root).args(args).output().map_err(|e| {
        Failure::usage(
            format!("cannot run `{shown}`: {e}"),
            "install git and make sure it is on PATH",
        )
    })?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    Err(Failure::usage(
        format!("`{shown}` failed: {}", stderr.trim()),
        "check the remote's name and that you can reach it (`git fetch REMOTE` by hand)",
    ))
}

/// Prints what the merge did: a line per namespace, then the ids that moved or were renamed
/// and the conflicts.
fn print(report: &NotesMergeReport, out: &mut Output) -> Result<(), Failure> {
    if out.json() {
        return out.print_json(report);
    }
    if report.namespaces.is_empty() {
        return out.confirm(&format!(
            "no notes of {remote} to merge (fetch them first: git fetch {remote} \
             '+refs/notes/mem/*:refs/notes/{remote}/mem/*')",
            remote = report.remote
        ));
    }
    for merge in &report.namespaces {
        out.line(&namespace_line(merge))?;
        for moved in &merge.moved {
            out.line(&format!("  moved    {} -> {}", moved.from, moved.to))?;
        }
        for renamed in &merge.renamed {
            out.line(&format!(
                "  renamed  {}: own id {} -> {}",
                renamed.id, renamed.from, renamed.to
            ))?;
        }
        for conflict in &merge.conflicts {
            out.line(&format!(
                "  conflict {}: both changed it, kept {}",
                conflict.id, conflict.kept
            ))?;
        }
    }
    out.confirm(&format!(
        "merged the notes of {}; indexed {}",
        report.remote,
        memories(report.indexed)
    ))
}

fn namespace_line(merge: &NamespaceMerge) -> String {
    format!(
        "{}: {} ({} added, {} updated)",
        merge.namespace,
        serde_name(&merge.outcome),
        merge.added,
        merge.updated
    )
}
