//! Memories: the index (a listing, or search results), and a memory's page with its editor,
//! links, backlinks and keepit markers with the decay preview.

use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query};
use maud::{Markup, html};
use memcore::decay::{KeepitLevel, KeepitPreview, KeepitPreviewRequest, KeepitSource};
use memcore::links::LinkEdge;
use memcore::{ListOptions, Memory, MemoryRef, MemorySummary, SearchMode};
use serde::Deserialize;

use super::layout::{self, Nav};
use super::{Page, Store, on_store, parameters};
use crate::output::serde_name;

/// Memories listed per page.
const PAGE_SIZE: usize = 50;
/// Search hits shown.
const HITS: usize = 20;
/// The compression ratios the decay preview offers (seed 004's examples).
const RATIOS: [u32; 4] = [10, 30, 50, 100];

/// The index's query: a search when `q` is given, else a listing.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct IndexQuery {
    /// What to search for; a listing when empty.
    q: String,
    /// How to rank the hits (hybrid by default).
    mode: Option<SearchMode>,
    /// Only this collection; all when empty.
    collection: String,
    /// The listing's page, as the memories skipped.
    offset: usize,
}

/// `GET /`: the memories of a collection, or the hits of a search.
pub(super) async fn index(
    axum::extract::State(memcore): Store,
    query: Result<Query<IndexQuery>, QueryRejection>,
) -> Page {
    let IndexQuery { q, mode, collection, offset } = parameters(query)?;
    let collection = Some(collection).filter(|c| !c.is_empty());
    let mode = mode.unwrap_or_default();
    let (collections, found) = on_store(memcore, {
        let (q, collection) = (q.clone(), collection.clone());
        move |memcore| {
            let collections = memcore.collections()?;
            let found = if q.trim().is_empty() {
                let mut options = ListOptions::new().offset(offset).limit(PAGE_SIZE + 1);
                if let Some(collection) = collection {
                    options = options.collection(collection);
                }
                let mut memories = memcore.list(&options)?.memories;
                let more = memories.len() > PAGE_SIZE;
                memories.truncate(PAGE_SIZE);
                Found::Listed { memories, more }
            } else {
                let mut query = memcore::Query::new(q).mode(mode).limit(HITS);
                if let Some(collection) = collection {
                    query = query.collection(collection);
                }
                Found::Hits(memcore.search(&query)?)
            };
            Ok((collections, found))
        }
    })
    .await?;
    let body = html! {
        h1 { "Memories" }
        form.search role="search" action="/" method="get" {
            label for="q" { "Search" }
            input #q type="search" name="q" value=(q) placeholder="what are you looking for?";
            label for="mode" { "Ranking" }
            select #mode name="mode" {
                @for choice in [SearchMode::Hybrid, SearchMode::Text, SearchMode::Semantic] {
                    option value=(choice.as_str()) selected[choice == mode] { (choice.as_str()) }
                }
            }
            label for="collection" { "Collection" }
            select #collection name="collection" {
                option value="" { "all" }
                @for c in &collections {
                    option selected[collection.as_deref() == Some(c.as_str())] { (c.as_str()) }
                }
            }
            button type="submit" { "Search" }
        }
        @match found {
            Found::Hits(results) => {
                @for warning in &results.warnings { p.warning role="status" { (warning) } }
                p { (results.hits.len()) " hits (" (results.mode.as_str()) ") for " q { (q) } }
                (summaries(results.hits.iter().map(|hit| (&hit.memory, Some(hit.score)))))
            }
            Found::Listed { memories, more } => {
                @if memories.is_empty() && offset == 0 {
                    p { "No memories yet: " code { "memcore put" } " stores one." }
                } @else {
                    (summaries(memories.iter().map(|memory| (memory, None))))
                }
                nav.pages aria-label="Pages" {
                    @let at = collection.as_deref().map(|c| format!("&collection={c}")).unwrap_or_default();
                    @if offset > 0 {
                        a href={ "/?offset=" (offset.saturating_sub(PAGE_SIZE)) (at) } { "Previous" }
                    }
                    @if more {
                        a href={ "/?offset=" (offset + PAGE_SIZE) (at) } { "Next" }
                    }
                }
            }
        }
    };
    Ok(layout::page("Memories", Nav::Memories, body))
}

