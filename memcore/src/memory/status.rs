//! The lifecycle [`Status`] of a memory and its transition table (seed 002, section 6.1).

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// Where a memory is in its lifecycle: `active → resolved → archived → tombstone`.
///
/// Archived and tombstoned memories are hidden from search unless asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Newly captured, fully relevant.
    #[default]
    Active,
    /// Task completed, still relevant.
    Resolved,
    /// Old; content may be compressed.
    Archived,
    /// Marked for deletion.
    Tombstone,
}

impl Status {
    /// All statuses, in lifecycle order.
    pub const ALL: [Status; 4] = [Self::Active, Self::Resolved, Self::Archived, Self::Tombstone];

    /// The lower-case name stored in frontmatter.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::Resolved => "resolved",
            Self::Archived => "archived",
            Self::Tombstone => "tombstone",
        }
    }

    /// Whether seed 002's transition table allows moving from `self` to `target`
    /// (staying in the same status is always allowed).
    ///
    /// ```
    /// use memcore::Status;
    /// assert!(Status::Active.can_transition_to(Status::Resolved));
    /// assert!(Status::Tombstone.can_transition_to(Status::Active));
    /// assert!(!Status::Resolved.can_transition_to(Status::Active));
    /// ```
    pub fn can_transition_to(self, target: Status) -> bool {
        use Status::*;
        self == target
            || matches!(
                (self, target),
                (Active, Resolved | Archived | Tombstone)
                    | (Resolved, Archived | Tombstone)
                    | (Archived, Tombstone | Active)
                    | (Tombstone, Active)
            )
    }

    /// `Ok(())` if the transition is allowed, else a validation error naming the allowed ones.
    pub fn check_transition(self, target: Status) -> Result<()> {
        if self.can_transition_to(target) {
            return Ok(());
        }
        let allowed: Vec<&str> = Self::ALL
            .into_iter()
            .filter(|&s| s != self && self.can_transition_to(s))
            .map(Status::as_str)
            .collect();
        Err(Error::validation(
            format!("a memory cannot go from status {self} to {target}"),
            format!("from {self} it can go to: {}", allowed.join(", ")),
        ))
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Status {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|status| status.as_str() == s).ok_or_else(|| {
            Error::validation(
                format!("unknown status {s:?}"),
                "use one of: active, resolved, archived, tombstone",
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transition_table_matches_seed() {
        use Status::*;
        let allowed = [
            (Active, Resolved),
            (Active, Archived),
            (Active, Tombstone),
            (Resolved, Archived),
            (Resolved, Tombstone),
            (Archived, Tombstone),
            (Archived, Active),
            (Tombstone, Active),
        ];
        for from in Status::ALL {
            for to in Status::ALL {
                let expected = from == to || allowed.contains(&(from, to));
                assert_eq!(from.can_transition_to(to), expected, "{from} -> {to}");
            }
        }
        let err = Resolved.check_transition(Active).unwrap_err();
        assert_eq!(err.recovery(), "from resolved it can go to: archived, tombstone");
    }

    #[test]
    fn parses_names() {
        assert_eq!("archived".parse::<Status>().unwrap(), Status::Archived);
        assert!("done".parse::<Status>().is_err());
    }
}
