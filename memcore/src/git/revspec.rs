//! Checks on revisions and paths given by callers before they reach git (seed 002's security
//! validations): no option-like `-` prefix, no ranges, no NUL, a small character set.

use crate::{Error, Result};

const REVISION_HINT: &str =
    "pass a revision such as `HEAD`, `HEAD~2`, a commit id (full or short) or a tag name";

/// Checks a revision: not empty, not starting with `-`, no `..`, no NUL, and only characters
/// from `[A-Za-z0-9_./@^~-]`.
///
/// ```ignore
/// assert!(check_revision("HEAD~2").is_ok());
/// assert!(check_revision("--upload-pack=x").is_err());
/// ```
pub(crate) fn check_revision(rev: &str) -> Result<()> {
    let problem = if rev.is_empty() {
        Some("the revision is empty")
    } else if rev.starts_with('-') {
        Some("a revision cannot start with '-'")
    } else if rev.contains("..") {
        Some("a revision cannot contain '..' (ranges are not revisions)")
    } else if rev.contains('\0') {
        Some("a revision cannot contain a NUL byte")
    } else if !rev.chars().all(|c| c.is_ascii_alphanumeric() || "_./@^~-".contains(c)) {
        Some("a revision may only contain letters, digits and _ . / @ ^ ~ -")
    } else {
        None
    };
    match problem {
        Some(problem) => Err(Error::validation(format!("{problem}: {rev:?}"), REVISION_HINT)),
        None => Ok(()),
    }
}

/// Checks a path relative to a work tree: not empty, relative, no `-` prefix, no NUL and no
/// `..` component.
pub(crate) fn check_relative_path(path: &str) -> Result<()> {
    let escapes = path.split('/').any(|part| part == "..");
    let problem = if path.is_empty() {
        Some("the path is empty")
    } else if path.starts_with('-') {
        Some("a path cannot start with '-'")
    } else if path.starts_with('/') {
        Some("the path must be relative to the work tree")
    } else if path.contains('\0') {
        Some("a path cannot contain a NUL byte")
    } else if escapes {
        Some("the path escapes the work tree through '..'")
    } else {
        None
    };
    match problem {
        Some(problem) => Err(Error::validation(
            format!("{problem}: {path:?}"),
            "give a path inside the repository's work tree, relative to its top",
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Category;

    #[test]
    fn accepts_ordinary_revisions() {
        for rev in ["HEAD", "HEAD~2", "HEAD^", "v1.0", "main", "a1b2c3d", "refs/tags/x", "@"] {
            check_revision(rev).unwrap_or_else(|e| panic!("{rev}: {e}"));
        }
    }

    #[test]
    fn rejects_injection_and_ranges() {
        for rev in ["", "-x", "--output=/tmp/x", "a..b", "a\0b", "HEAD:file", "x y", "a;b"] {
            let err = check_revision(rev).expect_err(rev);
            assert_eq!(err.category(), Category::Validation, "{rev}");
        }
    }

    #[test]
    fn paths_stay_inside() {
        assert!(check_relative_path("mem/notes/a.md").is_ok());
        for path in ["", "-a", "/etc/passwd", "a/../../b", "..", "a\0"] {
            assert!(check_relative_path(path).is_err(), "{path}");
        }
    }
}
