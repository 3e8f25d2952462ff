//! Small text utilities the engines share: character offsets of byte offsets, word-aligned
//! windows around a match, sentences, one-line summaries and how much of a text asks. Everything counts characters,
//! so any UTF-8 text is cut on character boundaries.

mod chars;
mod questions;
mod window;

pub(crate) use chars::CharCounter;
pub(crate) use questions::question_share;
pub(crate) use window::{Window, extract, one_line, sentence_around, shorten};
