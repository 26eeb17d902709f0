//! Short input, the first stage of every decode: whole quanta decoded by
//! table lookups, which beat simdutf's handling of input shorter than its
//! 64-byte block (`bench/README.md`, "Small calls").
//! It takes only the common shape (alphabet characters in whole quanta, the
//! last one maybe padded or, when padding is optional, cut short) and
//! returns `None` for anything else, which the later stages then decide: so
//! it only ever returns what they would.

use super::lines;
use crate::options::{Alphabet, DecodeOptions};
use crate::rules::{class_table, class_table_for, is_sextet_class};
use crate::simd::decodes_whole;

/// The short path takes input up to this long; from `SHORT_MAX` bytes on,
/// whole 64-character blocks go to simdutf and only their tail is decoded
/// here. Longer input is for the line path and simdutf.
pub const LONGEST: usize = lines::MIN_INPUT - 1;

/// `input` (all of a decode's input, trimmed) decoded into `output`, which
/// holds `lengths::decoded_len_bound(input)`, if it has the common shape.
#[inline]
pub fn decode(input: &[u8], opts: DecodeOptions, output: &mut [u8]) -> Option<usize> {
    if input.len() <= SHORT_MAX {
        decode_short(input, opts, output)
    } else if input.len() <= LONGEST {
        decode_blocks_then_short(input, opts, output)
    } else {
        None
    }
}

/// Up to this many characters the table lookups beat simdutf; they tie at
/// 44 and lose from 64 on.
const SHORT_MAX: usize = 44;

/// `decode_short`'s tables, one per place in a quantum: each byte's sextet
/// already shifted to where it lands in the quantum's 3 bytes (read as a
/// little-endian `u32`, first byte lowest), or `NOT_A_SEXTET` for a byte
/// outside the alphabet. A quantum is then 4 loads and 3 ORs (modp_b64's
/// layout), where sextet values would take 4 shifts more and a byte swap.
/// 4 KiB an alphabet.
type QuantumTables = [[u32; 256]; 4];

/// Set in a `QuantumTables` entry for a byte outside the alphabet: above
/// the 3 bytes a quantum makes, so one OR of a body's entries tells.
const NOT_A_SEXTET: u32 = 1 << 24;

const fn quantum_tables(alphabet: Alphabet) -> QuantumTables {
    let classes = class_table(alphabet);
    let mut tables = [[NOT_A_SEXTET; 256]; 4];
    let mut byte = 0;
    while byte < 256 {
        let sextet = classes[byte] as u32;
        if is_sextet_class(classes[byte]) {
            // Bytes made: a << 2 | b >> 4, (b & 15) << 4 | c >> 2, (c & 3) << 6 | d.
            tables[0][byte] = sextet << 2;
            tables[1][byte] = sextet >> 4 | (sextet & 0xF) << 12;
            tables[2][byte] = (sextet >> 2) << 8 | (sextet & 0x3) << 22;
            tables[3][byte] = sextet << 16;
        }
        byte += 1;
    }
    tables
}

static QUANTA: [QuantumTables; 3] = [
    quantum_tables(Alphabet::Standard),
    quantum_tables(Alphabet::UrlSafe),
    quantum_tables(Alphabet::Any),
];

