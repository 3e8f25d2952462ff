//! [`TrustedCommands`]: the summary commands this machine's user has allowed to run, kept
//! outside every project (`<global root>/trusted-commands.json`), as direnv keeps its
//! allowed `.envrc` files: a manifest from a cloned repository never runs a program unasked.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::hex::sha256_hex;
use crate::store::fsutil::write_atomic;
use crate::{Error, Result, Timestamp};

/// The file of trusted commands in the global root.
pub const TRUSTED_COMMANDS_FILE: &str = "trusted-commands.json";

/// The file's contents.
#[derive(Debug, Default, Serialize, Deserialize)]
struct TrustFile {
    #[serde(default)]
    trusted: Vec<TrustEntry>,
}

/// One trusted command.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct TrustEntry {
    /// The project directory, canonical.
    project: PathBuf,
    /// The program and its arguments.
    command: Vec<String>,
    /// [`fingerprint`] of the command.
    fingerprint: String,
    /// When it was trusted.
    trusted_at: Timestamp,
}

/// The summary commands trusted on this machine, in one JSON file.
#[derive(Debug, Clone)]
pub struct TrustedCommands {
    file: PathBuf,
}

impl TrustedCommands {
    /// The user's list: `trusted-commands.json` in the global root ([`crate::global_root`]).
    pub fn user() -> Result<Self> {
        Ok(Self::at(crate::global_root()?.join(TRUSTED_COMMANDS_FILE)))
    }

    /// The list kept in `file`.
    pub fn at(file: impl Into<PathBuf>) -> Self {
        Self { file: file.into() }
    }

    /// Where the list is kept.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Whether `argv`, run in `project`, is trusted as it is now: the same project, the same
    /// command line and, for a program inside the project, the same program file.
    pub fn is_trusted(&self, project: &Path, argv: &[String]) -> Result<bool> {
        let fingerprint = fingerprint(project, argv)?;
        let project = canonical(project)?;
        Ok(self
            .read()?
            .trusted
            .iter()
            .any(|entry| entry.project == project && entry.fingerprint == fingerprint))
    }

    /// Trusts `argv` run in `project` from `at` on, replacing what was trusted there before.
    pub fn trust(&self, project: &Path, argv: &[String], at: Timestamp) -> Result<()> {
        let fingerprint = fingerprint(project, argv)?;
        let project = canonical(project)?;
        let mut file = self.read()?;
        file.trusted.retain(|entry| entry.project != project);
        file.trusted.push(TrustEntry {
            project,
            command: argv.to_vec(),
            fingerprint,
            trusted_at: at,
        });
        if let Some(dir) = self.file.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
        }
        let text = serde_json::to_string_pretty(&file).map_err(|e| {
            Error::validation(format!("writing trusted commands: {e}"), "report this as a bug")
        })?;
        write_atomic(&self.file, text.as_bytes())
    }

    fn read(&self) -> Result<TrustFile> {
        match std::fs::read_to_string(&self.file) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                Error::corrupted(
                    &self.file,
                    Some(e.line()),
                    e.to_string(),
                    "remove the file and trust the commands you use again",
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(TrustFile::default()),
            Err(e) => Err(Error::io(format!("reading {}", self.file.display()), e)),
        }
    }
}

/// What trust covers: the command line, the program it resolves to (a change of `PATH`
/// that finds another one needs trust again) and, for the program and every argument that
/// is a file inside the project (a script the repository carries), their contents, so a pull
/// that changes them needs trust again. Files the program reads by itself are not covered.
fn fingerprint(project: &Path, argv: &[String]) -> Result<String> {
    let project = canonical(project)?;
    let inside = |path: &Path| -> String {
        match path.canonicalize() {
            Ok(path) if path.starts_with(&project) && path.is_file() => {
                std::fs::read(&path).map(|bytes| sha256_hex(&bytes)).unwrap_or_default()
            }
            _ => String::new(),
        }
    };
    let name = argv.first().map_or("", String::as_str);
    let program = super::command::resolve_program(&project, name);
    let program_contents = program.as_deref().map(inside).unwrap_or_default();
    let arguments: Vec<String> =
        argv.iter().skip(1).map(|arg| inside(&project.join(arg))).collect();
    let key = serde_json::json!({
        "command": argv,
        "program": program,
        "program_contents": program_contents,
        "arguments": arguments,
    });
    Ok(sha256_hex(key.to_string().as_bytes()))
}

/// `dir`, canonical.
fn canonical(dir: &Path) -> Result<PathBuf> {
    dir.canonicalize().map_err(|e| Error::io(format!("resolving {}", dir.display()), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_is_per_project_command_and_script() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        let script = project.path().join("sum.sh");
        std::fs::write(&script, "head -c 10\n").unwrap();
        let trusted = TrustedCommands::at(home.path().join("t/trusted-commands.json"));
        let argv = vec!["./sum.sh".to_owned()];
        assert!(!trusted.is_trusted(project.path(), &argv).unwrap());
        trusted.trust(project.path(), &argv, crate::now()).unwrap();
        assert!(trusted.is_trusted(project.path(), &argv).unwrap());
        assert!(!trusted.is_trusted(other.path(), &argv).unwrap());
        assert!(!trusted.is_trusted(project.path(), &["./sum.sh".into(), "-x".into()]).unwrap());
        std::fs::write(&script, "curl evil\n").unwrap();
        assert!(!trusted.is_trusted(project.path(), &argv).unwrap());
        // An interpreter's script is covered too.
        let interpreted = vec!["sh".to_owned(), "sum.sh".to_owned()];
        trusted.trust(project.path(), &interpreted, crate::now()).unwrap();
        assert!(trusted.is_trusted(project.path(), &interpreted).unwrap());
        std::fs::write(&script, "curl evil again\n").unwrap();
        assert!(!trusted.is_trusted(project.path(), &interpreted).unwrap());
    }
}
