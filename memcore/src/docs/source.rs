//! Reading a document's source file safely: inside the project, not through a symbolic
//! link, bounded in size, UTF-8 text and not binary.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use super::chunk::DocumentFormat;
use crate::{Error, Result};

/// The largest document read by default, in bytes (32 MiB).
pub const DEFAULT_MAX_DOCUMENT_BYTES: u64 = 32 * 1024 * 1024;
/// How far into a file a NUL byte marks it as binary.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// A document's source, read.
#[derive(Debug)]
pub(crate) struct Source {
    /// Its path relative to the project root, with `/` between names.
    pub relative: String,
    /// Its text.
    pub text: String,
    /// The SHA-256 of its bytes, in hex.
    pub sha256: String,
    /// How it is split.
    pub format: DocumentFormat,
}

/// The project root as the documents are checked against it: absolute and without links.
pub(crate) fn canonical_root(root: &Path) -> Result<PathBuf> {
    root.canonicalize().map_err(|e| {
        Error::validation(
            format!("the documents' root {} cannot be used: {e}", root.display()),
            "give `root`, an existing directory holding the documents",
        )
    })
}

/// Where documents are read from, both canonical ([`canonical_root`]): paths resolve
/// against `within` and must stay inside it; sources are named relative to `project`, which
/// holds `within`.
#[derive(Debug, Clone)]
pub(crate) struct Roots {
    /// The project root.
    pub project: PathBuf,
    /// The directory inside it that paths are read from.
    pub within: PathBuf,
}

impl Roots {
    /// Paths read from the project root itself.
    pub(crate) fn project(project: PathBuf) -> Self {
        Self { within: project.clone(), project }
    }
}

/// Reads the document at `path` (relative to `roots.within`, or absolute inside it),
/// refusing a path outside it, one through a symbolic link, a file over `max_bytes`, a binary
/// file and one that is not UTF-8.
pub(crate) fn read_source(roots: &Roots, path: &Path, max_bytes: u64) -> Result<Source> {
    let joined = lexical(&roots.within.join(path));
    if !joined.starts_with(&roots.within) {
        return Err(outside(path, &roots.within));
    }
    let Ok(relative) = joined.strip_prefix(&roots.project) else {
        return Err(outside(path, &roots.project));
    };
    let shown = path.display();
    let canonical = joined.canonicalize().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::not_found(
            format!("document {shown}"),
            "check the path (it is read relative to the project root), or purge the document",
        ),
        std::io::ErrorKind::NotADirectory
        | std::io::ErrorKind::InvalidFilename
        | std::io::ErrorKind::InvalidInput => Error::validation(
            format!("document {shown} is not a path to a file: {e}"),
            "give the path of a markdown or text file inside the project",
        ),
        _ => Error::io(format!("reading document {shown}"), e),
    })?;
    if canonical != joined {
        return Err(Error::validation(
            format!("document {shown} is reached through a symbolic link"),
            "ingest the file at its real place inside the project",
        ));
    }
    let metadata = std::fs::metadata(&canonical)
        .map_err(|e| Error::io(format!("reading document {shown}"), e))?;
    if !metadata.is_file() {
        return Err(Error::validation(
            format!("document {shown} is not a file"),
            "give the paths of markdown or text files",
        ));
    }
    if metadata.len() > max_bytes {
        return Err(too_large(path, metadata.len(), max_bytes));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(metadata.len()).unwrap_or(0));
    std::fs::File::open(&canonical)
        .and_then(|file| file.take(max_bytes.saturating_add(1)).read_to_end(&mut bytes))
        .map_err(|e| Error::io(format!("reading document {shown}"), e))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(path, bytes.len() as u64, max_bytes));
    }
    if let Some(at) = bytes.iter().take(BINARY_SNIFF_BYTES).position(|&b| b == 0) {
        return Err(Error::validation(
            format!("document {shown} looks binary (a NUL byte at offset {at})"),
            "memcore ingests markdown and plain text: convert it to text first \
             (e.g. `pdftotext file.pdf file.txt`)",
        ));
    }
    let sha256 = crate::hex::sha256_hex(&bytes);
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::validation(
            format!(
                "document {shown} is not UTF-8 (an invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
            "convert it to UTF-8 first, e.g. `iconv -f latin1 -t utf-8`",
        )
    })?;
    let relative = relative_name(relative);
    let format = DocumentFormat::of_file_name(&relative);
    Ok(Source { relative, text, sha256, format })
}

