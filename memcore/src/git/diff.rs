//! Unified diffs between two versions of a memory, by libgit2's diff (no repository needed,
//! so built-in history diffs the same way as git history).

use std::path::Path;

use git2::Patch;

use super::errors::git_error;
use crate::format::frontmatter::to_markdown;
use crate::{Memory, Result};

/// The unified diff of the memory files of `old` (at revision `from`) and `new` (at `to`);
/// empty when the files are the same.
pub(crate) fn unified_diff(old: &Memory, new: &Memory, from: &str, to: &str) -> Result<String> {
    let (old_text, new_text) = (to_markdown(old), to_markdown(new));
    if old_text == new_text {
        return Ok(String::new());
    }
    let name = format!("{}/{}.md", new.collection, new.id);
    let (old_label, new_label) = (format!("{name}@{from}"), format!("{name}@{to}"));
    let mut patch = Patch::from_buffers(
        old_text.as_bytes(),
        Some(Path::new(&old_label)),
        new_text.as_bytes(),
        Some(Path::new(&new_label)),
        None,
    )
    .map_err(|e| git_error("computing the diff", e))?;
    let buf = patch.to_buf().map_err(|e| git_error("formatting the diff", e))?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}
