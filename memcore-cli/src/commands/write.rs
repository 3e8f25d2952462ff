//! `put`, `update`, `delete` and `restore`: the subcommands that change memories.

use memcore::{Memcore, Memory, MemoryUpdate, NewMemory};

use crate::cli::{PutArgs, RestoreArgs, UpdateArgs};
use crate::failure::Failure;
use crate::input;
use crate::output::{Output, memory_ref};

/// Prints a memory just written: its JSON rendering, or `<done> collection/id (version N)`.
fn report(out: &mut Output, done: &str, memory: &Memory) -> Result<(), Failure> {
    if out.json() {
        return out.print_json(&memory.to_json());
    }
    let reference = memory_ref(&memory.collection, &memory.id);
    out.confirm(&format!("{done} {reference} (version {})", memory.version))
}

/// `put FILE|-`: stores a memory; options override the file's frontmatter.
pub(super) fn put(memcore: &Memcore, args: PutArgs, out: &mut Output) -> Result<(), Failure> {
    let mut memory = NewMemory::from_markdown(&input::read_text(&args.file)?)?;
    memory.id = args.id.or(memory.id);
    memory.collection = args.collection.or(memory.collection);
    memory.title = args.title.or(memory.title);
    memory.category = args.category.or(memory.category);
    memory.context = args.context.or(memory.context);
    memory.summary = args.summary.or(memory.summary);
    memory.created_by = args.created_by.or(memory.created_by);
    if let Some(tags) = args.tags {
        memory.tags = tags;
    }
    memory.metadata.extend(args.metadata.unwrap_or_default());
    let stored = memcore.put(memory)?;
    report(out, "stored", &stored)
}

/// `update REF`: new content, tags or metadata; the old version goes to history.
pub(super) fn update(memcore: &Memcore, args: UpdateArgs, out: &mut Output) -> Result<(), Failure> {
    let mut change = MemoryUpdate::new();
    if let Some(path) = &args.content {
        change = change.content(input::read_text(path)?);
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
    let reference = memory_ref(&entry.collection, &entry.id);
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