/// `path` with `.` and `..` resolved by name alone (without reading the file system).
fn lexical(path: &Path) -> PathBuf {
    let mut resolved = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                resolved.pop();
            }
            other => resolved.push(other),
        }
    }
    resolved
}

/// A relative path's names joined with `/`.
fn relative_name(relative: &Path) -> String {
    let names: Vec<String> =
        relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    names.join("/")
}

fn outside(path: &Path, root: &Path) -> Error {
    Error::validation(
        format!("document {} is outside the project root {}", path.display(), root.display()),
        "ingest files inside the project, or give `root` a directory that holds them",
    )
}

fn too_large(path: &Path, size: u64, max_bytes: u64) -> Error {
    Error::validation(
        format!("document {} is {size} bytes, over the limit of {max_bytes}", path.display()),
        "split it into smaller files, or raise `max_bytes` for this ingest",
    )
}

/// The document id of a file at `relative`: its path in lower case, every run of other
/// characters than letters, digits, `_` and `-` made one `-`, and the file's extension kept
/// after a dot (so `docs/Run Book.md` is `docs-run-book.md`); a path too long for an id keeps
/// its start and a hash of the whole.
pub(crate) fn document_id(relative: &str) -> String {
    const MAX: usize = 96;
    let lowered = relative.to_lowercase();
    let name_start = lowered.rfind('/').map_or(0, |slash| slash + 1);
    let (stem, extension) = match lowered[name_start..].rfind('.') {
        Some(dot) if dot > 0 => (&lowered[..name_start + dot], &lowered[name_start + dot + 1..]),
        _ => (lowered.as_str(), ""),
    };
    let stem = slug(stem);
    let mut id = if stem.is_empty() { "document".to_owned() } else { stem };
    let extension = slug(extension);
    if !extension.is_empty() {
        id = format!("{id}.{extension}");
    }
    if id.len() <= MAX {
        return id;
    }
    let hash = crate::hex::sha256_hex(relative.as_bytes());
    format!("{}-{}", id[..MAX - 13].trim_end_matches(['-', '.', '_']), &hash[..12])
}

/// `text` with every run of characters other than ASCII letters, digits and `_` made one
/// `-`, without a `-` or `_` at either end.
fn slug(text: &str) -> String {
    let mut slug = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            slug.push(c);
        } else if !slug.ends_with('-') {
            slug.push('-');
        }
    }
    slug.trim_matches(['-', '_']).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_ids_follow_the_path() {
        assert_eq!(document_id("docs/Run Book.md"), "docs-run-book.md");
        assert_eq!(document_id("guide.md"), "guide.md");
        assert_eq!(document_id("a/b.c/README"), "a-b-c-readme");
        assert_eq!(document_id(".hidden"), "hidden");
        assert_eq!(document_id("ünïcode/x.txt"), "n-code-x.txt");
        let long = format!("{}/file.md", "d".repeat(200));
        let id = document_id(&long);
        assert!(id.len() <= 96, "{id}");
        assert!(crate::MemoryId::new(&id).is_ok());
        assert_ne!(id, document_id(&format!("{}/other.md", "d".repeat(200))));
    }

    #[test]
    fn reading_refuses_what_is_not_a_plain_text_file_inside_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = canonical_root(dir.path()).unwrap();
        let roots = Roots::project(root.clone());
        std::fs::write(root.join("ok.md"), "# Fine\n\nText.").unwrap();
        std::fs::write(root.join("bin.dat"), b"abc\0def").unwrap();
        std::fs::write(root.join("latin1.txt"), b"caf\xe9").unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::os::unix::fs::symlink(root.join("ok.md"), root.join("link.md")).unwrap();

        let source = read_source(&roots, Path::new("ok.md"), 1024).unwrap();
        assert_eq!((source.relative.as_str(), source.format), ("ok.md", DocumentFormat::Markdown));
        let category = |path: &str, max: u64| {
            read_source(&roots, Path::new(path), max).map(|_| ()).unwrap_err().category()
        };
        use crate::Category::{NotFound, Validation};
        assert_eq!(category("bin.dat", 1024), Validation);
        assert_eq!(category("latin1.txt", 1024), Validation);
        assert_eq!(category("link.md", 1024), Validation);
        assert_eq!(category("sub", 1024), Validation);
        assert_eq!(category("../outside.md", 1024), Validation);
        assert_eq!(category("/etc/hostname", 1024), Validation);
        assert_eq!(category("ok.md", 4), Validation);
        assert_eq!(category("gone.md", 1024), NotFound);
        assert_eq!(category("ok.md/inside", 1024), Validation);
    }
}
