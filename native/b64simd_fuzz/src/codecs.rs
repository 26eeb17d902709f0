//! Base16 and Base32: our jobs (one-shot, sliced at random, and
//! validation) against a scalar reference written from the rules in
//! `b64simd_hex` and `b64simd_base32` (their module docs), not from the
//! core's code (Base16's here, Base32's the core's `base32_reference`,
//! which its unit tests share): bytes, accept/reject, reason and offset,
//! into outputs with canary bytes past their end.

use crate::inputs::Rng;
use b64simd_core::base32::{Base32DecodeJob, Base32EncodeJob};
pub use b64simd_core::base32_reference::{base32_reference_decode, base32_reference_encode};
use b64simd_core::error::DecodeError;
use b64simd_core::hex::{HexDecodeJob, HexEncodeJob};
use b64simd_core::job::Job;
use b64simd_core::options::{
    Base32Alphabet, Base32DecodeOptions, Base32EncodeOptions, HexDecodeOptions, HexEncodeOptions,
    LetterCase,
};
use b64simd_core::output::as_output;

const GUARD: usize = 64;
const CANARY: u8 = 0x5A;

type Decoded = Result<Vec<u8>, DecodeError>;

/// Runs a job to its end on an output of `len` bytes and canary bytes.
fn run(job: &mut impl Job, input: &[u8], len: usize, slice: usize) -> Result<Decoded, String> {
    let mut out = vec![CANARY; len + GUARD];
    let result = job.run_to_end(input, as_output(&mut out[..len]), slice);
    if let Some(at) = out[len..].iter().position(|&b| b != CANARY) {
        return Err(format!("wrote {} bytes past its output", at + 1));
    }
    Ok(result.map(|n| out[..n].to_vec()))
}

fn compare(what: &str, ours: Decoded, expected: &Decoded) -> Result<(), String> {
    if &ours == expected {
        return Ok(());
    }
    let show = |r: &Decoded| match r {
        Ok(bytes) if bytes.len() <= 24 => format!("Ok({bytes:02x?})"),
        Ok(bytes) => format!("Ok({} bytes)", bytes.len()),
        Err(error) => format!("Err({error:?})"),
    };
    Err(format!(
        "{what}: {} where the reference gives {}",
        show(&ours),
        show(expected)
    ))
}

// ---------------------------------------------------------------------------
// Base16
// ---------------------------------------------------------------------------

fn hex_value(byte: u8, case: LetterCase) -> Option<u8> {
    let upper_ok = case != LetterCase::Lower;
    let lower_ok = case != LetterCase::Upper;
    match byte {
        b'0'..=b'9' => Some(byte - b'0'),
        b'A'..=b'F' if upper_ok => Some(byte - b'A' + 10),
        b'a'..=b'f' if lower_ok => Some(byte - b'a' + 10),
        _ => None,
    }
}

pub fn hex_reference_encode(data: &[u8], upper: bool) -> Vec<u8> {
    let digits = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut out = Vec::with_capacity(2 * data.len());
    for &b in data {
        out.push(digits[usize::from(b >> 4)]);
        out.push(digits[usize::from(b & 15)]);
    }
    out
}

/// Left to right: a byte outside the case's digits; else a digit without a
/// pair at the end.
pub fn hex_reference_decode(text: &[u8], case: LetterCase) -> Decoded {
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut high = None;
    for (at, &b) in text.iter().enumerate() {
        let value = hex_value(b, case).ok_or(DecodeError::InvalidCharacter(at))?;
        match high.take() {
            None => high = Some(value),
            Some(h) => out.push(h << 4 | value),
        }
    }
    match high {
        Some(_) => Err(DecodeError::Incomplete(text.len() - 1)),
        None => Ok(out),
    }
}