/// What the index shows.
enum Found {
    /// A page of the listing, and whether there is a next one.
    Listed {
        /// The page's memories.
        memories: Vec<MemorySummary>,
        /// Whether more follow.
        more: bool,
    },
    /// Search results.
    Hits(memcore::SearchResults),
}

/// A table of memories, each with its score when it is a hit.
fn summaries<'a>(rows: impl Iterator<Item = (&'a MemorySummary, Option<f64>)>) -> Markup {
    let headings = ["Title", "Memory", "Status", "Tags", "Updated", "Score"];
    layout::table(
        "memories",
        headings,
        rows.map(|(memory, score)| {
            [
                html! { a href={ "/memories/" (memory.reference) } { (memory.title) } },
                html! { code { (memory.reference) } },
                html! { (memory.status) },
                html! { (memory.tags.join(", ")) },
                html! { (layout::when(&memory.updated_at)) },
                html! { @if let Some(score) = score { (format!("{score:.3}")) } },
            ]
        }),
    )
}

/// A memory page's query: the decay preview's ratio.
#[derive(Debug, Deserialize)]
pub(super) struct PageQuery {
    /// The compression ratio of the decay preview (30 for 30:1).
    #[serde(default = "default_ratio")]
    ratio: u32,
}

/// The decay preview's ratio when the page does not name one: seed 004's example, 30:1.
fn default_ratio() -> u32 {
    30
}

/// What a memory's page shows.
struct MemoryView {
    /// The memory.
    memory: Memory,
    /// Its links.
    links: Vec<LinkEdge>,
    /// The links into it.
    backlinks: Vec<LinkEdge>,
    /// Its keepit markers' decay preview.
    preview: KeepitPreview,
}

/// `GET /memories/{collection}/{id}?ratio=30`: a memory, its editor, links, backlinks and
/// keepit markers.
pub(super) async fn page(
    axum::extract::State(memcore): Store,
    Path((collection, id)): Path<(String, String)>,
    query: Result<Query<PageQuery>, QueryRejection>,
) -> Page {
    let ratio = parameters(query)?.ratio.max(1);
    let view = on_store(memcore, move |memcore| {
        let reference = MemoryRef::parse_parts(&id, Some(&collection))?;
        let memory = memcore.get(reference.clone())?;
        let links = memcore.links(reference.clone())?;
        let backlinks = memcore.backlinks(&reference.to_string())?;
        let source = KeepitSource::memory(reference);
        let preview =
            memcore.keepit_preview(&KeepitPreviewRequest::new(source, f64::from(ratio)))?;
        Ok(MemoryView { memory, links, backlinks, preview })
    })
    .await?;
    let memory = &view.memory;
    let reference = memory.reference();
    let body = html! {
        h1 #title-heading { (memory.title) }
        dl #meta .meta {
            dt { "Memory" } dd { code { (reference) } }
            dt { "Status" } dd { (memory.status) }
            dt { "Version" } dd #version { (memory.version) }
            dt { "Created" } dd { (layout::when(&memory.created_at)) @if let Some(by) = &memory.created_by { " by " (by) } }
            dt { "Updated" } dd { (layout::when(&memory.updated_at)) }
            @if !memory.tags.is_empty() { dt { "Tags" } dd { (memory.tags.join(", ")) } }
        }
        (editor(memory))
        (link_tables(&view.links, &view.backlinks))
        (keepits(&reference, &view.preview, ratio))
    };
    Ok(layout::page(&memory.title, Nav::Memories, body))
}

/// The edit form: title, tags and content, saved by `ui.js` as a `PATCH` with the version
/// it was read at (a save over someone else's is refused, not lost).
fn editor(memory: &Memory) -> Markup {
    html! {
        section aria-labelledby="edit-heading" {
            h2 #edit-heading { "Edit" }
            form #editor data-ref=(memory.reference()) {
                input type="hidden" name="expected_version" value=(memory.version);
                label for="title" { "Title" }
                input #title type="text" name="title" value=(memory.title) required;
                label for="tags" { "Tags (comma-separated)" }
                input #tags type="text" name="tags" value=(memory.tags.join(", "));
                label for="content" { "Content (markdown)" }
                textarea #content name="content" rows="12" { (memory.content) }
                div.actions {
                    button type="submit" { "Save" }
                    output #save-status role="status" aria-live="polite" {}
                }
            }
        }
    }
}

