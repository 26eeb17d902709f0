//! The first stage of every decode: a text that fits the step, in whole quanta
//! (the last maybe padded or cut short), in the fewest calls (`bench/README.md`,
//! "Small calls"): AVX2 rounds, table lookups or one simdutf decode. It returns
//! `None` for anything else, so only ever what the later stages would.

use crate::avx2::decode;
use crate::dispatch::{self, Encoder};
use crate::kernel;
use crate::options::{Alphabet, DecodeOptions};
use crate::output::put;
use crate::rules::{check_final_quantum, check_skipped_bytes};
use crate::rules::{class_table, class_table_for, is_sextet_class};
use crate::simdutf::decode_loose;
use simdutf::ErrorCode;
use std::mem::MaybeUninit;
use std::sync::OnceLock;

/// `input` (trimmed) into `output` (`decoded_len_bound(input)`), if of the common shape.
#[inline]
pub fn decode(input: &[u8], opts: DecodeOptions, output: &mut [MaybeUninit<u8>]) -> Option<usize> {
    // A dangling character is never the common shape; other lengths leave room for the body.
    if input.len() % 4 == 1 {
        return None;
    }
    // A last quantum that may be padded or cut short is the tables'.
    let body = match input.last() {
        Some(&last) if input.len() % 4 == 0 && last != b'=' => input.len(),
        _ => input.len().saturating_sub(1) / 4 * 4,
    };
    let (read, written) = match avx2_rule() {
        Some(beats) if body >= 16 && beats(input.len(), body) => {
            let units = decode::decode_units(&input[..body], opts.alphabet, output)?;
            (units / 3 * 4, units)
        }
        _ if input.len() <= SHORT_MAX => (0, 0),
        _ => return decode_whole(input, opts, output),
    };
    if read == input.len() {
        return Some(written);
    }
    Some(written + decode_short(&input[read..], opts, &mut output[written..])?)
}

/// All of `input` in one simdutf decode under OTP's rules; `None` if either refuses.
fn decode_whole(
    input: &[u8],
    opts: DecodeOptions,
    output: &mut [MaybeUninit<u8>],
) -> Option<usize> {
    let result = decode_loose(input, opts.alphabet, output);
    if result.error != ErrorCode::Success {
        return None;
    }
    check_skipped_bytes(input, result.count, opts, 0).ok()?;
    check_final_quantum(input, result.count, opts).ok()?;
    Some(result.count)
}

/// Up to this many characters table lookups beat any call into simdutf.
const SHORT_MAX: usize = 44;

/// Where our AVX2 rounds beat simdutf on a body (all but a partial or padded
/// last quantum), decided once, keyed off the encoders `B64SIMD_OWN_AVX2` lets
/// run: icelake's rule where simdutf runs icelake and our code is not refused
/// (it then takes big encodes), haswell's where our encoder takes the calls;
/// none under `never`, or where simdutf's decoder always wins (westmere, the
/// scalar kernel, arm64).
fn avx2_rule() -> Option<Beats> {
    static RULE: OnceLock<Option<Beats>> = OnceLock::new();
    *RULE.get_or_init(|| {
        let encoders = dispatch::active();
        match kernel::active() {
            Ok("icelake") if encoders.big_calls == Encoder::Avx2 => Some(beats_icelake),
            _ if encoders.calls == Encoder::Avx2 => Some(beats_haswell),
            _ => None,
        }
    })
}

/// Whether our rounds beat simdutf: `(text length, body length)`.
type Beats = fn(usize, usize) -> bool;

/// Against simdutf's haswell decoder (`make kernels`): longer where its bytewise tail is long.
fn beats_haswell(len: usize, body: usize) -> bool {
    body <= AVX2_LONGEST || (body <= AVX2_TAILED_LONGEST && len % 64 >= SIMDUTF_SLOW_TAIL)
}

const AVX2_LONGEST: usize = 640;
const AVX2_TAILED_LONGEST: usize = 1088;
const SIMDUTF_SLOW_TAIL: usize = 20;

/// Against simdutf's icelake decoder, whose setup dominates on short text.
fn beats_icelake(_len: usize, body: usize) -> bool {
    body <= AVX2_ICELAKE_LONGEST
}

const AVX2_ICELAKE_LONGEST: usize = 192;

/// `decode_short`'s tables, one per place in a quantum: each byte's sextet shifted into
/// the quantum's 3 bytes (LE `u32`) or `NOT_A_SEXTET`: 4 loads, 3 ORs (modp_b64's layout).
type QuantumTables = [[u32; 256]; 4];

/// A byte outside the alphabet: above a quantum's 3 bytes, so one OR tells.
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

