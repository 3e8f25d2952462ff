//! `hydrate`: a memory with its git context (seed 002's progressive hydration).

use memcore::{Format, Hydrated, Memcore};

use super::read::TIME_FORMAT;
use crate::cli::HydrateArgs;
use crate::failure::Failure;
use crate::output::Output;

/// `hydrate REF [--level LEVEL]`: the memory in the context format, then (full and files)
/// the commit its note is attached to, then (files) the files that commit changed. `-v` adds
/// the whole note; `--json` prints memcore's [`Hydrated`] as it is, file contents included.
pub(super) fn run(memcore: &Memcore, args: &HydrateArgs, out: &mut Output) -> Result<(), Failure> {
    let hydrated = memcore.hydrate(&args.reference, args.level)?;
    if out.json() {
        return out.print_json(&hydrated);
    }
    out.line(hydrated.memory.render(Format::Context).trim_end_matches('\n'))?;
    if let Some(commit) = &hydrated.commit {
        out.line("")?;
        out.fields(&[
            ("commit", commit.sha.clone()),
            ("author", format!("{} <{}>", commit.author, commit.email)),
            ("date", commit.time.format(TIME_FORMAT).to_string()),
            ("message", commit.message.clone()),
        ])?;
    }
    if let (Some(note), true) = (&hydrated.note, out.verbose()) {
        out.line("")?;
        out.line(note.trim_end_matches('\n'))?;
    }
    files(&hydrated, out)
}

/// The changed files of a [`memcore::HydrationLevel::Files`] hydration, with their sizes.
fn files(hydrated: &Hydrated, out: &mut Output) -> Result<(), Failure> {
    if hydrated.level < memcore::HydrationLevel::Files {
        return Ok(());
    }
    if hydrated.files.is_empty() {
        out.note("the commit changed no files");
        return Ok(());
    }
    out.line("")?;
    let rows: Vec<Vec<String>> =
        hydrated.files.iter().map(|f| vec![f.path.clone(), f.size.to_string()]).collect();
    out.table(&["FILE", "BYTES"], &rows)?;
    if hydrated.files_omitted > 0 {
        out.note(&format!(
            "{} more changed files left out (at most {} are shown)",
            hydrated.files_omitted,
            memcore::MAX_HYDRATED_FILES
        ));
    }
    Ok(())
}
