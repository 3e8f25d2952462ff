//! The page shell (head, skip link, navigation) and the small helpers pages share.

use maud::{DOCTYPE, Markup, html};
use memcore::Timestamp;

/// The section of the browser a page belongs to, marked in the navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::serve) enum Nav {
    /// Memories: the listing, search and each memory.
    Memories,
    /// Sessions and their versions.
    Sessions,
    /// The composition builder and compositions.
    Compose,
    /// The lifecycle plan.
    Lifecycle,
    /// An error page: no section.
    None,
}

/// The sections, with their paths and names, in navigation order.
const SECTIONS: [(Nav, &str, &str); 4] = [
    (Nav::Memories, "/", "Memories"),
    (Nav::Sessions, "/sessions", "Sessions"),
    (Nav::Compose, "/compose", "Compose"),
    (Nav::Lifecycle, "/lifecycle", "Lifecycle"),
];

/// A whole page titled `title` in section `nav`, around `body`.
pub(in crate::serve) fn page(title: &str, nav: Nav, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · memcore" }
                link rel="stylesheet" href="/assets/ui.css";
                script src="/assets/ui.js" defer {}
            }
            body {
                a.skip href="#main" { "Skip to content" }
                header {
                    a.brand href="/" { "memcore" }
                    nav aria-label="Sections" {
                        @for (section, path, name) in SECTIONS {
                            a href=(path) aria-current=[(section == nav).then_some("page")] {
                                (name)
                            }
                        }
                    }
                }
                main #main { (body) }
            }
        }
    }
}

/// `time` as `2026-11-28 09:30` (UTC).
pub(super) fn when(time: &Timestamp) -> String {
    time.format("%Y-%m-%d %H:%M").to_string()
}

/// A table (`id`) that scrolls sideways on a narrow window: a heading per column, then one
/// row of cells per item of `rows`.
pub(super) fn table<const COLUMNS: usize>(
    id: &str,
    headings: [&str; COLUMNS],
    rows: impl IntoIterator<Item = [Markup; COLUMNS]>,
) -> Markup {
    html! {
        div.scroll {
            table id=(id) {
                thead { tr { @for heading in headings { th scope="col" { (heading) } } } }
                tbody { @for row in rows { tr { @for cell in row { td { (cell) } } } } }
            }
        }
    }
}

/// A bar of `used` out of `budget` tokens, with the numbers in words beside it.
pub(super) fn budget_bar(used: usize, budget: usize) -> Markup {
    let over = used > budget;
    html! {
        div.budget {
            progress #budget-fill max=(budget.max(1)) value=(used.min(budget))
                aria-label="Tokens used of the budget" {}
            output #budget-text .over[over] {
                (used) " / " (budget) " tokens"
                @if over { " (over budget)" }
            }
        }
    }
}
