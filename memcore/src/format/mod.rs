//! Reading and writing memories as text: the frontmatter file format and the `context`,
//! `json` and `raw` renderings.

pub(crate) mod frontmatter;
mod markdown;
mod render;

pub use frontmatter::parse_timestamp;
pub(crate) use markdown::{code_ranges, derive_title, first_heading, in_ranges};
pub use render::Format;