/// The links out of a memory and into it.
fn link_tables(links: &[LinkEdge], backlinks: &[LinkEdge]) -> Markup {
    html! {
        section #links aria-labelledby="links-heading" {
            h2 #links-heading { "Links" }
            @if links.is_empty() { p { "No links: write " code { "[[collection/id]]" } " in the content to add one." } }
            @else { (edges("links-out", links, |edge| edge.node.clone(), "To")) }
            h2 { "Backlinks" }
            @if backlinks.is_empty() { p { "Nothing links here." } }
            @else { (edges("links-in", backlinks, |edge| edge.source.to_string(), "From")) }
        }
    }
}

/// A table (`id`) of link edges, naming each edge's `end` (a memory, linked, or a ghost
/// node) under `heading`.
fn edges(id: &str, edges: &[LinkEdge], end: impl Fn(&LinkEdge) -> String, heading: &str) -> Markup {
    layout::table(
        id,
        [heading, "Type", "Context"],
        edges.iter().map(|edge| {
            let node = end(edge);
            [
                html! {
                    @if node.starts_with("ghost:") { code { (node) } }
                    @else { a href={ "/memories/" (node) } { (node) } }
                },
                html! { (edge.edge_type) },
                html! { (edge.anchor) },
            ]
        }),
    )
}

/// The keepit markers with weight presets, and which survive a compression at `ratio`:1 at
/// each session distance.
fn keepits(reference: &MemoryRef, preview: &KeepitPreview, ratio: u32) -> Markup {
    html! {
        section #keepits aria-labelledby="keepits-heading" data-ref=(reference) {
            h2 #keepits-heading { "Keepit markers" }
            @if preview.markers.is_empty() {
                p { "No markers: write " code { "##keepit0.80##" } " before text that should outlive compression." }
            } @else {
                form.ratio action={ "/memories/" (reference) } method="get" {
                    label for="ratio" { "Compression ratio" }
                    select #ratio name="ratio" {
                        @for choice in RATIOS {
                            option value=(choice) selected[choice == ratio] { (choice) ":1" }
                        }
                    }
                    button type="submit" { "Preview" }
                }
                @for marker in &preview.markers {
                    @let m = &marker.marker;
                    article.marker data-index=(m.index) {
                        p.marked { (m.content) }
                        p {
                            "Weight " strong.weight { (format!("{:.2}", m.weight)) }
                            @if let Some(level) = m.level { " (" (serde_name(&level)) ")" }
                            ": survives " strong.survives { (marker.survives_through) } " of "
                            (preview.max_distance) " sessions back"
                        }
                        div.presets role="group" aria-label={ "Weight of marker " (m.index + 1) } {
                            @for level in KeepitLevel::ALL {
                                button type="button" data-weight=(level.weight())
                                    aria-pressed=((m.weight == level.weight()).to_string()) {
                                    (serde_name(&level)) " " (format!("{:.2}", level.weight()))
                                }
                            }
                        }
                    }
                }
                (decay_table(preview))
                output #keepit-status role="status" aria-live="polite" {}
            }
        }
    }
}

/// The decay preview: one row per marker, one column per session distance.
fn decay_table(preview: &KeepitPreview) -> Markup {
    html! {
        div.scroll {
            table #decay {
                caption { "At " (preview.ratio) ":1 (" (serde_name(&preview.aggressiveness)) "): kept ✓ or summarised · at each distance" }
                thead {
                    tr {
                        th scope="col" { "Marker" }
                        @for t in &preview.thresholds { th scope="col" title={ "needs " (format!("{:.2}", t.threshold)) } { (t.distance) } }
                    }
                }
                tbody {
                    @for marker in &preview.markers {
                        tr {
                            th scope="row" { (marker.marker.index + 1) " (" (format!("{:.2}", marker.marker.weight)) ")" }
                            @for kept in &marker.survives {
                                @if *kept { td.kept { "✓" } } @else { td.lost { "·" } }
                            }
                        }
                    }
                }
            }
        }
    }
}