/// Short input of the common shape (the module's), decoded by table lookups;
/// `None` for anything else (whitespace, other bytes, a dangling character,
/// missing padding that is required, non-zero unused bits under `canonical`).
fn decode_short(input: &[u8], opts: DecodeOptions, output: &mut [u8]) -> Option<usize> {
    let last_len = match input.len() % 4 {
        0 => 4,
        cut @ (2 | 3) if !opts.padding_required => cut,
        _ => return None,
    };
    let body_len = input.len().checked_sub(last_len)?;
    let (body, last) = input.split_at(body_len);
    let written = body_len / 4 * 3;
    // Each quantum's 3 bytes are stored as 4, the 4th overwritten by the
    // next quantum's or the last one's, which writes at least one byte: so
    // a valid input's buffer has `written + 1` bytes (anything else is left
    // to the other paths).
    let out = output.get_mut(..written + 1)?;
    let [first, second, third, fourth] = &QUANTA[opts.alphabet as usize];
    let mut body_bits = 0;
    for (i, quantum) in body.chunks_exact(4).enumerate() {
        let bits = first[quantum[0] as usize]
            | second[quantum[1] as usize]
            | third[quantum[2] as usize]
            | fourth[quantum[3] as usize];
        body_bits |= bits;
        out[i * 3..i * 3 + 4].copy_from_slice(&bits.to_le_bytes());
    }
    if body_bits & NOT_A_SEXTET != 0 {
        return None;
    }
    // Sextets are below 64; `=`, whitespace and other bytes are 64 and up,
    // so one OR of everything read tells whether all were sextets.
    let classes = class_table_for(opts.alphabet);
    let value = |byte: u8| u32::from(classes[byte as usize]);
    // The last quantum's third and fourth sextets, and the bytes it holds.
    let (c, d, bytes) = match *last {
        [_, _] | [_, _, b'=', b'='] => (0, 0, 1),
        [_, _, c] | [_, _, c, b'='] => (value(c), 0, 2),
        [_, _, c, d] => (value(c), value(d), 3),
        _ => return None,
    };
    let (a, b) = (value(last[0]), value(last[1]));
    if a | b | c | d >= 64 {
        return None;
    }
    let unused_bits = match bytes {
        1 => b & 0xF,
        2 => c & 0x3,
        _ => 0,
    };
    if opts.canonical && unused_bits != 0 {
        return None;
    }
    let bits = (a << 18 | b << 12 | c << 6 | d).to_be_bytes();
    // Stores of a constant length, each length its own arm: a copy of a
    // length the compiler cannot see (even `copy_from_slice` in a
    // catch-all arm) is a call to memmove.
    match &mut output[written..written + bytes] {
        [x] => *x = bits[1],
        [x, y] => [*x, *y] = [bits[1], bits[2]],
        [x, y, z] => [*x, *y, *z] = [bits[1], bits[2], bits[3]],
        _ => return None, // `bytes` is 1 to 3
    }
    Some(written + bytes)
}

