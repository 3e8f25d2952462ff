//! How much of a text asks rather than tells.

/// The share of `text`'s words (runs of non-space holding a letter or digit) that are in
/// questions: sentences (ended by `.`, `!`, `?` or a line break) whose last mark is a question
/// mark. `0.0` for a text without words.
///
/// A conversation turn that only asks ("How often do you all work out together?") repeats
/// the words of a later search without holding its answer; search weighs such a turn's own
/// score down by this share (`crate::search`).
///
/// ```text
/// question_share("Three times a week.")                 == 0.0
/// question_share("How often do you work out?")           == 1.0
/// question_share("I got a cat. Do you have one?")        == 0.5   (4 of 8 words)
/// ```
pub(crate) fn question_share(text: &str) -> f64 {
    let (mut words, mut asked) = (0usize, 0usize);
    for sentence in text.split_inclusive(['.', '!', '?', '\n']) {
        let count =
            sentence.split_whitespace().filter(|w| w.chars().any(char::is_alphanumeric)).count();
        words += count;
        if sentence.trim_end().ends_with('?') {
            asked += count;
        }
    }
    match words {
        0 => 0.0,
        _ => asked as f64 / words as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::question_share;

    #[test]
    fn a_statement_asks_nothing_and_a_question_asks_everything() {
        assert_eq!(question_share("Three times a week; it keeps us on track."), 0.0);
        assert_eq!(question_share("How often do you all work out together?"), 1.0);
        assert_eq!(question_share(""), 0.0);
        assert_eq!(question_share("  \n "), 0.0);
    }

    #[test]
    fn a_turn_that_tells_then_asks_is_counted_by_its_words() {
        assert_eq!(question_share("I got a cat. Do you have one?"), 0.5);
        assert_eq!(question_share("Really?! No way.\nWhy not?"), 0.6);
    }
}
