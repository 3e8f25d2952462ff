//! Small text utilities the engines share: character offsets of byte offsets, word-aligned
//! windows around a match, sentences and one-line summaries. Everything counts characters,
//! so any UTF-8 text is cut on character boundaries.

mod chars;
mod window;

pub(crate) use chars::CharCounter;
pub(crate) use window::{Window, extract, one_line, sentence_around, shorten};