/// simdutf decodes whole 64-character blocks fast, but a short tail after
/// them slowly: when 2 to 36 characters follow the blocks (under 4: an
/// unpadded last quantum), the blocks go to simdutf and the tail to
/// `decode_short`. With 40 or more, or none, simdutf alone is as fast.
/// Only up to `LONGEST`: on input that holds whitespace (a short PEM body)
/// the simdutf call is wasted work, bounded so, and line-wrapped text from
/// there on has a path of its own.
fn decode_blocks_then_short(input: &[u8], opts: DecodeOptions, output: &mut [u8]) -> Option<usize> {
    let tail = input.len() % 64;
    if !(2..=36).contains(&tail) {
        return None;
    }
    let (blocks, rest) = input.split_at(input.len() - tail);
    let (block_output, rest_output) = output.split_at_mut(blocks.len() / 4 * 3);
    if !decodes_whole(blocks, opts.alphabet, block_output) {
        return None;
    }
    let written = decode_short(rest, opts, rest_output)?;
    Some(block_output.len() + written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lengths::decoded_len_bound;
    use crate::options::EncodeOptions;
    use crate::scalar;
    use crate::test_support::{encode_to_vec as enc, scalar_decode_to_vec, Rng};

    /// `decode_short`'s quantum tables, entry by entry: every byte in every
    /// place of a quantum, in each alphabet (the tables' one input),
    /// decodes as the scalar decoder decodes it (the quantum is repeated,
    /// to fill a body).
    #[test]
    fn short_path_tables_agree_with_the_scalar_decoder() {
        let alphabets = [Alphabet::Standard, Alphabet::UrlSafe, Alphabet::Any];
        for opts in alphabets.map(|alphabet| DecodeOptions {
            alphabet,
            ..DecodeOptions::DEFAULT
        }) {
            for place in 0..4 {
                for byte in 0..=255u8 {
                    let mut input = *b"QUJDQUJD";
                    input[place] = byte;
                    let mut out = [0u8; 8];
                    let short = decode_short(&input, opts, &mut out).map(|n| out[..n].to_vec());
                    let mut expected = [0u8; 8];
                    let scalar = scalar::decode(&input, opts, &mut expected);
                    match short {
                        Some(bytes) => assert_eq!(Ok(&bytes[..]), scalar.map(|n| &expected[..n])),
                        None => assert!(
                            !is_sextet_class(class_table_for(opts.alphabet)[byte as usize]),
                            "{byte:#x} in place {place} declined, {opts:?}"
                        ),
                    }
                }
            }
        }
    }

    /// Every short input `decode_short` accepts, under every option set, is
    /// one the scalar decoder (the definition) accepts with the same bytes;
    /// and the common shape does take the short path.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn short_path_agrees_with_the_scalar_decoder() {
        let seed = 0x5EED_0005;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let option_sets = DecodeOptions::all();
        let nasty = b"= \n\x0c\t-_+/AQgz";
        let (mut taken, mut declined) = (0, 0);
        for round in 0..20_000 {
            let plain = rng.bytes(round % 34);
            let encode_opts = rng.encode_options();
            let mut input = enc(&plain, encode_opts);
            for _ in 0..rng.next() % 3 {
                if !input.is_empty() {
                    let at = rng.next() as usize % input.len();
                    input[at] = nasty[rng.next() as usize % nasty.len()];
                }
            }
            if input.len() > SHORT_MAX || input.is_empty() {
                continue;
            }
            for &opts in &option_sets {
                let mut out = vec![0u8; decoded_len_bound(&input)];
                let Some(written) = decode_short(&input, opts, &mut out) else {
                    declined += 1;
                    continue;
                };
                taken += 1;
                let mut expected = vec![0u8; input.len()];
                let expected =
                    scalar::decode(&input, opts, &mut expected).map(|n| expected[..n].to_vec());
                assert_eq!(
                    Ok(&out[..written]),
                    expected.as_deref(),
                    "{:?} {opts:?}",
                    String::from_utf8_lossy(&input)
                );
            }
        }
        assert!(
            taken > 100_000 && declined > 100_000,
            "taken {taken} declined {declined}"
        );
    }

    /// Every input `decode_blocks_then_short` accepts, under every option
    /// set, is one the scalar decoder accepts with the same bytes: bytes
    /// edited in the blocks, at their end, in the tail and its final
    /// quantum; and valid input of the lengths it serves does take it.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn blocks_then_short_agrees_with_the_scalar_decoder() {
        let seed = 0x5EED_0012;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let nasty = b"= \n\x0c\t-_+/AQgz";
        let (mut taken, mut declined) = (0, 0);
        for round in 0..20_000 {
            let plain = rng.bytes(34 + round % 360);
            let mut input = enc(&plain, rng.encode_options());
            let edits = rng.next() % 3;
            for _ in 0..edits {
                let at = match rng.next() % 3 {
                    0 => input.len() - 1 - rng.next() as usize % 8,
                    1 => (input.len() / 64 * 64).saturating_sub(1 + rng.next() as usize % 2),
                    _ => rng.next() as usize % input.len(),
                };
                input[at] = nasty[rng.next() as usize % nasty.len()];
            }
            for &opts in &DecodeOptions::all() {
                let mut out = vec![0u8; decoded_len_bound(&input)];
                let Some(written) = decode_blocks_then_short(&input, opts, &mut out) else {
                    declined += 1;
                    continue;
                };
                taken += 1;
                assert_eq!(
                    Ok(out[..written].to_vec()),
                    scalar_decode_to_vec(&input, opts),
                    "{:?} {opts:?}",
                    String::from_utf8_lossy(&input)
                );
            }
        }
        assert!(
            taken > 20_000 && declined > 100_000,
            "taken {taken} declined {declined}"
        );
        // 88 characters: one block, a tail of 24.
        let mut out = [0u8; 64];
        let text = enc(&[7u8; 64], EncodeOptions::DEFAULT);
        let opts = DecodeOptions::DEFAULT;
        assert_eq!(decode_blocks_then_short(&text, opts, &mut out), Some(64));
        assert_eq!(out, [7u8; 64]);
    }
}
