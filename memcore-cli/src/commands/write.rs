//! `put`, `update`, `delete` and `restore`: the subcommands that change memories.

use std::path::Path;

use memcore::{Memcore, Memory, MemoryUpdate, NewMemory, PutMode};
use serde_json::json;

use crate::cli::{PutArgs, RestoreArgs, UpdateArgs};
use crate::failure::Failure;
use crate::input;
use crate::output::Output;

/// Prints a memory just written: its JSON rendering, or `<done> collection/id (version N)`.
pub(super) fn report(out: &mut Output, done: &str, memory: &Memory) -> Result<(), Failure> {
    if out.json() {
        return out.print_json(&memory.to_json());
    }
    let reference = memory.reference();
    out.confirm(&format!("{done} {reference} (version {})", memory.version))
}

/// The store's content limit, in bytes.
pub(super) fn content_limit(memcore: &Memcore) -> u64 {
    memcore.config().limits.max_content_bytes as u64
}

/// `put FILE...`: stores one memory per file in one batch, upserting unless
/// `--create-only`, at `--commit` when given; options override each file's frontmatter.
/// With `--json`, one FILE prints the memory and several `{"memories": [...]}`.
pub(super) fn put(memcore: &Memcore, args: PutArgs, out: &mut Output) -> Result<(), Failure> {
    if args.files.len() > 1 && args.id.is_some() {
        return Err(Failure::usage(
            "--id names one memory, but several FILEs were given",
            "leave out --id (each memory's id then comes from its frontmatter or title), or \
             store the files one at a time",
        ));
    }
    if args.files.iter().filter(|file| input::is_stdin(file)).count() > 1 {
        return Err(Failure::usage(
            "`-` (standard input) was given more than once",
            "give `-` once; standard input holds one memory",
        ));
    }
    let limit = content_limit(memcore) + input::FRONTMATTER_ALLOWANCE;
    let memories = args
        .files
        .iter()
        .map(|file| new_memory(file, &args, limit))
        .collect::<Result<Vec<_>, _>>()?;
    let mode = if args.create_only { PutMode::CreateOnly } else { PutMode::Upsert };
    let stored = match &args.commit {
        Some(rev) => memcore.put_many_at(memories, rev, mode)?,
        None => memcore.put_many_with(memories, mode)?,
    };
    if out.json() && args.files.len() > 1 {
        let memories: Vec<_> = stored.iter().map(Memory::to_json).collect();
        return out.print_json(&json!({ "memories": memories }));
    }
    stored.iter().try_for_each(|memory| report(out, "stored", memory))
}

/// The memory in `file` (`-` for standard input) with the options of `args` over its
/// frontmatter; a frontmatter error names the file.
fn new_memory(file: &Path, args: &PutArgs, limit: u64) -> Result<NewMemory, Failure> {
    let text = input::read_text(file, limit, "a memory file may have")?;
    let mut memory = NewMemory::from_markdown(&text).map_err(|err| {
        memcore::Error::validation(format!("{}: {err}", input::name(file)), err.recovery())
    })?;
    memory.id = args.id.clone().or(memory.id);
    memory.collection = args.collection.clone().or(memory.collection);
    memory.title = args.title.clone().or(memory.title);
    memory.category = args.category.clone().or(memory.category);
    memory.context = args.context.clone().or(memory.context);
    memory.summary = args.summary.clone().or(memory.summary);
    memory.created_by = args.created_by.clone().or(memory.created_by);
    if let Some(tags) = &args.tags {
        memory.tags.clone_from(tags);
    }
    memory.metadata.extend(args.metadata.clone().unwrap_or_default());
    Ok(memory)
}

/// `update REF`: new content, tags or metadata; the old version goes to history.
pub(super) fn update(memcore: &Memcore, args: UpdateArgs, out: &mut Output) -> Result<(), Failure> {
    let mut change = MemoryUpdate::new();
    if let Some(path) = &args.content {
        change = change.content(input::read_text(
            path,
            content_limit(memcore),
            "a memory's content may have",
        )?);
    }
    if let Some(tags) = args.tags {
        change = change.tags(tags).merge_tags(args.merge_tags);
    }
    change.metadata = args.metadata.unwrap_or_default();
    let updated = memcore.update(&args.reference, change)?;
    report(out, "updated", &updated)
}

/// `delete REF`: moves the memory to the trash.
pub(super) fn delete(memcore: &Memcore, reference: &str, out: &mut Output) -> Result<(), Failure> {
    let entry = memcore.delete(reference)?;
    if out.json() {
        return out.print_json(&entry);
    }
    let reference = &entry.reference;
    out.confirm(&format!(
        "deleted {reference} (to the trash; `memcore restore {reference}` undoes it)"
    ))
}

/// `restore REF`: brings the memory back from the trash; with `--version REV` writes that
/// version back as a new one.
pub(super) fn restore(
    memcore: &Memcore,
    args: &RestoreArgs,
    out: &mut Output,
) -> Result<(), Failure> {
    let restored = match &args.version {
        Some(rev) => memcore.restore_version(&args.reference, rev)?,
        None => memcore.restore(&args.reference)?,
    };
    report(out, "restored", &restored)
}
