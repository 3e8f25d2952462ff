//! Token budgets: seed 002's tiers, fixed and adaptive modes, and how a total splits into
//! working memory and semantic context.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// Seed 002's budget tiers, by how complex the project is.
///
/// | tier | total | working memory | semantic context |
/// | --- | --- | --- | --- |
/// | simple | 500 | 300 | 100 |
/// | medium | 1000 | 500 | 300 |
/// | complex | 2000 | 900 | 900 |
/// | full | 3000 | 1400 | 1400 |
///
/// The rest of each total (100, 200, 200, 200) is the frame: headings, labels and tags.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum BudgetTier {
    /// 500 tokens: 300 working, 100 semantic.
    Simple,
    /// 1000 tokens: 500 working, 300 semantic.
    Medium,
    /// 2000 tokens: 900 working, 900 semantic.
    Complex,
    /// 3000 tokens: 1400 working, 1400 semantic.
    Full,
}

impl BudgetTier {
    /// `(total, working memory, semantic context)` of the tier.
    pub fn split(self) -> (usize, usize, usize) {
        match self {
            Self::Simple => (500, 300, 100),
            Self::Medium => (1000, 500, 300),
            Self::Complex => (2000, 900, 900),
            Self::Full => (3000, 1400, 1400),
        }
    }

    /// The tier adaptive mode picks for a store of `memories` live memories: simple below
    /// 50, medium below 500, complex below 5,000, else full. (Seed 002 leaves
    /// `detect_project_complexity` open; how much there is to remember is what memcore
    /// knows of a project.)
    pub fn for_store_size(memories: usize) -> Self {
        match memories {
            0..50 => Self::Simple,
            50..500 => Self::Medium,
            500..5_000 => Self::Complex,
            _ => Self::Full,
        }
    }
}

/// How a composition's budget is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BudgetMode {
    /// The tier follows the store's size ([`BudgetTier::for_store_size`]) unless a tier or
    /// total is given.
    #[default]
    Adaptive,
    /// The given total (or tier; `medium` when neither is given).
    Fixed,
}

/// A resolved budget: the total and its split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Budget {
    /// The most tokens the rendered context may take, frame included.
    pub total: usize,
    /// Tokens for working memory (blockers, decisions, pinned memories).
    pub working: usize,
    /// Tokens for semantic context (what the query finds).
    pub semantic: usize,
    /// The tier the split comes from (`None`: a total given alone, split as `complex` is).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier: Option<BudgetTier>,
}

impl Budget {
    /// The budget of a tier.
    pub fn of_tier(tier: BudgetTier) -> Self {
        let (total, working, semantic) = tier.split();
        Self { total, working, semantic, tier: Some(tier) }
    }

    /// A total split as the `complex` tier splits its 2000: 45% working memory, 45% semantic
    /// context, 10% frame.
    ///
    /// ```
    /// use memcore::compose::Budget;
    /// let budget = Budget::of_total(4000)?;
    /// assert_eq!((budget.working, budget.semantic), (1800, 1800));
    /// assert!(Budget::of_total(0).is_err());
    /// # Ok::<(), memcore::Error>(())
    /// ```
    pub fn of_total(total: usize) -> Result<Self> {
        if total == 0 {
            return Err(Error::validation(
                "a token budget of 0 leaves no room for any memory",
                "give a budget of at least a few dozen tokens, or a tier (simple is 500)",
            ));
        }
        let share = total * 45 / 100;
        Ok(Self { total, working: share, semantic: share, tier: None })
    }

    /// The budget a request asks for: a total (split as [`Budget::of_total`]) or a tier;
    /// in adaptive mode with neither, the tier for a store of `store_size` memories; in
    /// fixed mode with neither, `medium`.
    pub fn resolve(
        total: Option<usize>,
        tier: Option<BudgetTier>,
        mode: BudgetMode,
        store_size: impl FnOnce() -> usize,
    ) -> Result<Self> {
        match (total, tier) {
            (Some(_), Some(_)) => Err(Error::validation(
                "both a token budget and a tier were given",
                "give either `budget` (a number of tokens) or `tier`, not both",
            )),
            (Some(total), None) => Self::of_total(total),
            (None, Some(tier)) => Ok(Self::of_tier(tier)),
            (None, None) => Ok(Self::of_tier(match mode {
                BudgetMode::Adaptive => BudgetTier::for_store_size(store_size()),
                BudgetMode::Fixed => BudgetTier::Medium,
            })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tiers_are_the_seeds() {
        let table: Vec<_> =
            [BudgetTier::Simple, BudgetTier::Medium, BudgetTier::Complex, BudgetTier::Full]
                .map(BudgetTier::split)
                .into();
        assert_eq!(
            table,
            [(500, 300, 100), (1000, 500, 300), (2000, 900, 900), (3000, 1400, 1400)]
        );
    }

    #[test]
    fn a_budget_resolves_from_total_tier_or_store_size() {
        let never = || unreachable!("the store size is not needed");
        assert_eq!(
            Budget::resolve(Some(800), None, BudgetMode::Fixed, never).map(|b| b.total).ok(),
            Some(800)
        );
        assert!(
            Budget::resolve(Some(800), Some(BudgetTier::Full), BudgetMode::Fixed, never).is_err()
        );
        assert_eq!(
            Budget::resolve(None, None, BudgetMode::Fixed, never).ok(),
            Some(Budget::of_tier(BudgetTier::Medium))
        );
        let adaptive = Budget::resolve(None, None, BudgetMode::Adaptive, || 1_200).ok();
        assert_eq!(adaptive, Some(Budget::of_tier(BudgetTier::Complex)));
        assert_eq!(BudgetTier::for_store_size(0), BudgetTier::Simple);
        assert_eq!(BudgetTier::for_store_size(100_000), BudgetTier::Full);
    }
}
