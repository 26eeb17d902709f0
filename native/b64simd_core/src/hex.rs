//! Base16 (RFC 4648 section 8) as OTP's `binary` and Elixir's `Base` have it, on
//! const-hex's kernels, chosen at run time (`hex-generic` builds the portable one alone).
//!
//! `locate` defines every reason and offset. const-hex takes both cases, so
//! a one-case decode checks the case after it; and it strips a `0x` prefix
//! only when the output has room, which ours never has
//! (`prefix_is_a_character` holds it to that).

use crate::budget::Work;
use crate::error::DecodeError;
use crate::job::{Buffer, Job, Step};
use crate::options::{HexDecodeOptions, HexEncodeOptions, LetterCase};
use crate::output::zeroed;
use std::mem::MaybeUninit;

/// Bytes encoded, or decoded, a call to const-hex at a time.
const CHUNK: usize = 4096;

/// Encode: every step whole bytes, written at twice their offset.
#[derive(Clone, Debug)]
pub struct HexEncodeJob {
    upper: bool,
    in_pos: usize,
}

impl HexEncodeJob {
    pub fn new(opts: HexEncodeOptions) -> HexEncodeJob {
        HexEncodeJob {
            upper: opts.case != LetterCase::Lower,
            in_pos: 0,
        }
    }
}

impl Job for HexEncodeJob {
    fn buffer(&self, input: &[u8]) -> Option<Buffer> {
        input.len().checked_mul(2).map(Buffer::Data)
    }

    /// Half `max_input` bytes a step, to write what a Base64 decode step
    /// reads: on fresh memory, writing is most of an uninterruptible step.
    fn step(&mut self, input: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step {
        let take = (input.len() - self.in_pos).min((max_input / 2).max(1));
        let piece = &input[self.in_pos..self.in_pos + take];
        let target = &mut output[2 * self.in_pos..2 * (self.in_pos + take)];
        // const-hex writes only initialised memory: each chunk is zeroed just
        // before, in L1. The lengths agree, its only condition.
        for (bytes, chars) in piece.chunks(CHUNK).zip(target.chunks_mut(2 * CHUNK)) {
            let chars = zeroed(chars);
            let _ = if self.upper {
                const_hex::encode_to_slice_upper(bytes, chars)
            } else {
                const_hex::encode_to_slice(bytes, chars)
            };
        }
        self.in_pos += take;
        Step::after(self.in_pos, input.len(), 2 * input.len())
    }

    fn work(&self) -> Work {
        Work::HexEncode
    }
}

/// Decode, or validation (`validating`): whole pairs a step, then the odd end.
#[derive(Clone, Debug)]
pub struct HexDecodeJob {
    case: LetterCase,
    in_pos: usize,
    validate: bool,
}

impl HexDecodeJob {
    pub fn new(opts: HexDecodeOptions) -> HexDecodeJob {
        HexDecodeJob {
            case: opts.case,
            in_pos: 0,
            validate: false,
        }
    }

    /// A decode that writes nothing (its buffer may be empty): `Done(0)` if valid.
    pub fn validating(opts: HexDecodeOptions) -> HexDecodeJob {
        HexDecodeJob {
            validate: true,
            ..HexDecodeJob::new(opts)
        }
    }

    pub fn validates(&self) -> bool {
        self.validate
    }
}

impl Job for HexDecodeJob {
    fn buffer(&self, input: &[u8]) -> Option<Buffer> {
        Some(match self.validate {
            true => Buffer::Scratch(0),
            false => Buffer::Data(input.len() / 2),
        })
    }