pub fn hex_case(plain: &[u8], texts: &[Vec<u8>], rng: &mut Rng) -> Result<(), String> {
    for upper in [true, false] {
        let case = if upper {
            LetterCase::Upper
        } else {
            LetterCase::Lower
        };
        let expected = Ok(hex_reference_encode(plain, upper));
        let len = 2 * plain.len();
        for slice in [usize::MAX, slice_size(rng, plain.len())] {
            let mut job = HexEncodeJob::new(HexEncodeOptions { case });
            compare("hex encode", run(&mut job, plain, len, slice)?, &expected)?;
        }
    }
    for text in texts {
        for case in [LetterCase::Upper, LetterCase::Lower, LetterCase::Mixed] {
            let expected = hex_reference_decode(text, case);
            let opts = HexDecodeOptions { case };
            let len = text.len() / 2;
            for slice in [usize::MAX, slice_size(rng, text.len())] {
                let what = format!("hex decode {case:?} slice {slice}");
                compare(
                    &what,
                    run(&mut HexDecodeJob::new(opts), text, len, slice)?,
                    &expected,
                )?;
                let verdict = run(&mut HexDecodeJob::validating(opts), text, 0, slice)?;
                let expected_verdict = expected.clone().map(|_| vec![]);
                compare(
                    &format!("hex is_valid {case:?}"),
                    verdict,
                    &expected_verdict,
                )?;
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Base32
// ---------------------------------------------------------------------------

pub fn base32_encode_options() -> Vec<Base32EncodeOptions> {
    let mut all = Vec::new();
    for alphabet in [Base32Alphabet::Standard, Base32Alphabet::Hex] {
        for case in [LetterCase::Upper, LetterCase::Lower] {
            for padding in [true, false] {
                all.push(Base32EncodeOptions {
                    alphabet,
                    case,
                    padding,
                });
            }
        }
    }
    all
}

pub fn base32_case(plain: &[u8], texts: &[Vec<u8>], rng: &mut Rng) -> Result<(), String> {
    for opts in base32_encode_options() {
        let expected = Ok(base32_reference_encode(plain, opts));
        for slice in [usize::MAX, slice_size(rng, plain.len())] {
            let mut job = Base32EncodeJob::new(opts);
            let len = job.buffer(plain).ok_or("no output length")?.size();
            let what = format!("base32 encode {opts:?} slice {slice}");
            compare(&what, run(&mut job, plain, len, slice)?, &expected)?;
        }
    }
    for text in texts {
        for opts in Base32DecodeOptions::all() {
            let expected = base32_reference_decode(text, opts);
            for slice in [usize::MAX, slice_size(rng, text.len())] {
                let mut job = Base32DecodeJob::new(text, opts);
                let len = job.buffer(text).ok_or("no output length")?.size();
                let what = format!("base32 decode {opts:?} slice {slice}");
                compare(&what, run(&mut job, text, len, slice)?, &expected)?;
                let mut validation = Base32DecodeJob::validating(text, opts);
                let scratch = 5 + rng.below(64);
                let verdict = run(&mut validation, text, scratch, slice)?.map(|_| vec![]);
                let expected_verdict = expected.clone().map(|_| vec![]);
                compare(
                    &format!("base32 is_valid {opts:?}"),
                    verdict,
                    &expected_verdict,
                )?;
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------

fn slice_size(rng: &mut Rng, input_len: usize) -> usize {
    if rng.chance(2) {
        rng.pick(&[1, 2, 3, 5, 7, 8, 9, 16, 64, 1000])
    } else {
        1 + rng.below(input_len + 2)
    }
}

/// A valid text and mutations of it: bytes inserted, removed or replaced,
/// drawn from both cases of both alphabets, `=`, whitespace and junk.
pub fn texts(rng: &mut Rng, valid: Vec<u8>) -> Vec<Vec<u8>> {
    const SPECIALS: &[u8] = b"09afAFgGzZ27vVwW18=x \n\x00\xff";
    let mut texts = vec![valid.clone()];
    for _ in 0..3 {
        let mut text = valid.clone();
        for _ in 0..1 + rng.below(3) {
            let special = rng.pick(SPECIALS);
            let at = rng.below(text.len() + 1);
            match rng.below(4) {
                0 => text.insert(at, special),
                1 if at < text.len() => text[at] = special,
                2 if at < text.len() => {
                    text.remove(at);
                }
                _ if at < text.len() => text[at] = text[at].to_ascii_lowercase(),
                _ => {}
            }
        }
        texts.push(text);
    }
    texts
}
