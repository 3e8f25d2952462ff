//! Lower-case hexadecimal text of bytes (digests in ids, index entries and checksums).

/// `bytes` as lower-case hex, two digits per byte.
///
/// ```text
/// hex(&[0x0f, 0xa0]) == "0fa0"
/// ```
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(char::from(DIGITS[usize::from(byte >> 4)]));
        text.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    text
}

/// The SHA-256 of `bytes`, as lower-case hex (content hashes of archives, transcripts and
/// documents).
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&<sha2::Sha256 as sha2::Digest>::digest(bytes))
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_lower_case_digits_per_byte() {
        assert_eq!(super::hex(&[0x0f, 0xa0, 0x00, 0xff]), "0fa000ff");
        assert_eq!(super::hex(&[]), "");
    }
}
