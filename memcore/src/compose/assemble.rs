//! Assembling a context from candidates within a budget (pure: candidates in, text and
//! manifest out).
//!
//! Working-memory candidates come first, then semantic ones, each in the order given. A
//! candidate already included is a duplicate; one that fits what is left of its section (and
//! of the whole) goes in whole; one that does not is cut at the last sentence end (else word
//! boundary) that fits; one that does not fit even cut is left out, and later, smaller ones
//! may still fit. What working memory leaves unused goes to the semantic context. The
//! finished text is counted again, and items are dropped from the end while it is over (a
//! tokenizer need not be exactly additive), so the result never exceeds the budget.

use std::collections::HashSet;

use super::budget::Budget;
use super::render::{RenderedItem, render_context, render_item};
use super::requests::{
    CandidateSource, ContextFormat, ContextItem, ManifestEntry, Outcome, Section,
};
use super::tokens::{TokenCounter, truncate_to_tokens};
use crate::{Error, MemoryRef, Result, ScoreParts, Timestamp};

/// A memory composition may include.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Candidate {
    /// The memory.
    pub(crate) reference: MemoryRef,
    /// Its title.
    pub(crate) title: String,
    /// Its type.
    pub(crate) kind: Option<String>,
    /// When it last changed.
    pub(crate) updated_at: Timestamp,
    /// Its content.
    pub(crate) content: String,
    /// The section it is a candidate for.
    pub(crate) section: Section,
    /// Why it is considered.
    pub(crate) source: CandidateSource,
    /// Its place among its source's candidates, from 1.
    pub(crate) rank: usize,
    /// Its search score and parts, for search hits.
    pub(crate) score: Option<(f64, ScoreParts)>,
}

impl Candidate {
    /// The item as rendered with `label` and `content` (the whole or a cut).
    fn render(&self, format: ContextFormat, label: &str, content: &str) -> String {
        let reference = self.reference.to_string();
        let updated = self.updated_at.format("%Y-%m-%d").to_string();
        render_item(
            format,
            &RenderedItem {
                label,
                reference: &reference,
                title: &self.title,
                kind: self.kind.as_deref(),
                updated: &updated,
                content,
            },
        )
    }
}

/// A composed context before it is dated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Assembly {
    /// The rendered context.
    pub(crate) text: String,
    /// Its tokens.
    pub(crate) tokens: usize,
    /// What is in it.
    pub(crate) items: Vec<ContextItem>,
    /// Every candidate and what became of it.
    pub(crate) manifest: Vec<ManifestEntry>,
}

/// An included item, rendered.
struct Included {
    item: ContextItem,
    text: String,
    /// Its manifest entry.
    entry: usize,
}

