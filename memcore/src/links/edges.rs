//! Edge types (seed 001, "Edge Type Inference Rules"): what a link's anchor context says about
//! it, from keywords, configurable as `links.edge_types`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// The edge type of a link whose context matches no rule.
pub const DEFAULT_EDGE_TYPE: &str = "related_to";

/// One rule: an edge type and the words that give it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EdgeRule {
    /// The edge type: lower-case letters and `_`.
    #[serde(rename = "type")]
    pub edge_type: String,
    /// Words that give it, matched as whole words in any case (one word each).
    pub keywords: Vec<String>,
}

/// The rules, tried in order; the first with a keyword in the anchor context types the link,
/// else it is `related_to`. The `links:` section of a store's config:
///
/// ```yaml
/// links:
///   edge_types:
///     - { type: refactors, keywords: [refactor, refactoring, rewrite, restructure] }
///     - { type: plans, keywords: [plan, todo, will, should] }
/// ```
///
/// Types are inferred when links are read (`links`, `backlinks`, `stats`), so a changed rule
/// applies at once, without re-indexing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct EdgeTypes {
    /// The rules, in order.
    pub edge_types: Vec<EdgeRule>,
}

/// The seed's table, with the inflections people write.
const SEED_RULES: [(&str, &[&str]); 4] = [
    (
        "refactors",
        &[
            "refactor",
            "refactors",
            "refactored",
            "refactoring",
            "rewrite",
            "rewrites",
            "rewrote",
            "rewriting",
            "rewritten",
            "restructure",
            "restructures",
            "restructured",
            "restructuring",
        ],
    ),
    ("plans", &["plan", "plans", "planned", "planning", "todo", "will", "should"]),
    (
        "debugs",
        &["bug", "bugs", "fix", "fixes", "fixed", "fixing", "issue", "issues", "error", "errors"],
    ),
    ("mentions", &["note", "notes", "remember", "mention", "mentions", "mentioned"]),
];

impl Default for EdgeTypes {
    fn default() -> Self {
        let edge_types = SEED_RULES
            .iter()
            .map(|(edge_type, keywords)| EdgeRule {
                edge_type: (*edge_type).to_owned(),
                keywords: keywords.iter().map(|k| (*k).to_owned()).collect(),
            })
            .collect();
        Self { edge_types }
    }
}

impl EdgeTypes {
    /// No rules: every link is `related_to` (for callers that type links later, or not at
    /// all).
    pub fn untyped() -> Self {
        Self { edge_types: Vec::new() }
    }

    /// The edge type `context` gives a link. Words inside `[[links]]` do not count: a link
    /// to `notes/todo.md` does not plan anything.
    pub fn infer(&self, context: &str) -> &str {
        if self.edge_types.is_empty() {
            return DEFAULT_EDGE_TYPE;
        }
        let mut prose = String::with_capacity(context.len());
        let mut rest = context;
        while let Some(open) = rest.find("[[") {
            prose.push_str(&rest[..open]);
            match rest[open..].find("]]") {
                Some(close) => rest = &rest[open + close + 2..],
                None => {
                    rest = &rest[open..];
                    break;
                }
            }
        }
        prose.push_str(rest);
        let words: Vec<String> = prose
            .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        self.edge_types
            .iter()
            .find(|rule| {
                rule.keywords.iter().any(|k| words.iter().any(|w| w.eq_ignore_ascii_case(k)))
            })
            .map_or(DEFAULT_EDGE_TYPE, |rule| rule.edge_type.as_str())
    }

    /// A validation error for a type that is not lower-case letters and `_`, or a rule
    /// without keywords.
    pub fn validate(&self) -> Result<()> {
        for rule in &self.edge_types {
            let name = &rule.edge_type;
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                return Err(Error::validation(
                    format!("links.edge_types: `{name}` is not an edge type name"),
                    "name edge types with lower-case letters and `_`, e.g. `refactors`",
                ));
            }
            if rule.keywords.iter().all(|k| k.trim().is_empty()) {
                return Err(Error::validation(
                    format!("links.edge_types: `{name}` has no keywords"),
                    "give each edge type the words that mark it",
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seed_table_in_order_with_a_default() {
        let types = EdgeTypes::default();
        assert_eq!(types.infer("We should REFACTOR this"), "refactors", "first rule wins");
        assert_eq!(types.infer("the plan for Q3"), "plans");
        assert_eq!(types.infer("fixed a bug in"), "debugs");
        assert_eq!(types.infer("as mentioned in"), "mentions");
        assert_eq!(types.infer("willing planets"), DEFAULT_EDGE_TYPE, "whole words only");
        assert_eq!(types.infer("see [[notes/todo.md]]"), DEFAULT_EDGE_TYPE, "not inside links");
        types.validate().unwrap();
    }

    #[test]
    fn bad_rules_are_validation_errors() {
        let rule = |t: &str, k: &[&str]| EdgeTypes {
            edge_types: vec![EdgeRule {
                edge_type: t.into(),
                keywords: k.iter().map(|s| (*s).into()).collect(),
            }],
        };
        assert!(rule("Bad Type", &["x"]).validate().is_err());
        assert!(rule("ok", &[" "]).validate().is_err());
    }
}