/// Short input of the common shape by table lookups; `None` for anything else.
fn decode_short(
    input: &[u8],
    opts: DecodeOptions,
    output: &mut [MaybeUninit<u8>],
) -> Option<usize> {
    let last_len = match input.len() % 4 {
        0 => 4,
        cut @ (2 | 3) if !opts.padding_required => cut,
        _ => return None,
    };
    let body_len = input.len().checked_sub(last_len)?;
    let (body, last) = input.split_at(body_len);
    let written = body_len / 4 * 3;
    // Each quantum's 3 bytes are stored as 4, the 4th overwritten by the next
    // (the last writes at least one): valid input leaves `written + 1` bytes.
    let out = output.get_mut(..written + 1)?;
    let [first, second, third, fourth] = &QUANTA[opts.alphabet as usize];
    let mut body_bits = 0;
    for (i, quantum) in body.chunks_exact(4).enumerate() {
        let bits = first[quantum[0] as usize]
            | second[quantum[1] as usize]
            | third[quantum[2] as usize]
            | fourth[quantum[3] as usize];
        body_bits |= bits;
        put(&mut out[i * 3..i * 3 + 4], &bits.to_le_bytes());
    }
    if body_bits & NOT_A_SEXTET != 0 {
        return None;
    }
    // Sextets are below 64, all other classes 64 and up: one OR tells.
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
    // One arm per length: a copy of a length the compiler cannot see calls memmove.
    match &mut output[written..written + bytes] {
        [x] => *x = MaybeUninit::new(bits[1]),
        [x, y] => [*x, *y] = [bits[1], bits[2]].map(MaybeUninit::new),
        [x, y, z] => [*x, *y, *z] = [bits[1], bits[2], bits[3]].map(MaybeUninit::new),
        _ => return None, // `bytes` is 1 to 3
    }
    Some(written + bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lengths::decoded_len_bound;
    use crate::options::EncodeOptions;
    use crate::output::as_output;
    use crate::scalar;
    use crate::test_support::{reference_encode as enc, scalar_decode_to_vec, Rng, EDIT_BYTES};

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
                    let short =
                        decode_short(&input, opts, as_output(&mut out)).map(|n| out[..n].to_vec());
                    let mut expected = [0u8; 8];
                    let scalar = scalar::decode(&input, opts, as_output(&mut expected));
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
                let Some(written) = decode_short(&input, opts, as_output(&mut out)) else {
                    declined += 1;
                    continue;
                };
                taken += 1;
                let mut expected = vec![0u8; input.len()];
                let expected = scalar::decode(&input, opts, as_output(&mut expected))
                    .map(|n| expected[..n].to_vec());
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

    /// The whole first stage (`decode`), on the SIMD decoder this process
    /// runs: every input it accepts is one the scalar decoder accepts with
    /// the same bytes, under every option set. Text of every length to
    /// 1,100 characters and every 7th to 2,200 (past `AVX2_LONGEST` and
    /// `AVX2_TAILED_LONGEST`, and 44, where the SIMD decoders start), each
    /// of `EDIT_BYTES` at every position of the first and last 48
    /// characters, and every padding form; valid text of every length
    /// takes it.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn the_stage_agrees_with_the_scalar_decoder() {
        let seed = 0x5EED_0012;
        println!(
            "seed {seed:#x}; bulk decoder: {:?}",
            dispatch::active().calls
        );
        let mut rng = Rng(seed);
        let option_sets = DecodeOptions::all();
        let check = |input: &[u8], option_sets: &[DecodeOptions]| -> usize {
            let mut taken = 0;
            for &opts in option_sets {
                let mut out = vec![0u8; decoded_len_bound(input)];
                let Some(written) = decode(input, opts, as_output(&mut out)) else {
                    continue;
                };
                taken += 1;
                assert_eq!(
                    Ok(out[..written].to_vec()),
                    scalar_decode_to_vec(input, opts),
                    "{:?} {opts:?}",
                    String::from_utf8_lossy(input)
                );
            }
            taken
        };
        for len in (0..=1100usize).chain((1101..=2200).step_by(7)) {
            let plain = rng.bytes(len / 4 * 3 + len % 4);
            for encode_opts in [EncodeOptions::DEFAULT, rng.encode_options()] {
                let text = enc(&plain, encode_opts);
                let taken = check(&text, &option_sets);
                assert!(text.is_empty() || taken > 0, "len {len} declined");
                for ending in [&b"="[..], b"==", b"===", b"A", b"A=", b"AA="] {
                    check(&[&text[..], ending].concat(), &option_sets);
                }
                // Each position in turn over the lengths, with the default
                // options and a random set.
                let some = [
                    DecodeOptions::DEFAULT,
                    option_sets[rng.next() as usize % option_sets.len()],
                ];
                let edge = text.len().min(48);
                let places = (0..edge).chain(text.len() - edge..text.len());
                for at in places.filter(|at| at % 7 == len % 7) {
                    for &byte in EDIT_BYTES {
                        let mut edited = text.clone();
                        edited[at] = byte;
                        check(&edited, &some);
                    }
                }
            }
        }
    }
}
