//! Words of a search that name an author of the store. "What does Melanie do to destress?"
//! asks about what Melanie said: on LoCoMo, 96% of the turns that answer a question naming
//! one speaker are by that speaker, and 2% name them. A turn by someone else that names them
//! mostly talks to them ("Thanks, Melanie!"), yet matched the name as strongly as her own
//! turns did, and took a fifth of the first five places.

use std::borrow::Cow;
use std::collections::HashSet;

use tantivy::query::{BooleanQuery, TermSetQuery};
use tantivy::tokenizer::TokenStream;
use tantivy::{Searcher, Term};

use super::TextIndex;
use super::errors::guarded;
use crate::{MemoryRef, Result};

/// How much a name the search gives counts on the author field (`created_by`), relative to
/// a word of the content.
const AS_AUTHOR: f32 = 3.0;

/// How much that name counts in the content: memories that mention the person are still
/// found, below those by them.
const IN_CONTENT: f32 = 0.3;

/// A word of a search that names an author of the store.
struct Named {
    /// Where the word starts in the text, in bytes.
    at: usize,
    /// The word as written (a trailing possessive or punctuation included).
    word_len: usize,
    /// The name in it.
    name_len: usize,
    /// The name's term in the author field.
    term: String,
}

impl TextIndex {
    /// The terms of the authors of the store that `text` names (see
    /// [`TextIndex::with_authors_named`]), in the order named, without repeats.
    pub(crate) fn authors_named(&self, text: &str) -> Result<Vec<String>> {
        guarded(&self.dir, || {
            let mut terms: Vec<String> = Vec::new();
            for named in self.names_in(&self.reader.searcher(), text) {
                if !terms.contains(&named.term) {
                    terms.push(named.term);
                }
            }
            Ok(terms)
        })
    }

    /// `text` with every word that names an author of the store searched as
    /// `(author:Name^3 content:Name^0.3)` instead of in every field at the content's weight.
    /// A name is a capitalised word outside quotes (a possessive `'s` or punctuation may
    /// follow it) whose analysed form is a term of the author field. Unchanged when there is
    /// none, or when the author field cannot be read (the search then ranks as before).
    pub(super) fn with_authors_named<'t>(
        &self,
        searcher: &Searcher,
        text: &'t str,
    ) -> Cow<'t, str> {
        let names = self.names_in(searcher, text);
        if names.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len() + 32 * names.len());
        let mut copied = 0;
        for named in names {
            let name = &text[named.at..named.at + named.name_len];
            out.push_str(&text[copied..named.at]);
            out.push_str(&format!("(author:{name}^{AS_AUTHOR} content:{name}^{IN_CONTENT})"));
            copied = named.at + named.word_len;
        }
        out.push_str(&text[copied..]);
        Cow::Owned(out)
    }

    /// The words of `text` that name an author of the store; none when the author field
    /// cannot be read.
    fn names_in(&self, searcher: &Searcher, text: &str) -> Vec<Named> {
        let Ok(mut analyzer) = self.index.tokenizer_for_field(self.fields.author) else {
            return Vec::new();
        };
        let mut author_term = |name: &str| {
            let mut tokens = Vec::new();
            analyzer.token_stream(name).process(&mut |token| tokens.push(token.text.clone()));
            let [token] = tokens.as_slice() else { return None };
            let term = Term::from_field_text(self.fields.author, token);
            searcher.doc_freq(&term).is_ok_and(|count| count > 0).then(|| token.clone())
        };
        let mut names = Vec::new();
        let (mut at, mut quoted) = (0, false);
        for piece in text.split_inclusive(char::is_whitespace) {
            let word = piece.trim_end_matches(char::is_whitespace);
            if let Some(name) = name_in(word).filter(|_| !quoted)
                && let Some(term) = author_term(name)
            {
                names.push(Named { at, word_len: word.len(), name_len: name.len(), term });
            }
            quoted ^= word.matches('"').count() % 2 == 1;
            at += piece.len();
        }
        names
    }

    /// Those of `keys` whose author (`created_by`) has one of `terms` ([`TextIndex::authors_named`]).
    pub(crate) fn keys_by(
        &self,
        keys: &[MemoryRef],
        terms: &[String],
    ) -> Result<HashSet<MemoryRef>> {
        let keys = keys.iter().map(|key| Term::from_field_text(self.fields.key, &key.to_string()));
        let authors = terms.iter().map(|term| Term::from_field_text(self.fields.author, term));
        let query = BooleanQuery::intersection(vec![
            Box::new(TermSetQuery::new(keys)),
            Box::new(TermSetQuery::new(authors)),
        ]);
        Ok(self.collect(&query)?.into_iter().map(|(key, _)| key).collect())
    }
}

/// The name `word` may be: its letters and digits when it starts with a capital letter and
/// ends with nothing but punctuation or a possessive `'s`.
fn name_in(word: &str) -> Option<&str> {
    let end = word.find(|c: char| !c.is_alphanumeric()).unwrap_or(word.len());
    let (name, rest) = word.split_at(end);
    let capitalised = name.chars().next().is_some_and(char::is_uppercase);
    let possessive = ["'s", "\u{2019}s"].iter().find_map(|s| rest.strip_prefix(s));
    let tail = possessive.unwrap_or(rest);
    let punctuation = tail.chars().all(|c| matches!(c, '.' | ',' | ';' | '!' | '?' | ')'));
    (capitalised && name.chars().count() > 1 && punctuation).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::name_in;

    #[test]
    fn a_capitalised_word_with_punctuation_or_a_possessive_may_be_a_name() {
        assert_eq!(name_in("Melanie"), Some("Melanie"));
        assert_eq!(name_in("Melanie's"), Some("Melanie"));
        assert_eq!(name_in("Melanie\u{2019}s"), Some("Melanie"));
        assert_eq!(name_in("Caroline?"), Some("Caroline"));
        assert_eq!(name_in("Tim,"), Some("Tim"));
    }

    #[test]
    fn query_syntax_and_lower_case_words_are_left_alone() {
        assert_eq!(name_in("melanie"), None);
        assert_eq!(name_in("author:Melanie"), None);
        assert_eq!(name_in("Jon-Paul"), None);
        assert_eq!(name_in("Melanie^2"), None);
        assert_eq!(name_in("\"Melanie"), None);
        assert_eq!(name_in("I"), None);
        assert_eq!(name_in("+Melanie"), None);
    }
}
