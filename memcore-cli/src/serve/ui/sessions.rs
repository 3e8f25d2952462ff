//! Sessions and compositions: sessions by month with their versions and keepit markers, the
//! composition builder (pick sessions and versions, watch the budget fill), and a
//! composition's page (its components, the composed context, export and delete).

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use memcore::session::{CompositionComponent, SessionListing, SessionRecord, SessionSummary};

use super::layout::{self, Nav};
use super::{Page, PageError, Store, on_store};

/// The budget the builder starts from, in tokens.
const DEFAULT_BUDGET: usize = 8_000;

/// `GET /sessions`: sessions by month (newest first) and the compositions.
pub(super) async fn index(State(memcore): Store) -> Page {
    let listing = on_store(memcore, |memcore| memcore.session_list()).await?;
    let mut months: BTreeMap<String, Vec<&SessionSummary>> = BTreeMap::new();
    for session in &listing.sessions {
        let time = session.first_timestamp.unwrap_or(session.registered_at);
        months.entry(time.format("%Y-%m").to_string()).or_default().push(session);
    }
    let body = html! {
        h1 { "Sessions" }
        @if listing.sessions.is_empty() {
            p { "No sessions yet: " code { "memcore session add TRANSCRIPT" } " registers one." }
        }
        @for (month, sessions) in months.iter().rev() {
            section aria-label=(month) {
                h2 { (month) }
                (month_table(month, sessions))
            }
        }
        (compositions(&listing))
    };
    Ok(layout::page("Sessions", Nav::Sessions, body))
}

/// The sessions of `month` (`2026-11`).
fn month_table(month: &str, sessions: &[&SessionSummary]) -> Markup {
    let headings = ["Session", "Messages", "Tokens", "Versions", "Keepit markers", "First message"];
    layout::table(
        &format!("sessions-{month}"),
        headings,
        sessions.iter().map(|s| {
            [
                html! { a href={ "/sessions/" (s.session_id) } { (s.session_id) } },
                html! { (s.original_messages) },
                html! { (s.original_tokens) },
                html! { (s.versions.join(", ")) },
                html! { (s.keepit_markers) },
                html! { @if let Some(t) = &s.first_timestamp { (layout::when(t)) } },
            ]
        }),
    )
}

/// The compositions of `listing`.
fn compositions(listing: &SessionListing) -> Markup {
    html! {
        h2 { "Compositions" }
        @if listing.compositions.is_empty() {
            p { a href="/compose" { "Compose" } " sessions into one context for a prompt." }
        } @else {
            (layout::table("compositions", ["Composition", "Sessions", "Tokens", "Budget", "Created"], listing.compositions.iter().map(|c| [
                html! { a href={ "/compositions/" (c.name) } { (c.name) } },
                html! { (c.components.len()) },
                html! { (c.total_tokens) },
                html! { (c.token_budget) },
                html! { (layout::when(&c.created_at)) },
            ])))
        }
    }
}

/// `GET /sessions/{session}`: a session's versions and keepit markers.
pub(super) async fn page(State(memcore): Store, Path(session): Path<String>) -> Page {
    let record = on_store(memcore, move |memcore| memcore.session_show(&session)).await?;
    let body = html! {
        h1 { "Session " (record.session_id) }
        dl.meta {
            dt { "Messages" } dd { (record.original_messages) }
            dt { "Tokens" } dd { (record.original_tokens) }
            @if let Some(t) = &record.first_timestamp { dt { "First message" } dd { (layout::when(t)) } }
            @if let Some(t) = &record.last_timestamp { dt { "Last message" } dd { (layout::when(t)) } }
            dt { "Registered" } dd { (layout::when(&record.registered_at)) }
        }
        p { a href={ "/sessions/" (record.session_id) "/versions/original" } { "Read the original transcript" } }
        h2 { "Compression versions" }
        @if record.compressions.is_empty() {
            p { "None yet: " code { "memcore session compress " (record.session_id) } " makes one." }
        } @else {
            (versions(&record))
        }
        h2 { "Keepit markers" }
        @if record.keepit_markers.is_empty() { p { "None." } }
        @for marker in &record.keepit_markers {
            article.marker {
                p { strong.weight { (format!("{:.2}", marker.weight)) } " " (marker.content) }
                @if !marker.survived_in.is_empty() { p.small { "Kept in " (marker.survived_in.join(", ")) } }
                @if !marker.summarized_in.is_empty() { p.small { "Summarised in " (marker.summarized_in.join(", ")) } }
            }
        }
    };
    Ok(layout::page(&format!("Session {}", record.session_id), Nav::Sessions, body))
}

