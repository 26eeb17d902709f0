//! A piece of a decoding stream read in place, the quick way: the whole quanta of
//! `carry ++ piece` by simdutf's `stop_before_partial`, the head (the carry and the
//! piece's first bytes) from a small buffer, the rest where it lies; unusual input gives up.

use super::carry::MAX_CARRY;
use crate::decode::{decode_whole_quanta, lines, DecodeJob};
use crate::lengths::maximal_decoded_len;
use crate::options::DecodeOptions;
use crate::simdutf::Window;
use std::mem::MaybeUninit;
use std::ops::Range;

/// The offsets carried on once `consumed` are decoded; `None` when over `MAX_CARRY`.
pub fn left_over(carry_len: usize, piece_len: usize, consumed: usize) -> Option<Range<usize>> {
    let kept = consumed..carry_len + piece_len;
    (kept.len() <= MAX_CARRY).then_some(kept)
}

/// Bytes of a piece copied behind the carry: enough to complete its quantum, barring whitespace.
const HEAD_PIECE: usize = 64;

/// All of `carry ++ piece` done, or a `DecodeJob::whole_quanta` to go on in the piece.
pub enum Start {
    Finished(Window),
    Job(DecodeJob),
}

/// Decodes the head (carry and piece up to its first line break, so that the job
/// starts at a line and can take the line path, else up to `HEAD_PIECE` bytes) into
/// `output` (`maximal_decoded_len` of carry and piece). `None` if the head is
/// unusual or its whole quanta do not take in all of the carry.
pub fn start(
    carry: &[u8],
    piece: &[u8],
    opts: DecodeOptions,
    output: &mut [MaybeUninit<u8>],
    max_input: usize,
) -> Option<Start> {
    let job_at = |in_piece, written| {
        Some(Start::Job(DecodeJob::whole_quanta(
            piece, opts, in_piece, written,
        )))
    };
    // A break closer than this may cut the carry's quantum; it is passed over.
    const FIRST_BREAK_MIN: usize = 8;
    if carry.is_empty() && lines::shape_of(piece).is_some() {
        return job_at(0, 0);
    }
    let window = &piece[..piece.len().min(lines::LONGEST_LINE + 2)];
    let first_break = memchr::memchr_iter(b'\n', window).find(|&at| at >= FIRST_BREAK_MIN);
    let head_piece = match first_break {
        Some(newline) => newline + 1,
        // One window, no job: a job's step is costly on a short piece.
        None if carry.is_empty() && piece.len() <= max_input => piece.len(),
        None if carry.is_empty() => return job_at(0, 0),
        None => piece.len().min(HEAD_PIECE),
    };
    if carry.len() > MAX_CARRY {
        return None;
    }
    let mut buffer = [0u8; MAX_CARRY + lines::LONGEST_LINE + 2];
    let head = if carry.is_empty() {
        &piece[..head_piece]
    } else {
        buffer[..carry.len()].copy_from_slice(carry);
        buffer[carry.len()..carry.len() + head_piece].copy_from_slice(&piece[..head_piece]);
        &buffer[..carry.len() + head_piece]
    };
    let room = maximal_decoded_len(head.len());
    let (window, _) = decode_whole_quanta(head, opts, &mut output[..room])?;
    if head_piece == piece.len() {
        return Some(Start::Finished(window));
    }
    match window.consumed.checked_sub(carry.len()) {
        Some(in_piece) if in_piece > 0 || carry.is_empty() => job_at(in_piece, window.written),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::{Job, Step};
    use crate::options::Alphabet;
    use crate::output::as_output;
    use crate::test_support::reference_encode;
    use crate::test_support::{scalar_decode_to_vec, Rng};

    /// What the NIF does with `carry` and `piece`: `(data, consumed)`.
    fn decode(
        carry: &[u8],
        piece: &[u8],
        opts: DecodeOptions,
        max_input: usize,
    ) -> Option<(Vec<u8>, usize)> {
        let mut out = vec![0u8; maximal_decoded_len(carry.len() + piece.len())];
        let mut job = match start(carry, piece, opts, as_output(&mut out), max_input)? {
            Start::Finished(done) => return Some((out[..done.written].to_vec(), done.consumed)),
            Start::Job(job) => job,
        };
        for _ in 0..piece.len() + 2 {
            match job.step(piece, as_output(&mut out), max_input) {
                Step::More => continue,
                Step::Done(written) => {
                    return Some((out[..written].to_vec(), carry.len() + job.position().0))
                }
                Step::Failed(_) => return None,
            }
        }
        panic!("no progress");
    }

    fn is_significant(byte: u8) -> bool {
        !matches!(byte, b'=' | b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn examples() {
        let opts = DecodeOptions {
            padding_required: false,
            ..DecodeOptions::DEFAULT
        };
        let whole = |carry: &[u8], piece: &[u8]| decode(carry, piece, opts, usize::MAX);
        assert_eq!(whole(b"", b"QUJDQQ"), Some((b"ABC".to_vec(), 4)));
        assert_eq!(whole(b"QU", b"JDQQ"), Some((b"ABC".to_vec(), 4)));
        assert_eq!(whole(b"QUJ", b"D\r\n"), Some((b"ABC".to_vec(), 6)));
        assert_eq!(
            whole(b"", b"QUJDQQ=="),
            Some((b"ABC".to_vec(), 4)),
            "the padded quantum stays"
        );
        assert_eq!(whole(b"Q", b"U J\nD QUI="), Some((b"ABC".to_vec(), 7)));
        assert_eq!(whole(b"QQ==", b"QUJD"), None, "data after padding");
        assert_eq!(whole(b"", b"QU!D"), None);
        assert_eq!(whole(b"", b"QUJD\x0cQUJD"), None, "OTP rejects form feed");
        assert_eq!(whole(b"QU", b""), Some((vec![], 0)));
        assert_eq!(left_over(2, 3, 1), Some(1..5));
        assert_eq!(left_over(0, MAX_CARRY + 1, 1), Some(1..MAX_CARRY + 1));
        assert_eq!(left_over(0, MAX_CARRY + 1, 0), None);
    }

    /// Encodings (plain or wrapped) with edits, cut into carry and piece at
    /// random: when the quanta path answers, its data is the scalar decode
    /// of the bytes it says it consumed, those are whole quanta, and what
    /// is left is at most a partial quantum; any slicing answers the same.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn agrees_with_the_scalar_decoder() {
        let seed = 0x5EED_0008;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let specials = b"=\t\n\r \x0c-_+/!A";
        let mut answered = 0;
        for round in 0..6_000 {
            let len = rng.next() as usize % 3_000;
            let plain = rng.bytes(len);
            let encode_opts = rng.encode_options();
            let mut text = reference_encode(&plain, encode_opts);
            if rng.next() % 2 == 0 {
                let (length, line_break): (usize, &[u8]) =
                    [(76, &b"\r\n"[..]), (64, b"\n"), (10, b" ")][rng.next() as usize % 3];
                text = text.chunks(length).collect::<Vec<_>>().join(line_break);
            }
            if rng.next() % 3 == 0 {
                rng.edit(&mut text, specials);
            }
            let cut = (rng.next() as usize % 8).min(text.len());
            let (carry, piece) = text.split_at(cut);
            let opts = DecodeOptions {
                alphabet: [Alphabet::Standard, Alphabet::UrlSafe, Alphabet::Any]
                    [rng.next() as usize % 3],
                padding_required: false,
                reject_whitespace: rng.next() % 4 == 0,
                canonical: false,
            };
            let answer = decode(carry, piece, opts, usize::MAX);
            for max_input in [1, 100, 1_000] {
                assert_eq!(
                    decode(carry, piece, opts, max_input),
                    answer,
                    "round {round} slice {max_input}"
                );
            }
            let Some((data, consumed)) = answer else {
                continue;
            };
            answered += 1;
            assert_eq!(
                scalar_decode_to_vec(&text[..consumed], opts),
                Ok(data.clone()),
                "round {round}"
            );
            assert!(data.len() % 3 == 0, "round {round}");
            let left = text[consumed..]
                .iter()
                .filter(|&&b| is_significant(b))
                .count();
            assert!(left < 4, "round {round}: {left} characters left");
        }
        assert!(answered > 3_000, "answered {answered}");
    }
}