/// Assembles `candidates` (working memory first) within `budget`.
///
/// A budget smaller than the frame plus the smallest possible item is a validation error
/// naming the least budget that works.
pub(crate) fn assemble(
    candidates: &[Candidate],
    budget: &Budget,
    format: ContextFormat,
    counter: &dyn TokenCounter,
) -> Result<Assembly> {
    let sections = |working: Vec<String>, semantic: Vec<String>| {
        [(Section::Working, working), (Section::Semantic, semantic)]
    };
    let frame = counter.count(&render_context(format, &sections(vec![], vec![])));
    let smallest = minimal_item(format, counter);
    if budget.total < frame + smallest {
        return Err(Error::validation(
            format!(
                "a budget of {} tokens is smaller than one item: the frame alone takes {frame} \
                 and the smallest item {smallest}",
                budget.total
            ),
            format!(
                "give a budget of at least {} tokens (the simple tier is 500)",
                frame + smallest
            ),
        ));
    }
    let mut total_left = budget.total - frame;
    let mut working_left = budget.working.min(total_left);
    let mut semantic_left = None;
    let mut included: Vec<Included> = Vec::new();
    let mut seen: HashSet<&MemoryRef> = HashSet::new();
    let mut manifest = Vec::with_capacity(candidates.len());
    for candidate in candidates {
        let section_left = match candidate.section {
            Section::Working => &mut working_left,
            Section::Semantic => semantic_left
                .get_or_insert_with(|| (budget.semantic + working_left).min(total_left)),
        };
        let label = format!("M{}", included.len() + 1);
        let whole = candidate.render(format, &label, &candidate.content);
        let tokens = counter.count(&whole);
        let mut entry = ManifestEntry {
            reference: candidate.reference.clone(),
            title: candidate.title.clone(),
            section: candidate.section,
            source: candidate.source,
            rank: candidate.rank,
            score: candidate.score.map(|(score, _)| score),
            parts: candidate.score.map(|(_, parts)| parts),
            outcome: Outcome::OverBudget,
            label: None,
            tokens,
            tokens_used: 0,
            section_left: *section_left,
            budget_left: total_left,
        };
        if seen.contains(&candidate.reference) {
            entry.outcome = Outcome::Duplicate;
            manifest.push(entry);
            continue;
        }
        let room = (*section_left).min(total_left);
        let fitted = if tokens <= room {
            Some((whole, tokens, false))
        } else {
            fit_cut(candidate, format, &label, room, counter)
        };
        if let Some((text, used, truncated)) = fitted {
            *section_left -= used;
            total_left -= used;
            entry.outcome = if truncated { Outcome::Truncated } else { Outcome::Included };
            entry.label = Some(label.clone());
            entry.tokens_used = used;
            entry.section_left = *section_left;
            entry.budget_left = total_left;
            seen.insert(&candidate.reference);
            let item = ContextItem {
                label,
                reference: candidate.reference.clone(),
                section: candidate.section,
                tokens: used,
                truncated,
            };
            included.push(Included { item, text, entry: manifest.len() });
        }
        manifest.push(entry);
    }
    loop {
        let (working, semantic): (Vec<&Included>, Vec<&Included>) =
            included.iter().partition(|i| i.item.section == Section::Working);
        let texts = |items: Vec<&Included>| items.into_iter().map(|i| i.text.clone()).collect();
        let text = render_context(format, &sections(texts(working), texts(semantic)));
        let tokens = counter.count(&text);
        if tokens <= budget.total {
            let items = included.into_iter().map(|i| i.item).collect();
            return Ok(Assembly { text, tokens, items, manifest });
        }
        // Not additive after all: the last item goes.
        let Some(last) = included.pop() else {
            unreachable!("the empty frame fits: it was checked against the budget")
        };
        let entry = &mut manifest[last.entry];
        entry.budget_left += entry.tokens_used;
        entry.section_left += entry.tokens_used;
        (entry.outcome, entry.label, entry.tokens_used) = (Outcome::OverBudget, None, 0);
    }
}

/// `candidate` cut to fit `room` tokens: its rendering, tokens, and `true`; `None` when not
/// even its first word fits.
fn fit_cut(
    candidate: &Candidate,
    format: ContextFormat,
    label: &str,
    room: usize,
    counter: &dyn TokenCounter,
) -> Option<(String, usize, bool)> {
    let overhead = counter.count(&candidate.render(format, label, ""));
    let mut allowed = room.checked_sub(overhead)?;
    // Escaping (`<` to `&lt;`) can make the rendered cut dearer than the raw one: cut
    // shorter by the excess and try again, a few times.
    for _ in 0..4 {
        let cut = truncate_to_tokens(&candidate.content, allowed, counter)?;
        let text = candidate.render(format, label, cut);
        let tokens = counter.count(&text);
        if tokens <= room {
            return Some((text, tokens, true));
        }
        allowed = allowed.checked_sub((tokens - room).max(1))?;
    }
    None
}