/// The compression versions of `session`.
fn versions(session: &SessionRecord) -> Markup {
    let headings = ["Version", "Tokens", "Ratio", "Keepits kept", "From", "Created"];
    let id = &session.session_id;
    layout::table(
        "versions",
        headings,
        session.compressions.iter().map(|v| {
            let stats = &v.keepit_stats;
            [
                html! { a href={ "/sessions/" (id) "/versions/" (v.version_id) } { (v.version_id) } },
                html! { (v.output_tokens) },
                html! { (format!("{:.1}:1", v.compression_ratio)) },
                html! { (stats.preserved) " of " (stats.preserved + stats.summarized) },
                html! { (v.source_version.as_deref().unwrap_or("original")) },
                html! { (layout::when(&v.created_at)) },
            ]
        }),
    )
}

/// `GET /sessions/{session}/versions/{version}`: a version's text (`original`: the
/// transcript).
pub(super) async fn version(
    State(memcore): Store,
    Path((session, version)): Path<(String, String)>,
) -> Page {
    let content = {
        let (session, version) = (session.clone(), version.clone());
        on_store(memcore, move |memcore| memcore.session_version(&session, &version)).await?
    };
    let title = format!("Session {session}, {version}");
    let body = html! {
        h1 { (title) }
        p { a href={ "/sessions/" (session) } { "Back to the session" } }
        @if let Some(v) = &content.version {
            p { (v.output_tokens) " tokens, " (format!("{:.1}:1", v.compression_ratio)) ", made " (layout::when(&v.created_at)) }
        }
        pre #version-text tabindex="0" { (content.content) }
    };
    Ok(layout::page(&title, Nav::Sessions, body))
}

/// `GET /compose`: the composition builder. Each session, newest first, can be included at
/// a version (or the one chosen by score); `ui.js` fills the budget bar as choices change
/// and posts the composition to the API.
pub(super) async fn builder(State(memcore): Store) -> Page {
    let shown: Vec<memcore::Result<SessionRecord>> = on_store(memcore, |memcore| {
        let listing = memcore.session_list()?;
        Ok(listing.sessions.iter().map(|s| memcore.session_show(&s.session_id)).collect())
    })
    .await?;
    // A session that cannot be read is shown with the reason, not a reason to fail the page.
    let mut sessions = Vec::with_capacity(shown.len());
    let mut unreadable = Vec::new();
    for session in shown {
        match session {
            Ok(session) => sessions.push(session),
            Err(err) => unreadable.push(err),
        }
    }
    sessions.sort_by_key(|session| std::cmp::Reverse(session.last_timestamp));
    let body = html! {
        h1 { "Compose" }
        @for err in &unreadable { p.warning role="status" { "Not offered: " (err) } }
        @if sessions.is_empty() {
            p { "No sessions to compose: " code { "memcore session add TRANSCRIPT" } " registers one." }
        } @else {
            form #composer {
                label for="name" { "Name" }
                input #name type="text" name="name" required pattern="[a-z0-9][a-z0-9._-]*" value="composed" aria-describedby="name-rule";
                p #name-rule .small { "Lower-case letters, digits, '.', '_' and '-'." }
                label for="budget" { "Token budget" }
                input #budget type="number" name="budget" min="100" step="100" value=(DEFAULT_BUDGET);
                (layout::budget_bar(0, DEFAULT_BUDGET))
                fieldset {
                    legend { "Sessions, newest first" }
                    @for (place, session) in sessions.iter().enumerate() {
                        (component(place, session))
                    }
                }
                div.actions {
                    button type="submit" { "Compose and preview" }
                    output #compose-status role="status" aria-live="polite" {}
                }
            }
        }
    };
    Ok(layout::page("Compose", Nav::Compose, body))
}

