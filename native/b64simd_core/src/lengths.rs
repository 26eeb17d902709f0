//! Base64's lengths, plain or in lines, and the most a text decodes to:
//! every encoder and decoder sizes its output by these.

use crate::options::Lines;

/// Length of the Base64 encoding of `len` bytes, or `None` if it overflows.
pub fn encoded_len(len: usize, padding: bool) -> Option<usize> {
    let full = (len / 3).checked_mul(4)?;
    let tail = match (len % 3, padding) {
        (0, _) => 0,
        (_, true) => 4,
        (1, false) => 2,
        (_, false) => 3,
    };
    full.checked_add(tail)
}

/// Length of `len` bytes encoded in `lines` after a last line of `column`
/// characters (at most a line; 0 for a new text), a break before each
/// character that finds the line full. `None` on overflow or line length 0.
pub fn wrapped_len(len: usize, padding: bool, lines: Lines, column: usize) -> Option<usize> {
    let text = encoded_len(len, padding)?;
    if lines.length == 0 || column > lines.length {
        return None;
    }
    let breaks = column.checked_add(text)?.saturating_sub(1) / lines.length;
    breaks
        .checked_mul(lines.line_break.bytes().len())?
        .checked_add(text)
}

/// An upper bound on the decoded length of any `len` bytes (all significant).
pub fn maximal_decoded_len(len: usize) -> usize {
    (len / 4) * 3 + (len % 4).saturating_sub(1)
}

/// An upper bound on this input's decoded length, all but its final `=` (at most two)
/// significant: exact without whitespace, so decode never shrinks its output.
/// simdutf (`maximal_binary_length_from_base64`) and the scalar decoder write no more.
pub fn decoded_len_bound(input: &[u8]) -> usize {
    let pads = input
        .iter()
        .rev()
        .take(2)
        .take_while(|&&b| b == b'=')
        .count();
    maximal_decoded_len(input.len() - pads)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{Alphabet, EncodeOptions};
    use crate::test_support::reference_encode;

    #[test]
    fn lengths_never_overflow() {
        assert_eq!(encoded_len(0, true), Some(0));
        assert_eq!(encoded_len(1, true), Some(4));
        assert_eq!(encoded_len(1, false), Some(2));
        assert_eq!(encoded_len(2, false), Some(3));
        assert_eq!(encoded_len(usize::MAX, true), None);
        assert_eq!(
            encoded_len(usize::MAX / 4 * 3, true),
            Some(usize::MAX / 4 * 4)
        );
        // 4 GiB and beyond: no 32-bit truncation anywhere.
        assert_eq!(encoded_len(3 << 32, true), Some(4 << 32));
        assert_eq!(maximal_decoded_len(4 << 32), 3 << 32);
        assert_eq!(maximal_decoded_len(usize::MAX), usize::MAX / 4 * 3 + 2);
    }

    #[test]
    fn wrapped_lengths() {
        use crate::options::LineBreak;
        let mime = Lines {
            length: 76,
            line_break: LineBreak::CrLf,
        };
        assert_eq!(wrapped_len(57, true, mime, 0), Some(76));
        assert_eq!(wrapped_len(58, true, mime, 0), Some(76 + 2 + 4));
        assert_eq!(wrapped_len(0, true, mime, 0), Some(0));
        // Continuing a full line: a break before the first character.
        assert_eq!(wrapped_len(3, true, mime, 76), Some(2 + 4));
        assert_eq!(wrapped_len(3, true, mime, 72), Some(4));
        assert_eq!(wrapped_len(3, true, mime, 77), None);
        assert_eq!(wrapped_len(usize::MAX / 4 * 3, true, mime, 0), None);
        let no_lines = Lines {
            length: 0,
            line_break: LineBreak::Lf,
        };
        assert_eq!(wrapped_len(3, true, no_lines, 0), None);
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn decoded_len_bound_is_exact_without_whitespace() {
        for len in 0..200 {
            let plain = vec![0xA5u8; len];
            for padding in [true, false] {
                let opts = EncodeOptions {
                    alphabet: Alphabet::Standard,
                    padding,
                };
                let encoded = reference_encode(&plain, opts);
                assert_eq!(decoded_len_bound(&encoded), len, "{len} {padding}");
            }
        }
        assert_eq!(decoded_len_bound(b"===="), 1, "at most two '=' count");
    }
}
