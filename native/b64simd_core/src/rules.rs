//! OTP's rules where simdutf's differ (WHATWG forgiving-base64 against OTP
//! 26's `base64`), checked once simdutf accepted input, at no cost unless it
//! holds whitespace or ends unpadded; also each alphabet's byte classes, and
//! the trimming of the whitespace around a text.

use crate::error::DecodeError;
use crate::lengths::encoded_len;
use crate::options::{Alphabet, DecodeOptions};

/// Class-table entries at and above `PAD` are not alphabet characters.
pub const PAD: u8 = 64;
pub const WHITESPACE: u8 = 65;
pub const INVALID: u8 = 66;

/// Per alphabet: each byte's sextet value, or `PAD`, `WHITESPACE` or `INVALID`.
pub const fn class_table(alphabet: Alphabet) -> [u8; 256] {
    let mut table = [INVALID; 256];
    let mut i = 0;
    while i < 26 {
        table[b'A' as usize + i] = i as u8;
        table[b'a' as usize + i] = 26 + i as u8;
        i += 1;
    }
    let mut d = 0;
    while d < 10 {
        table[b'0' as usize + d] = 52 + d as u8;
        d += 1;
    }
    if !matches!(alphabet, Alphabet::UrlSafe) {
        table[b'+' as usize] = 62;
        table[b'/' as usize] = 63;
    }
    if !matches!(alphabet, Alphabet::Standard) {
        table[b'-' as usize] = 62;
        table[b'_' as usize] = 63;
    }
    table[b'=' as usize] = PAD;
    table[b'\t' as usize] = WHITESPACE;
    table[b'\n' as usize] = WHITESPACE;
    table[b'\r' as usize] = WHITESPACE;
    table[b' ' as usize] = WHITESPACE;
    table
}

static CLASSES: [[u8; 256]; 3] = [
    class_table(Alphabet::Standard),
    class_table(Alphabet::UrlSafe),
    class_table(Alphabet::Any),
];

/// The class table of an alphabet; see `is_sextet_class`.
pub fn class_table_for(alphabet: Alphabet) -> &'static [u8; 256] {
    &CLASSES[alphabet as usize]
}

/// Whether a class-table entry is an alphabet character (a sextet value).
#[inline]
pub const fn is_sextet_class(class: u8) -> bool {
    class < PAD
}

/// The sextet value of a character of either alphabet.
pub fn sextet(byte: u8) -> Option<u8> {
    let class = CLASSES[Alphabet::Any as usize][byte as usize];
    is_sextet_class(class).then_some(class)
}

/// How many `=` may end a text whose last quantum has `characters` (mod 4).
#[inline]
pub fn pads_allowed(characters: usize) -> usize {
    match characters % 4 {
        2 => 2,
        3 => 1,
        _ => 0,
    }
}

/// The whitespace OTP skips. simdutf also skips `\f`, which OTP rejects.
#[inline]
pub fn is_otp_whitespace(byte: u8) -> bool {
    matches!(byte, b'\t' | b'\n' | b'\r' | b' ')
}

/// `input` without leading and trailing whitespace (a final newline) if `opts` skips it,
/// sparing simdutf's whitespace path and our `\f` check over all of it; same result,
/// as these modes skip such bytes anywhere and no error is at one.
pub fn trimmed(input: &[u8], opts: DecodeOptions) -> std::ops::Range<usize> {
    let whole = 0..input.len();
    let (Some(&first), Some(&last)) = (input.first(), input.last()) else {
        return whole;
    };
    if opts.reject_whitespace || !(is_otp_whitespace(first) || is_otp_whitespace(last)) {
        return whole;
    }
    let start = input
        .iter()
        .position(|&b| !is_otp_whitespace(b))
        .unwrap_or(input.len());
    let end = input
        .iter()
        .rposition(|&b| !is_otp_whitespace(b))
        .map_or(start, |i| i + 1);
    start..end
}

/// Rejects what simdutf skipped in `piece` (at `offset`, decoded to `written`
/// bytes) and OTP does not: `\f`, or under `whitespace => reject` all of `\t \n \f \r` and space.
pub fn check_skipped_bytes(
    piece: &[u8],
    written: usize,
    opts: DecodeOptions,
    offset: usize,
) -> Result<(), DecodeError> {
    if holds_no_whitespace(piece, written) {
        return Ok(());
    }
    let found = if opts.reject_whitespace {
        // The first of the five bytes simdutf skips (an error path only).
        let first_of_three = memchr::memchr3(b'\t', b'\n', b'\r', piece);
        let first_of_two = memchr::memchr2(b' ', b'\x0c', piece);
        first_of_three.into_iter().chain(first_of_two).min()
    } else {
        memchr::memchr(b'\x0c', piece)
    };
    match found {
        Some(index) => Err(DecodeError::InvalidCharacter(offset + index)),
        None => Ok(()),
    }
}

/// Input exactly as long as its output's encoding (with or without `=`) holds no whitespace.
fn holds_no_whitespace(piece: &[u8], written: usize) -> bool {
    let unpadded_len = encoded_len(written, false).unwrap_or(usize::MAX);
    let padded_len = encoded_len(written, true).unwrap_or(usize::MAX);
    piece.len() == unpadded_len
        || (piece.len() == padded_len && piece[unpadded_len..].iter().all(|&b| b == b'='))
}

/// The end-of-input rules simdutf's loose mode skips, for input it decoded to
/// `written` bytes: `=` if padding is required, zero unused bits if `canonical`.
pub fn check_final_quantum(
    input: &[u8],
    written: usize,
    opts: DecodeOptions,
) -> Result<(), DecodeError> {
    if written % 3 == 0 {
        return Ok(());
    }
    // simdutf validated the structure, so the last non-whitespace byte is
    // either `=` (complete padding) or the last significant character.
    let last_byte = input
        .iter()
        .rposition(|&b| !is_otp_whitespace(b))
        .map(|i| input[i]);
    if opts.padding_required && last_byte != Some(b'=') {
        return Err(DecodeError::MissingPadding);
    }
    if opts.canonical {
        let last = input
            .iter()
            .rposition(|&b| b != b'=' && !is_otp_whitespace(b))
            .unwrap_or(0);
        let unused_bits_mask = if written % 3 == 1 { 0xF } else { 0x3 };
        if sextet(input[last]).unwrap_or(0) & unused_bits_mask != 0 {
            return Err(DecodeError::NonCanonical(last));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_only_whitespace_it_skips() {
        let skip = DecodeOptions::DEFAULT;
        let reject = DecodeOptions {
            reject_whitespace: true,
            ..skip
        };
        assert_eq!(trimmed(b" \r\n\t", skip), 4..4);
        assert_eq!(trimmed(b"", skip), 0..0);
        assert_eq!(trimmed(b"\nQQ==\r\n", skip), 1..5);
        assert_eq!(trimmed(b"\nQQ==\r\n", reject), 0..7);
        assert_eq!(trimmed(b"\x0cQQ==\x0c", skip), 0..6, "\\f is no whitespace");
    }

    #[test]
    fn every_byte_has_one_class() {
        for alphabet in [Alphabet::Standard, Alphabet::UrlSafe, Alphabet::Any] {
            let table = class_table_for(alphabet);
            let sextets = table.iter().filter(|&&c| is_sextet_class(c)).count();
            let expected = if alphabet == Alphabet::Any { 66 } else { 64 };
            assert_eq!(sextets, expected, "{alphabet:?}");
            let ws = (0..=255u8).filter(|&b| table[b as usize] == WHITESPACE);
            assert!(ws.eq([b'\t', b'\n', b'\r', b' ']));
        }
    }
}