/// One session of the builder: a checkbox and its versions, each with its tokens.
fn component(place: usize, session: &SessionRecord) -> Markup {
    let id = &session.session_id;
    html! {
        div.component data-session=(id) data-original=(session.original_tokens) {
            input id={ "use-" (place) } type="checkbox" name="use" checked[place == 0];
            label for={ "use-" (place) } {
                (id) " · " (session.original_messages) " messages"
                @if let Some(t) = &session.last_timestamp { " · " (layout::when(t)) }
            }
            label.visually-hidden for={ "version-" (place) } { "Version of " (id) }
            select id={ "version-" (place) } name="version" {
                option value="" data-tokens="auto" { "chosen by score" }
                option value="original" data-tokens=(session.original_tokens) { "original (" (session.original_tokens) " tokens)" }
                @for v in &session.compressions {
                    option value=(v.version_id) data-tokens=(v.output_tokens) { (v.version_id) " (" (v.output_tokens) " tokens)" }
                }
            }
        }
    }
}

/// `GET /compositions/{name}`: a composition, its components and the context it composed.
pub(super) async fn composition(State(memcore): Store, Path(name): Path<String>) -> Page {
    let composed = on_store(memcore, move |memcore| memcore.session_composition(&name)).await?;
    let record = &composed.composition;
    let body = html! {
        h1 { "Composition " (record.name) }
        (layout::budget_bar(record.total_tokens, record.token_budget))
        @for warning in &record.warnings { p.warning role="status" { (warning) } }
        (components(&record.components))
        div.actions {
            a.button href={ "/compositions/" (record.name) "/export" } download { "Export" }
            button type="button" #delete-composition data-name=(record.name) { "Delete" }
            output #composition-status role="status" aria-live="polite" {}
        }
        h2 { "Composed context" }
        pre #composed tabindex="0" { (composed.context) }
    };
    Ok(layout::page(&format!("Composition {}", record.name), Nav::Compose, body))
}

/// The sessions of a composition, in order.
fn components(components: &[CompositionComponent]) -> Markup {
    let headings = ["Order", "Session", "Version", "Tokens", "Share of budget", "Chosen"];
    layout::table(
        "components",
        headings,
        components.iter().map(|c| {
            [
                html! { (c.order + 1) },
                html! { a href={ "/sessions/" (c.session_id) } { (c.session_id) } },
                html! { (c.version_id) },
                html! { (c.token_contribution) },
                html! { (c.token_budget) },
                html! { (c.selection) },
            ]
        }),
    )
}

/// `GET /compositions/{name}/export`: the composed context as a file to save.
pub(super) async fn export(
    State(memcore): Store,
    Path(name): Path<String>,
) -> Result<Response, PageError> {
    let composed = {
        let name = name.clone();
        on_store(memcore, move |memcore| memcore.session_composition(&name)).await?
    };
    let (kind, extension) = match composed.composition.context_file() {
        "composed.jsonl" => ("application/jsonl; charset=utf-8", "jsonl"),
        _ => ("text/markdown; charset=utf-8", "md"),
    };
    // The name the library accepted: letters, digits, '.', '_' and '-' only.
    let disposition = format!("attachment; filename=\"{name}.{extension}\"");
    let headers =
        [(header::CONTENT_TYPE, kind.to_owned()), (header::CONTENT_DISPOSITION, disposition)];
    Ok((headers, composed.context).into_response())
}