/// The tokens of the smallest item there can be: a one-letter memory with a short key.
fn minimal_item(format: ContextFormat, counter: &dyn TokenCounter) -> usize {
    let item = RenderedItem {
        label: "M1",
        reference: "a/b",
        title: "",
        kind: None,
        updated: "2026-01-01",
        content: "x",
    };
    counter.count(&render_item(format, &item))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compose::EstimateCounter;
    use crate::compose::budget::BudgetTier;
    use proptest::prelude::*;

    fn candidate(key: &str, content: &str, section: Section, rank: usize) -> Candidate {
        Candidate {
            reference: key.parse().expect("a valid key"),
            title: key.to_owned(),
            kind: None,
            updated_at: crate::parse_timestamp("2026-01-15T10:00:00Z").expect("a time"),
            content: content.to_owned(),
            section,
            source: match section {
                Section::Working => CandidateSource::Decision,
                Section::Semantic => CandidateSource::Search,
            },
            rank,
            score: None,
        }
    }

    fn sentences(n: usize) -> String {
        (0..n)
            .map(|i| format!("Sentence number {i} says something useful."))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn items_fit_are_cut_or_left_out_and_duplicates_are_named() {
        let candidates = [
            candidate("decisions/a", "Use Postgres.", Section::Working, 1),
            candidate("notes/long", &sentences(200), Section::Semantic, 1),
            candidate("decisions/a", "Use Postgres.", Section::Semantic, 2),
        ];
        let budget = Budget::of_tier(BudgetTier::Simple);
        let assembly =
            assemble(&candidates, &budget, ContextFormat::Xml, &EstimateCounter).expect("fits");
        let outcomes: Vec<Outcome> = assembly.manifest.iter().map(|e| e.outcome).collect();
        assert_eq!(outcomes, [Outcome::Included, Outcome::Truncated, Outcome::Duplicate]);
        assert!(assembly.tokens <= 500);
        assert!(assembly.text.contains("label=\"M2\" ref=\"notes/long\""));
        assert!(assembly.text.contains("says something useful.\n</memory>"), "cut at a sentence");
        // Working memory's unused budget went to the semantic context.
        assert!(assembly.manifest[1].tokens_used > budget.semantic);
    }

    #[test]
    fn escaped_text_is_cut_shorter_until_it_fits() {
        let code = "if a < b && c > d { x &= y; } ".repeat(40);
        let candidates = [candidate("notes/code", &code, Section::Semantic, 1)];
        let budget = Budget::of_total(120).expect("a budget");
        let assembly =
            assemble(&candidates, &budget, ContextFormat::Xml, &EstimateCounter).expect("fits");
        assert_eq!(assembly.manifest[0].outcome, Outcome::Truncated);
        assert!(assembly.tokens <= 120);
    }

    #[test]
    fn a_budget_below_one_item_is_refused() {
        let candidates = [candidate("a/b", "text", Section::Working, 1)];
        let err = assemble(
            &candidates,
            &Budget::of_total(5).expect("a budget"),
            ContextFormat::Xml,
            &EstimateCounter,
        )
        .expect_err("too small");
        assert!(err.recovery().contains("at least"), "{err}");
    }

    proptest! {
        #[test]
        fn a_composition_never_exceeds_its_budget_and_is_deterministic(
            total in 40usize..3000,
            lengths in prop::collection::vec(0usize..80, 0..12),
            markdown in any::<bool>(),
        ) {
            let candidates: Vec<Candidate> = lengths.iter().enumerate().map(|(i, &n)| {
                let section = if i % 3 == 0 { Section::Working } else { Section::Semantic };
                candidate(&format!("c/m{i}"), &format!("{} é日本 tail", sentences(n)), section, i + 1)
            }).collect();
            let format = if markdown { ContextFormat::Markdown } else { ContextFormat::Xml };
            let budget = Budget::of_total(total).expect("a budget");
            let first = assemble(&candidates, &budget, format, &EstimateCounter);
            let second = assemble(&candidates, &budget, format, &EstimateCounter);
            prop_assert_eq!(&first.as_ref().ok(), &second.as_ref().ok());
            if let Ok(assembly) = first {
                prop_assert!(assembly.tokens <= total);
                prop_assert_eq!(EstimateCounter.count(&assembly.text), assembly.tokens);
                prop_assert_eq!(assembly.manifest.len(), candidates.len());
            }
        }
    }
}
