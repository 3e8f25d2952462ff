//! Byte offsets into UTF-8 text as character offsets, for bindings that index strings by
//! character (Python) rather than by byte (Rust, C).

/// Converts increasing byte offsets into character offsets in one pass over the text.
///
/// ```text
/// let mut chars = CharCounter::default();
/// chars.at("héllo", 3) == 2; chars.at("héllo", 6) == 5
/// ```
#[derive(Debug, Default)]
pub(crate) struct CharCounter {
    /// The byte offset last asked.
    byte: usize,
    /// Its character offset.
    chars: usize,
}

impl CharCounter {
    /// The character offset of byte offset `at` (a char boundary of `text`, not before the
    /// previous one asked).
    pub(crate) fn at(&mut self, text: &str, at: usize) -> usize {
        self.chars += text[self.byte..at].chars().count();
        self.byte = at;
        self.chars
    }
}

#[cfg(test)]
mod tests {
    use super::CharCounter;

    #[test]
    fn counts_characters_not_bytes() {
        let text = "héllo wörld";
        let mut chars = CharCounter::default();
        assert_eq!(chars.at(text, 0), 0);
        assert_eq!(chars.at(text, 3), 2);
        assert_eq!(chars.at(text, text.len()), 11);
    }
}
