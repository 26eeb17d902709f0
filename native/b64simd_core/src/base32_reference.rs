//! Base32's reference, written from the rules in `b64simd_base32`'s module
//! doc, not from `base32.rs`: the unit tests and the fuzzer (cargo feature
//! `testing`) hold the jobs to it.

use crate::error::DecodeError;
use crate::options::{Base32Alphabet, Base32DecodeOptions, Base32EncodeOptions, LetterCase};

fn symbols(alphabet: Base32Alphabet) -> &'static [u8; 32] {
    match alphabet {
        Base32Alphabet::Standard => b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
        Base32Alphabet::Hex => b"0123456789ABCDEFGHIJKLMNOPQRSTUV",
    }
}

fn base32_value(byte: u8, alphabet: Base32Alphabet, case: LetterCase) -> Option<u8> {
    let lower_ok = case != LetterCase::Upper;
    let upper_ok = case != LetterCase::Lower;
    let wanted = match byte {
        b'a'..=b'z' if lower_ok => byte.to_ascii_uppercase(),
        b'a'..=b'z' => return None,
        b'A'..=b'Z' if !upper_ok => return None,
        _ => byte,
    };
    symbols(alphabet)
        .iter()
        .position(|&s| s == wanted)
        .map(|v| v as u8)
}

/// The obvious encoder: 5 bits at a time, most significant first.
pub fn base32_reference_encode(data: &[u8], opts: Base32EncodeOptions) -> Vec<u8> {
    let symbols = symbols(opts.alphabet);
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0u32);
    for &b in data {
        acc = acc << 8 | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(symbols[(acc >> bits & 31) as usize]);
        }
        acc &= (1 << bits) - 1;
    }
    if bits > 0 {
        out.push(symbols[(acc << (5 - bits) & 31) as usize]);
    }
    if opts.padding {
        while out.len() % 8 != 0 {
            out.push(b'=');
        }
    }
    if opts.case == LetterCase::Lower {
        out.make_ascii_lowercase();
    }
    out
}

/// The rules of `b64simd_base32`: groups of 8 before the last hold symbols
/// only (`=` there is padding followed by text); in the last group, a byte
/// that is neither a symbol nor `=`, then the padding (complete, after 2, 4,
/// 5 or 7 characters), then its length.
pub fn base32_reference_decode(
    text: &[u8],
    opts: Base32DecodeOptions,
) -> Result<Vec<u8>, DecodeError> {
    let value = |b| base32_value(b, opts.alphabet, opts.case);
    let last = if text.is_empty() {
        0
    } else {
        (text.len() - 1) / 8 * 8
    };
    for (at, &b) in text[..last].iter().enumerate() {
        if value(b).is_none() {
            return Err(match b {
                b'=' => DecodeError::BadPadding(at),
                _ => DecodeError::InvalidCharacter(at),
            });
        }
    }
    let group = &text[last..];
    for (at, &b) in group.iter().enumerate() {
        if b != b'=' && value(b).is_none() {
            return Err(DecodeError::InvalidCharacter(last + at));
        }
    }
    let characters = match group.iter().position(|&b| b == b'=') {
        Some(first) => {
            let complete = group.len() == 8
                && group[first..].iter().all(|&b| b == b'=')
                && [2, 4, 5, 7].contains(&first);
            if !complete {
                return Err(DecodeError::BadPadding(last + first));
            }
            first
        }
        None => {
            let n = group.len();
            if [1, 3, 6].contains(&n) {
                return Err(DecodeError::Incomplete(last));
            }
            if opts.padding_required && n > 0 && n < 8 {
                return Err(DecodeError::MissingPadding);
            }
            n
        }
    };
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0u32);
    for &b in &text[..last + characters] {
        acc = acc << 5 | u32::from(value(b).unwrap_or(0));
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}