    fn step(&mut self, input: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step {
        let pairs_end = input.len() & !1;
        let take = (pairs_end - self.in_pos).min(max_input.max(2) & !1);
        let piece = &input[self.in_pos..self.in_pos + take];
        let ok = if self.validate {
            const_hex::check_raw(piece)
        } else {
            let target = &mut output[self.in_pos / 2..(self.in_pos + take) / 2];
            // As encode's, into zeroed memory a chunk at a time.
            piece
                .chunks(2 * CHUNK)
                .zip(target.chunks_mut(CHUNK))
                .all(|(chars, bytes)| const_hex::decode_to_slice(chars, zeroed(bytes)).is_ok())
        };
        if !ok || !case_is(piece, self.case) {
            let error = locate(piece, self.case).unwrap_or(DecodeError::InvalidCharacter(0));
            return Step::Failed(error.shifted(self.in_pos));
        }
        self.in_pos += take;
        if self.in_pos < pairs_end {
            return Step::More;
        }
        match locate(&input[pairs_end..], self.case) {
            Some(error) => Step::Failed(error.shifted(pairs_end)),
            None if self.validate => Step::Done(0),
            None => Step::Done(pairs_end / 2),
        }
    }

    fn work(&self) -> Work {
        Work::HexDecode
    }
}

/// Whether `byte` is a digit of the alphabet `case` takes.
#[inline]
pub fn is_digit(byte: u8, case: LetterCase) -> bool {
    match byte {
        b'0'..=b'9' => true,
        b'A'..=b'F' => case != LetterCase::Lower,
        b'a'..=b'f' => case != LetterCase::Upper,
        _ => false,
    }
}

/// Whether hex digits (of either case) are all of `case`, in one pass the
/// compiler vectorises: `a-f` are the only digits from 0x61, `A-F` the only in 0x41-0x46.
fn case_is(digits: &[u8], case: LetterCase) -> bool {
    match case {
        LetterCase::Mixed => true,
        LetterCase::Upper => digits.iter().fold(0u8, |max, &b| max.max(b)) < b'a',
        LetterCase::Lower => !digits
            .iter()
            .fold(false, |seen, &b| seen | (b.wrapping_sub(b'A') < 6)),
    }
}

/// The first error of `text` as a whole input (`None` if valid): the first
/// byte outside `case`'s alphabet, else a dangling last character.
pub fn locate(text: &[u8], case: LetterCase) -> Option<DecodeError> {
    if let Some(at) = text.iter().position(|&b| !is_digit(b, case)) {
        return Some(DecodeError::InvalidCharacter(at));
    }
    (text.len() % 2 == 1).then(|| DecodeError::Incomplete(text.len() - 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::as_output;
    use crate::test_support::Rng;

    /// The kernel const-hex runs here, by its own dispatch rules: for the
    /// tests' record (const-hex says nothing itself).
    fn kernel() -> &'static str {
        if cfg!(feature = "hex-generic") {
            return "generic";
        }
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                return "avx2";
            }
            if std::arch::is_x86_feature_detected!("ssse3") {
                return "ssse3 (encode), generic (decode)";
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            if std::arch::is_aarch64_feature_detected!("neon") {
                return "neon";
            }
        }
        "generic"
    }

    const CASES: [LetterCase; 3] = [LetterCase::Upper, LetterCase::Lower, LetterCase::Mixed];

    /// The obvious encoder: a table lookup a nibble at a time.
    fn reference_encode(data: &[u8], upper: bool) -> Vec<u8> {
        let digits: &[u8; 16] = if upper {
            b"0123456789ABCDEF"
        } else {
            b"0123456789abcdef"
        };
        data.iter()
            .flat_map(|&b| [digits[(b >> 4) as usize], digits[(b & 15) as usize]])
            .collect()
    }

    /// The obvious decoder, with `locate`'s reasons.
    fn reference_decode(text: &[u8], case: LetterCase) -> Result<Vec<u8>, DecodeError> {
        if let Some(error) = locate(text, case) {
            return Err(error);
        }
        let nibble = |b: u8| (b as char).to_digit(16).unwrap() as u8;
        Ok(text
            .chunks(2)
            .map(|p| nibble(p[0]) << 4 | nibble(p[1]))
            .collect())
    }

    fn encode(data: &[u8], upper: bool, slice: usize) -> Vec<u8> {
        let case = if upper {
            LetterCase::Upper
        } else {
            LetterCase::Lower
        };
        let mut job = HexEncodeJob::new(HexEncodeOptions { case });
        let mut out = vec![0u8; job.buffer(data).unwrap().size()];
        assert_eq!(
            job.run_to_end(data, as_output(&mut out), slice),
            Ok(out.len())
        );
        out
    }

    fn decode(text: &[u8], case: LetterCase, slice: usize) -> Result<Vec<u8>, DecodeError> {
        let opts = HexDecodeOptions { case };
        let mut job = HexDecodeJob::new(opts);
        let mut out = vec![0u8; job.buffer(text).unwrap().size()];
        let decoded = job
            .run_to_end(text, as_output(&mut out), slice)
            .map(|n| out[..n].to_vec());
        let valid = HexDecodeJob::validating(opts).run_to_end(text, &mut [], slice);
        assert_eq!(
            valid.map(|_| ()),
            decoded.as_ref().map(|_| ()).map_err(|e| *e)
        );
        decoded
    }

    #[test]
    fn kernel_is_said() {
        eprintln!("b64simd_core: const-hex kernel: {}", kernel());
        assert!(!kernel().is_empty());
    }

    #[test]
    fn known_answers() {
        assert_eq!(encode(b"foobar", true, usize::MAX), b"666F6F626172");
        assert_eq!(encode(b"\x01\xAB\xff", false, usize::MAX), b"01abff");
        assert_eq!(
            decode(b"666f6F626172", LetterCase::Mixed, 9),
            Ok(b"foobar".to_vec())
        );
        assert_eq!(decode(b"", LetterCase::Upper, 1), Ok(vec![]));
        assert_eq!(
            decode(b"666f", LetterCase::Upper, usize::MAX),
            Err(DecodeError::InvalidCharacter(3))
        );
        assert_eq!(
            decode(b"666F", LetterCase::Lower, usize::MAX),
            Err(DecodeError::InvalidCharacter(3))
        );
        assert_eq!(
            decode(b"666", LetterCase::Mixed, usize::MAX),
            Err(DecodeError::Incomplete(2))
        );
        assert_eq!(
            decode(b"66G", LetterCase::Mixed, usize::MAX),
            Err(DecodeError::InvalidCharacter(2))
        );
        assert_eq!(
            decode(b"6G6", LetterCase::Mixed, usize::MAX),
            Err(DecodeError::InvalidCharacter(1))
        );
    }

    /// const-hex strips a `0x` prefix where the output has room for the
    /// rest only; ours is always half the input, so `x` is a character.
    #[test]
    fn prefix_is_a_character() {
        for text in [&b"0x12"[..], b"0X12", b"0x", b"120x12"] {
            for case in CASES {
                let x = text.iter().position(|&b| b == b'x' || b == b'X');
                assert_eq!(
                    decode(text, case, usize::MAX),
                    Err(DecodeError::InvalidCharacter(x.unwrap())),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "thousands of inputs: hours under Miri")]
    fn every_length_and_slice_against_the_reference() {
        let mut rng = Rng(0x5EED_0016);
        for len in 0..300 {
            let data = rng.bytes(len);
            for upper in [true, false] {
                let whole = reference_encode(&data, upper);
                for slice in [1, 2, 3, 7, 64, usize::MAX] {
                    assert_eq!(encode(&data, upper, slice), whole, "len {len}");
                }
                for case in CASES {
                    for slice in [1, 2, 5, 64, usize::MAX] {
                        assert_eq!(
                            decode(&whole, case, slice),
                            reference_decode(&whole, case),
                            "len {len} {case:?} slice {slice}"
                        );
                    }
                }
            }
        }
    }

    /// Every byte value at every position of 1- to 65-character texts,
    /// under every case and slicing: the kernels' blocks (16 and 32
    /// characters) and their tails.
    #[test]
    #[cfg_attr(miri, ignore = "thousands of inputs: hours under Miri")]
    fn every_byte_everywhere() {
        let mut rng = Rng(0x5EED_0017);
        for len in 1..66usize {
            let text = reference_encode(&rng.bytes(len.div_ceil(2)), rng.next() & 1 == 0);
            let mut text = text[..len].to_vec();
            for at in 0..len {
                let original = text[at];
                for byte in 0..=255u8 {
                    text[at] = byte;
                    for case in CASES {
                        let slice = [2, 6, usize::MAX][(byte % 3) as usize];
                        assert_eq!(
                            decode(&text, case, slice),
                            reference_decode(&text, case),
                            "len {len} at {at} byte {byte}"
                        );
                    }
                }
                text[at] = original;
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "thousands of inputs: hours under Miri")]
    fn random_long_inputs() {
        let mut rng = Rng(0x5EED_0018);
        for _ in 0..20 {
            let len = (rng.next() % (1 << 20)) as usize;
            let data = rng.bytes(len);
            let text = reference_encode(&data, true);
            assert_eq!(encode(&data, true, 100_000), text);
            assert_eq!(decode(&text, LetterCase::Upper, 77_777), Ok(data.clone()));
            let mut bad = text.clone();
            if !bad.is_empty() {
                let at = (rng.next() as usize) % bad.len();
                bad[at] = b'g';
                assert_eq!(
                    decode(&bad, LetterCase::Mixed, 4096),
                    Err(DecodeError::InvalidCharacter(at))
                );
            }
        }
    }
}
