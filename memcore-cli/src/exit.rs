//! Exit codes: one per kind of failure, so scripts and agents can branch without parsing text.

use memcore::Category;

use crate::failure::Failure;

/// Something asked for (a memory, a version, a project config) does not exist.
pub(crate) const NOT_FOUND: u8 = 1;
/// The command line is wrong: unknown flag, bad value, unreadable input file, malformed JSON.
pub(crate) const USAGE: u8 = 2;
/// memcore rejected the input: an invalid id or collection, a size limit, a reserved key.
pub(crate) const VALIDATION: u8 = 3;
/// The store or its indexes failed: I/O, a damaged file, an index out of step.
pub(crate) const STORAGE: u8 = 4;
/// Anything else: a conflict, a missing embedding model, an unsupported operation.
pub(crate) const OTHER: u8 = 5;

/// The exit codes as `memcore --help` and the README list them.
pub(crate) const HELP: &str = "\
Exit codes:
  0  success
  1  not found: no such memory, version or project config
  2  usage: unknown flag, bad value, unreadable input file, malformed --metadata JSON, a
     `call` request that is not JSON or does not fit its operation's schema
  3  validation: memcore rejected the input (invalid id or collection, a --store path
     that is a file, a size limit, a reserved metadata key)
  4  storage or corruption: I/O failure, damaged memory file, index out of step with the store
  5  other: conflict (put --create-only of a memory that exists, another writer holds the
     lock, init in a project), embedding model missing, operation unsupported (put --commit
     without git notes)

With --json, results are one JSON document on stdout and an error is one JSON object on
stderr: {\"error\": {\"category\", \"message\", \"recovery\", \"exit_code\"}}.";

/// The exit code for `failure`.
pub(crate) fn code(failure: &Failure) -> u8 {
    match failure {
        Failure::Usage { .. } | Failure::Memcore(memcore::Error::Request { .. }) => USAGE,
        Failure::Memcore(err) => match err.category() {
            Category::NotFound => NOT_FOUND,
            Category::Validation => VALIDATION,
            Category::Storage | Category::Parse | Category::Index => STORAGE,
            _ => OTHER,
        },
    }
}

#[cfg(test)]
mod tests {
    use memcore::Error;

    use super::*;

    #[test]
    fn categories_map_to_the_documented_codes() {
        let cases = [
            (Error::not_found("memory 'x'", "list"), NOT_FOUND),
            (Error::validation("bad id", "fix it"), VALIDATION),
            (Error::io("reading x", std::io::ErrorKind::Other.into()), STORAGE),
            (Error::corrupted("/s/x.md", Some(1), "bad yaml", "fix it"), STORAGE),
            (Error::index("stale", None, "repair"), STORAGE),
            (Error::conflict("locked", "retry"), OTHER),
            (Error::embedding("no model", None, "fetch it"), OTHER),
            (Error::unsupported("versions", "x", "use y"), OTHER),
        ];
        for (err, expected) in cases {
            let shown = err.to_string();
            assert_eq!(code(&Failure::Memcore(err)), expected, "{shown}");
        }
        assert_eq!(code(&Failure::usage("bad flag", "see --help")), USAGE);
        for line in [" 1 ", " 2 ", " 3 ", " 4 ", " 5 "] {
            assert!(HELP.contains(line), "HELP documents {line}");
        }
    }
}
