//! [`Failure`]: why a command did not succeed, with a message and a recovery hint.

use std::path::Path;

/// Why a command failed: a wrong command line, or an error from memcore.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The command line cannot be carried out as written; nothing was done.
    Usage {
        /// What is wrong.
        message: String,
        /// How to write it instead.
        recovery: String,
    },
    /// memcore refused or failed; its error carries the category and the hint.
    Memcore(memcore::Error),
}

impl Failure {
    /// A [`Failure::Usage`].
    pub(crate) fn usage(message: impl Into<String>, recovery: impl Into<String>) -> Self {
        Self::Usage { message: message.into(), recovery: recovery.into() }
    }

    /// A [`Failure::Usage`] for an input file that cannot be read.
    pub(crate) fn unreadable(path: &Path, err: &std::io::Error) -> Self {
        Self::usage(
            format!("cannot read {}: {err}", path.display()),
            "give the path of a readable UTF-8 markdown file, or `-` to read standard input",
        )
    }

    /// The category shown to people and in JSON: `USAGE`, or memcore's (`NOT_FOUND`, ...).
    pub(crate) fn category(&self) -> &'static str {
        match self {
            Self::Usage { .. } => "USAGE",
            Self::Memcore(err) => err.category().as_str(),
        }
    }

    /// What went wrong.
    pub(crate) fn message(&self) -> String {
        match self {
            Self::Usage { message, .. } => message.clone(),
            Self::Memcore(err) => err.to_string(),
        }
    }

    /// What to do about it.
    pub(crate) fn recovery(&self) -> &str {
        match self {
            Self::Usage { recovery, .. } => recovery,
            Self::Memcore(err) => err.recovery(),
        }
    }
}

impl From<memcore::Error> for Failure {
    fn from(err: memcore::Error) -> Self {
        Self::Memcore(err)
    }
}

/// A clap parse error as a usage failure: its first line is the message; its tips (and
/// otherwise a pointer to `--help`) are the recovery.
impl From<clap::Error> for Failure {
    fn from(err: clap::Error) -> Self {
        let rendered = err.render().to_string();
        let mut lines = rendered.lines().map(str::trim).filter(|line| !line.is_empty());
        let first = lines.next().unwrap_or("invalid command line");
        let mut message = first.strip_prefix("error: ").unwrap_or(first).to_owned();
        let mut lines = lines.peekable();
        // A first line ending in `:` is continued by a list (the required arguments missing),
        // up to the usage line or a tip.
        if message.ends_with(':') {
            let mut listed = Vec::new();
            while let Some(line) = lines.next_if(|line| {
                !["Usage:", "tip:", "For more information"].iter().any(|p| line.starts_with(p))
            }) {
                listed.push(line);
            }
            if !listed.is_empty() {
                message = format!("{message} {}", listed.join(", "));
            }
        }
        let tips: Vec<&str> = lines.filter(|line| line.starts_with("tip:")).collect();
        let recovery = if tips.is_empty() {
            "run `memcore --help` or `memcore <command> --help` for the usage".to_owned()
        } else {
            tips.join("; ")
        };
        Self::Usage { message, recovery }
    }
}

#[cfg(test)]
mod tests {
    use clap::{Arg, Command};

    use super::*;

    /// The message and recovery of the usage failure a command line of a REF and a --ratio
    /// (both required) gives for `args`.
    fn usage_of(args: &[&str]) -> (String, String) {
        let command = Command::new("memcore")
            .arg(Arg::new("ref").value_name("REF").required(true))
            .arg(Arg::new("ratio").long("ratio").required(true));
        match Failure::from(command.try_get_matches_from(args).unwrap_err()) {
            Failure::Usage { message, recovery } => (message, recovery),
            Failure::Memcore(err) => panic!("{err}"),
        }
    }

    #[test]
    fn a_clap_error_keeps_the_missing_arguments_it_lists() {
        let (message, recovery) = usage_of(&["memcore"]);
        assert_eq!(
            message,
            "the following required arguments were not provided: --ratio <ratio>, <REF>"
        );
        assert!(recovery.contains("--help"), "{recovery}");
        let (message, recovery) = usage_of(&["memcore", "x", "--ratoi", "3"]);
        assert_eq!(message, "unexpected argument '--ratoi' found");
        assert!(recovery.contains("--ratio"), "{recovery}");
    }
}
