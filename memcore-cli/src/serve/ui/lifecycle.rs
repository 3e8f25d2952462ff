//! The lifecycle plan: what a run would archive, tombstone or delete, judged now or some days
//! from now (a dry run: nothing changes).

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use maud::{Markup, html};
use memcore::decay::{LifecycleOptions, LifecycleStep};
use serde::Deserialize;

use super::layout::{self, Nav};
use super::{Page, Store, on_store, parameters};
use crate::output::serde_name;

/// The plan's query: judge ages this many days from now.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct PlanQuery {
    /// Days from now to judge ages at (0: now).
    days: u32,
}

/// `GET /lifecycle?days=N`: the plan of a dry run, `days` from now.
pub(super) async fn plan(
    State(memcore): Store,
    query: Result<Query<PlanQuery>, QueryRejection>,
) -> Page {
    let days = parameters(query)?.days.min(36_500);
    let report = on_store(memcore, move |memcore| {
        let mut options = LifecycleOptions::new().dry_run(true);
        if days > 0 {
            options = options.now(memcore::now() + chrono::TimeDelta::days(i64::from(days)));
        }
        memcore.process_lifecycle(&options)
    })
    .await?;
    let stats = &report.stats;
    let body = html! {
        h1 { "Lifecycle plan" }
        form.search action="/lifecycle" method="get" {
            label for="days" { "Judge ages this many days from now" }
            input #days type="number" name="days" min="0" max="36500" value=(days);
            button type="submit" { "Plan" }
        }
        p role="status" {
            "A dry run at " (layout::when(&report.now)) " over " (stats.scanned) " memories would archive "
            (stats.archived) ", tombstone " (stats.tombstoned) " and delete " (stats.deleted)
            " (to the trash); nothing has changed. " code { "memcore lifecycle" } " carries it out."
        }
        @for error in &report.errors { p.warning { (error) } }
        @if !report.steps.is_empty() { (steps(&report.steps)) }
    };
    Ok(layout::page("Lifecycle plan", Nav::Lifecycle, body))
}

/// The steps of a plan: each memory, what would happen to it, and why.
fn steps(steps: &[LifecycleStep]) -> Markup {
    let headings = ["Memory", "Action", "From", "To", "Why", "Age (days)", "Relevance"];
    layout::table(
        "plan",
        headings,
        steps.iter().map(|step| {
            [
                html! { a href={ "/memories/" (step.reference) } { (step.reference) } },
                html! { (serde_name(&step.action)) },
                html! { (step.from) },
                html! { @if let Some(to) = step.to { (to) } @else { "trash" } },
                html! { (step.reason) },
                html! { (format!("{:.0}", step.age_days)) },
                html! { (format!("{:.2}", step.relevance)) },
            ]
        }),
    )
}
