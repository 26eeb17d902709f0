//! Base64 over simdutf: lengths, `encode_into`, `decode_into`. Plain Rust on
//! slices, no NIF types, so `cargo test` covers all of it without a BEAM.
//!
//! simdutf implements WHATWG forgiving-base64; our contract is OTP's. The
//! gaps (docs/ARCHITECTURE.md, "simdutf and OTP's rules") are closed here, after simdutf succeeds, with
//! checks that cost nothing unless the input contains whitespace or ends in
//! an unpadded quantum. When simdutf fails, `scalar::decode` re-reads the
//! input and gives the exact reason and offset.

use crate::lines;
use crate::options::{Alphabet, DecodeOptions, EncodeOptions};
use crate::scalar::{self, is_otp_whitespace, DecodeError};
use simdutf::{Base64Options, ErrorCode, LastChunkHandlingOptions};

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

/// An upper bound on the decoded length of any `len` input bytes: every byte
/// significant, no padding.
pub fn maximal_decoded_len(len: usize) -> usize {
    // 0, 0, 1, 2 bytes from 0-3 leftover characters; arithmetic, as a
    // table was built on the stack each call and read back (perf).
    (len / 4) * 3 + (len % 4).saturating_sub(1)
}

/// An upper bound on the decoded length of this input: every byte but its
/// final `=` (at most two) significant. Exact for input without whitespace,
/// so decode allocates the right size and never shrinks it. Both simdutf
/// (whose `maximal_binary_length_from_base64` is this) and the scalar
/// decoder write at most this much, since `=` never decodes to a byte.
pub fn decoded_len_bound(input: &[u8]) -> usize {
    let pads = input
        .iter()
        .rev()
        .take(2)
        .take_while(|&&b| b == b'=')
        .count();
    maximal_decoded_len(input.len() - pads)
}

pub(crate) fn encode_variant(opts: EncodeOptions) -> Base64Options {
    match (opts.alphabet, opts.padding) {
        (Alphabet::UrlSafe, true) => Base64Options::UrlWithPadding,
        (Alphabet::UrlSafe, false) => Base64Options::Url,
        (_, true) => Base64Options::Default,
        (_, false) => Base64Options::DefaultNoPadding,
    }
}

pub(crate) fn decode_variant(alphabet: Alphabet) -> Base64Options {
    match alphabet {
        Alphabet::Standard => Base64Options::Default,
        Alphabet::UrlSafe => Base64Options::Url,
        Alphabet::Any => Base64Options::DefaultOrUrl,
    }
}

/// Encodes `input` into `output`, which must be exactly
/// `encoded_len(input.len(), opts.padding)` bytes long.
pub fn encode_into(input: &[u8], opts: EncodeOptions, output: &mut [u8]) -> usize {
    if input.is_empty() {
        return 0;
    }
    let variant = encode_variant(opts);
    // What simdutf will write, by its own count: the bound of the write below.
    let length = simdutf::base64_length_from_binary(input.len(), variant);
    assert_eq!(
        output.len(),
        length,
        "encode output sized by simdutf's length"
    );
    // SAFETY: `output` is valid for `length` bytes, exactly what simdutf
    // writes for this input length and variant (checked just above); the
    // slices cannot overlap since one is borrowed mutably.
    unsafe { simdutf::binary_to_base64(input.as_ptr(), input.len(), output.as_mut_ptr(), variant) }
}

/// Encodes `input` in lines of `line_length` characters (at least 4) with
/// LF breaks, simdutf's line-wrapping encoder, at the start of `output`;
/// returns the bytes written. Panics, rather than overflow, if `output` is
/// shorter than that.
pub(crate) fn encode_lines_into(
    input: &[u8],
    opts: EncodeOptions,
    line_length: usize,
    output: &mut [u8],
) -> usize {
    let variant = encode_variant(opts);
    // What simdutf will write, by its own count: the bound of the write.
    let length = simdutf::base64_length_from_binary_with_lines(input.len(), variant, line_length);
    let target = &mut output[..length];
    // SAFETY: `target` is valid for `length` bytes, exactly what simdutf
    // writes for this input length, variant and line length (computed just
    // above by simdutf itself); input and output are distinct borrows.
    unsafe {
        simdutf::binary_to_base64_with_lines(
            input.as_ptr(),
            input.len(),
            target.as_mut_ptr(),
            line_length,
            variant,
        )
    }
}

/// Decodes `input` into `output`, which must hold at least
/// `decoded_len_bound(input)` bytes; returns the bytes written.
pub fn decode_into(
    input: &[u8],
    opts: DecodeOptions,
    output: &mut [u8],
) -> Result<usize, DecodeError> {
    if input.is_empty() {
        return Ok(0);
    }
    if input.len() <= SHORT_INPUT_MAX {
        if let Some(written) = decode_short(input, opts, output) {
            return Ok(written);
        }
    } else if input.len() < SPLIT_INPUT_END {
        if let Some(written) = decode_blocks_then_short(input, opts, output) {
            return Ok(written);
        }
    }
    if !opts.reject_whitespace {
        let lines = lines::decode_some_lines(input, opts.alphabet, output, usize::MAX);
        if let Some(Window { consumed, written }) = lines {
            let rest = decode_general(&input[consumed..], opts, &mut output[written..]);
            return rest
                .map(|more| written + more)
                .map_err(|e| e.shifted(consumed));
        }
    }
    decode_general(input, opts, output)
}

/// `input` without the whitespace it starts and ends with, when `opts`
/// skips whitespace, and how many bytes were cut from its start. A newline
/// at the end (a file read whole, the `base64` tool's output) sent simdutf
/// to its whitespace path and our check for `\f` over the whole input: a
/// 64 KiB decode took 1.4 times as long, and one at the start 2.9 times.
/// The trimmed input decodes to the same bytes, and fails the same way with
/// every error offset less the cut: those modes skip these bytes wherever
/// they are, and every offset is that of a byte that remains.
pub fn trim_whitespace(input: &[u8], opts: DecodeOptions) -> (&[u8], usize) {
    let (Some(&first), Some(&last)) = (input.first(), input.last()) else {
        return (input, 0);
    };
    if opts.reject_whitespace || !(is_otp_whitespace(first) || is_otp_whitespace(last)) {
        return (input, 0);
    }
    let start = input
        .iter()
        .position(|&b| !is_otp_whitespace(b))
        .unwrap_or(input.len());
    let end = input
        .iter()
        .rposition(|&b| !is_otp_whitespace(b))
        .map_or(start, |i| i + 1);
    (&input[start..end], start)
}

/// `decode_into` without the short and line-wrapped paths: simdutf, and
/// the scalar decoder when it fails.
fn decode_general(
    input: &[u8],
    opts: DecodeOptions,
    output: &mut [u8],
) -> Result<usize, DecodeError> {
    let result = simdutf_decode(input, opts.alphabet, output);
    if result.error != ErrorCode::Success {
        return scalar::decode(input, opts, output);
    }
    let written = result.count;
    check_what_simdutf_allows(input, written, opts)?;
    Ok(written)
}

/// simdutf's loose decode of `input` into `output`, the one call both
/// `decode_into` and `decodes_whole` make. Panics unless `output` holds
/// `decoded_len_bound(input)` bytes (simdutf's
/// maximal_binary_length_from_base64), the most simdutf can write.
pub(crate) fn simdutf_decode(
    input: &[u8],
    alphabet: Alphabet,
    output: &mut [u8],
) -> simdutf::Result {
    assert!(output.len() >= decoded_len_bound(input));
    // SAFETY: `output` is long enough (checked above); input and output are
    // distinct borrows.
    let result = unsafe {
        simdutf::base64_to_binary(
            input.as_ptr(),
            input.len(),
            output.as_mut_ptr(),
            decode_variant(alphabet),
            LastChunkHandlingOptions::Loose,
        )
    };
    // On success `count` is the bytes written: all of the input was read.
    guard_bracket(input, alphabet, result, input.len())
}

/// simdutf 7.7.1's arm64 kernel (crate simdutf 0.7.0) takes `[` (0x5B) for
/// a character of its "default or url" alphabet, our `mode => any`, inside
/// whole 64-character blocks; every x86 kernel and the scalar rules reject
/// it. Minimal reproduction, `base64_to_binary(.., DefaultOrUrl, Loose)`:
///
///   input:    `[` then 63 `A` (64 bytes)
///   expected: INVALID_BASE64_CHARACTER, count 0 (every x86 kernel)
///   actual:   SUCCESS, count 48 (aarch64)
///
/// `tests::simdutf_arm64_takes_bracket_in_any_alphabet` fails on the day a
/// simdutf update no longer does this: then remove this guard.
const SIMDUTF_ANY_TAKES_BRACKET: bool = cfg!(target_arch = "aarch64");

/// `result` of a simdutf decode that read `input[..read]`, with the arm64
/// defect above undone: a success of `mode => any` over a `[` becomes the
/// error simdutf should have reported, at the first `[`, so that callers
/// take their exact path. Standard and urlsafe, and every x86 build, pass
/// through untouched: the scan costs only `mode => any` on aarch64. What it
/// costs there, measured on x86 with the guard forced on (Rust, hot, best
/// of 5): 4 KiB 132 -> 167 ns, 64 KiB 1.72 -> 2.49 us, 1 MiB 29 -> 43 us;
/// arm64's NEON memchr against its slower decode should cost less.
fn guard_bracket(
    input: &[u8],
    alphabet: Alphabet,
    result: simdutf::Result,
    read: usize,
) -> simdutf::Result {
    let succeeded = matches!(
        result.error,
        ErrorCode::Success | ErrorCode::OutputBufferTooSmall
    );
    if !(SIMDUTF_ANY_TAKES_BRACKET && alphabet == Alphabet::Any && succeeded) {
        return result;
    }
    match memchr::memchr(b'[', &input[..read.min(input.len())]) {
        Some(at) => simdutf::Result {
            error: ErrorCode::InvalidBase64Character,
            count: at,
        },
        None => result,
    }
}

/// Inputs up to this many characters try `decode_short` first: table
/// lookups beat simdutf's handling of input shorter than its 64-byte block
/// up to about 40 characters (Rust, hot: 13 ns against 25-37 ns at 24
/// characters, a tie at 44, slower from 64).
const SHORT_INPUT_MAX: usize = 44;

/// `decode_short`'s tables, one per place in a quantum: each byte's sextet
/// already shifted to where it lands in the quantum's 3 bytes (read as a
/// little-endian `u32`, first byte lowest), or `NOT_A_SEXTET` for a byte
/// outside the alphabet. A quantum is then 4 loads and 3 ORs, where
/// sextet values took 4 shifts more and a byte swap: 44 characters
/// 24.6 -> 19.3 ns (Rust, hot, best of 7). 4 KiB an alphabet.
type QuantumTables = [[u32; 256]; 4];

/// Set in a `QuantumTables` entry for a byte outside the alphabet: above
/// the 3 bytes a quantum makes, so one OR of a body's entries tells.
const NOT_A_SEXTET: u32 = 1 << 24;

const fn quantum_tables(alphabet: Alphabet) -> QuantumTables {
    let classes = scalar::class_table(alphabet);
    let mut tables = [[NOT_A_SEXTET; 256]; 4];
    let mut byte = 0;
    while byte < 256 {
        let sextet = classes[byte] as u32;
        if scalar::is_sextet_class(classes[byte]) {
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

static STANDARD_QUANTA: QuantumTables = quantum_tables(Alphabet::Standard);
static URLSAFE_QUANTA: QuantumTables = quantum_tables(Alphabet::UrlSafe);
static ANY_QUANTA: QuantumTables = quantum_tables(Alphabet::Any);

fn quantum_tables_for(alphabet: Alphabet) -> &'static QuantumTables {
    match alphabet {
        Alphabet::Standard => &STANDARD_QUANTA,
        Alphabet::UrlSafe => &URLSAFE_QUANTA,
        Alphabet::Any => &ANY_QUANTA,
    }
}

/// Short input of the common shape, decoded by table lookups: whole quanta
/// of the alphabet, the last one possibly ending in `=` or `==`, or, when
/// padding is optional, cut to 2 or 3 characters (unpadded urlsafe text,
/// which took simdutf's slow short path: 16 bytes of urlsafe data decoded
/// at 0.65x the padded standard alphabet). `None` for anything else
/// (whitespace, other bytes, a dangling character, missing padding that is
/// required, non-zero unused bits under `canonical`); simdutf and the
/// scalar decoder then decide, so this path only ever returns what they
/// would.
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
    let [first, second, third, fourth] = quantum_tables_for(opts.alphabet);
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
    let classes = scalar::class_table_for(opts.alphabet);
    let value = |byte: u8| u32::from(classes[byte as usize]);
    let mut seen = 0;
    // The last quantum's third and fourth sextets, and the bytes it holds.
    let (c, d, bytes) = match *last {
        [_, _] | [_, _, b'=', b'='] => (0, 0, 1),
        [_, _, c] | [_, _, c, b'='] => (value(c), 0, 2),
        [_, _, c, d] => (value(c), value(d), 3),
        _ => return None,
    };
    let (a, b) = (value(last[0]), value(last[1]));
    seen |= a | b | c | d;
    if seen >= 64 {
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
    // catch-all arm) is a memmove call: 44 characters 26.4 -> 24.6 ns.
    match &mut output[written..written + bytes] {
        [x] => *x = bits[1],
        [x, y] => [*x, *y] = [bits[1], bits[2]],
        [x, y, z] => [*x, *y, *z] = [bits[1], bits[2], bits[3]],
        _ => return None, // `bytes` is 1 to 3
    }
    Some(written + bytes)
}

/// Inputs of up to this many characters whose last few follow whole
/// 64-character blocks try `decode_blocks_then_short`. Not longer ones: on
/// input that holds whitespace (a short PEM body) its simdutf call is wasted
/// work, bounded so; line-wrapped text from this length on has its own path.
const SPLIT_INPUT_END: usize = lines::MIN_INPUT;

/// simdutf decodes whole 64-character blocks fast, but a short tail after
/// them slowly: 88 characters (64 bytes of data) took 41 ns, 64 took 29
/// (Rust, hot). When 2 to 36 characters follow the blocks (under 4: an
/// unpadded last quantum), the blocks go to simdutf and the tail to
/// `decode_short`: 88 characters in 30 ns, 136 in 24 against 42. With 40
/// or more, or none, simdutf alone is as fast or faster. `None` (the caller
/// takes its usual path) unless both parts are of the common shape.
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

/// What one bounded simdutf decode did: input bytes consumed, bytes written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub consumed: usize,
    pub written: usize,
}

/// simdutf's decode of `input` into at most `output.len()` bytes (its
/// `base64_to_binary_safe`): its result (on success, the input consumed)
/// and the bytes written.
pub fn decode_bounded(
    input: &[u8],
    output: &mut [u8],
    alphabet: Alphabet,
    last_chunk: LastChunkHandlingOptions,
) -> (simdutf::Result, usize) {
    let mut written = output.len();
    // SAFETY: both slices are valid and distinct, and simdutf writes at most
    // `written` (= output.len()) bytes.
    let result = unsafe {
        simdutf::base64_to_binary_safe(
            input.as_ptr(),
            input.len(),
            output.as_mut_ptr(),
            &mut written,
            decode_variant(alphabet),
            last_chunk,
            false,
        )
    };
    // Here `count` is the input consumed, on success or a full buffer.
    (
        guard_bracket(input, alphabet, result, result.count),
        written,
    )
}

/// Whether `piece` is nothing but alphabet characters in whole quanta: then
/// simdutf's loose decode of it succeeds and writes exactly 3 bytes per 4.
/// (Whitespace, `=` or a partial quantum would make it write fewer.) It
/// decodes into `output`, and costs less per call than `decode_bounded`.
pub fn decodes_whole(piece: &[u8], alphabet: Alphabet, output: &mut [u8]) -> bool {
    // 3 bytes per 4 characters is at least decoded_len_bound(piece).
    if !piece.len().is_multiple_of(4) || output.len() < piece.len() / 4 * 3 {
        return false;
    }
    let result = simdutf_decode(piece, alphabet, output);
    result.error == ErrorCode::Success && result.count == piece.len() / 4 * 3
}

/// simdutf accepted `input` as forgiving-base64 decoding to `written` bytes.
/// Reject what OTP's rules reject beyond that. Each of these can only come
/// after the scan, so the order matches `scalar::decode`.
fn check_what_simdutf_allows(
    input: &[u8],
    written: usize,
    opts: DecodeOptions,
) -> Result<(), DecodeError> {
    check_skipped_bytes(input, written, opts, 0)?;
    check_final_quantum(input, written, opts)
}

/// `piece` (at `offset` in the whole input) decoded to `written` bytes under
/// simdutf, which skips WHATWG whitespace: `\t \n \f \r` and space. OTP
/// rejects `\f`, and `whitespace => reject` rejects them all.
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
        // Error path only: the first of the five bytes simdutf skips.
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

/// If `piece` is exactly as long as the encoding of what it decoded to (with
/// or without its `=`), it holds no whitespace at all and needs no scan.
fn holds_no_whitespace(piece: &[u8], written: usize) -> bool {
    let unpadded_len = encoded_len(written, false).unwrap_or(usize::MAX);
    let padded_len = encoded_len(written, true).unwrap_or(usize::MAX);
    piece.len() == unpadded_len
        || (piece.len() == padded_len && piece[unpadded_len..].iter().all(|&b| b == b'='))
}

/// The end-of-input rules simdutf's loose mode does not apply: `=` required
/// when padding is, and zero unused bits under `canonical => true`.
pub fn check_final_quantum(
    input: &[u8],
    written: usize,
    opts: DecodeOptions,
) -> Result<(), DecodeError> {
    if written.is_multiple_of(3) {
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
        if scalar::sextet(input[last]).unwrap_or(0) & unused_bits_mask != 0 {
            return Err(DecodeError::NonCanonical(last));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{decode_to_vec, scalar_decode_to_vec, Rng};

    fn enc(input: &[u8], opts: EncodeOptions) -> Vec<u8> {
        let mut out = vec![0u8; encoded_len(input.len(), opts.padding).unwrap()];
        let n = encode_into(input, opts, &mut out);
        assert_eq!(n, out.len());
        out
    }

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
                            !scalar::is_sextet_class(
                                scalar::class_table_for(opts.alphabet)[byte as usize]
                            ),
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
            if input.len() > SHORT_INPUT_MAX || input.is_empty() {
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

    /// Decoding the trimmed input, error offsets shifted by the cut, is
    /// decoding the input: whitespace around valid text, around text with
    /// stray bytes (errors before, inside and after the cut's reach), and
    /// whitespace only; under every option set (`whitespace => reject`
    /// trims nothing).
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn trimmed_input_decodes_as_the_whole() {
        let seed = 0x5EED_0011;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let spaces = b" \t\r\n";
        let nasty = b"= \n\x0c\t-_+/AQgz";
        let mut cut_some = 0;
        for round in 0..20_000 {
            let plain = rng.bytes(round % 200);
            let mut text = enc(&plain, rng.encode_options());
            if round % 3 == 0 && !text.is_empty() {
                let at = rng.next() as usize % text.len();
                text[at] = nasty[rng.next() as usize % nasty.len()];
            }
            let mut around = |n: u64| -> Vec<u8> {
                (0..rng.next() % n)
                    .map(|_| spaces[rng.next() as usize % spaces.len()])
                    .collect()
            };
            let (head, tail) = (around(4), around(4));
            let input = [head, text, tail].concat();
            for opts in DecodeOptions::all() {
                let (trimmed, cut) = trim_whitespace(&input, opts);
                cut_some += usize::from(trimmed.len() < input.len());
                let mut out = vec![0u8; decoded_len_bound(trimmed)];
                let got = decode_into(trimmed, opts, &mut out)
                    .map(|n| out[..n].to_vec())
                    .map_err(|e| e.shifted(cut));
                assert_eq!(
                    got,
                    scalar_decode_to_vec(&input, opts),
                    "{:?} {opts:?}",
                    String::from_utf8_lossy(&input)
                );
            }
        }
        assert!(cut_some > 50_000, "trimmed {cut_some}");
        let blank = DecodeOptions::DEFAULT;
        assert_eq!(trim_whitespace(b" \r\n\t", blank), (&b""[..], 4));
        assert_eq!(trim_whitespace(b"", blank), (&b""[..], 0));
        assert_eq!(
            trim_whitespace(b"\x0cQQ==\x0c", blank),
            (&b"\x0cQQ==\x0c"[..], 0)
        );
    }

    /// The simdutf defect `guard_bracket` works around, called raw: `[`
    /// then 63 `A` under `DefaultOrUrl`. Fails when a simdutf update fixes
    /// arm64 (remove the guard then) or breaks x86 the same way.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn simdutf_arm64_takes_bracket_in_any_alphabet() {
        let mut input = [b'A'; 64];
        input[0] = b'[';
        let mut output = [0u8; 48];
        // SAFETY: `output` holds the 48 bytes 64 characters decode to at
        // most (maximal_decoded_len(64)); the arrays are distinct locals.
        let raw = unsafe {
            simdutf::base64_to_binary(
                input.as_ptr(),
                input.len(),
                output.as_mut_ptr(),
                Base64Options::DefaultOrUrl,
                LastChunkHandlingOptions::Loose,
            )
        };
        let taken = raw.error == ErrorCode::Success;
        assert_eq!(
            taken,
            SIMDUTF_ANY_TAKES_BRACKET,
            "simdutf now {} `[` in DefaultOrUrl on this architecture: \
             update SIMDUTF_ANY_TAKES_BRACKET and its guard",
            if taken { "takes" } else { "rejects" }
        );
        let guarded = guard_bracket(&input, Alphabet::Any, raw, input.len());
        assert_eq!(
            (guarded.error, guarded.count),
            (ErrorCode::InvalidBase64Character, 0)
        );
    }

    /// `mode => any` with every byte value at every position of 64- to
    /// 256-character inputs: the same verdict, reason and offset as the
    /// scalar rules on every kernel (the arm64 `[` defect included).
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn any_alphabet_every_byte_everywhere() {
        let opts = DecodeOptions {
            alphabet: Alphabet::Any,
            ..DecodeOptions::DEFAULT
        };
        for len in [64, 68, 128, 192, 256] {
            let base: Vec<u8> = (0..len).map(|i| b"AQgw-_+/"[i % 8]).collect();
            for at in 0..len {
                for byte in 0..=255u8 {
                    let mut input = base.clone();
                    input[at] = byte;
                    assert_eq!(
                        decode_to_vec(&input, opts),
                        scalar_decode_to_vec(&input, opts),
                        "len {len}, byte {byte:#04x} at {at}"
                    );
                }
            }
        }
    }

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
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn decoded_len_bound_is_exact_without_whitespace() {
        for len in 0..200 {
            let plain = vec![0xA5u8; len];
            for padding in [true, false] {
                let encoded = enc(
                    &plain,
                    EncodeOptions {
                        alphabet: Alphabet::Standard,
                        padding,
                    },
                );
                assert_eq!(
                    decoded_len_bound(&encoded),
                    len,
                    "len {len} padding {padding}"
                );
            }
        }
        assert_eq!(
            decoded_len_bound(b"===="),
            1,
            "at most two '=' are discounted"
        );
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn rfc4648_section10_vectors() {
        let vectors: [(&[u8], &[u8]); 7] = [
            (b"", b""),
            (b"f", b"Zg=="),
            (b"fo", b"Zm8="),
            (b"foo", b"Zm9v"),
            (b"foob", b"Zm9vYg=="),
            (b"fooba", b"Zm9vYmE="),
            (b"foobar", b"Zm9vYmFy"),
        ];
        for (plain, encoded) in vectors {
            assert_eq!(enc(plain, EncodeOptions::DEFAULT), encoded);
            assert_eq!(
                decode_to_vec(encoded, DecodeOptions::DEFAULT),
                Ok(plain.to_vec())
            );
        }
    }

    fn all_decode_options() -> Vec<DecodeOptions> {
        DecodeOptions::all()
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn round_trip_every_length_to_1100() {
        let seed = 0x5EED_0001;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        for len in 0..=1100 {
            let plain = rng.bytes(len);
            for alphabet in [Alphabet::Standard, Alphabet::UrlSafe] {
                for padding in [true, false] {
                    let encoded = enc(&plain, EncodeOptions { alphabet, padding });
                    let opts = DecodeOptions {
                        alphabet,
                        padding_required: padding,
                        reject_whitespace: true,
                        canonical: true,
                    };
                    assert_eq!(
                        decode_to_vec(&encoded, opts),
                        Ok(plain.clone()),
                        "len {len} {alphabet:?} {padding}"
                    );
                }
            }
        }
    }

    /// The fast path (simdutf + checks) and the scalar definition agree on
    /// mutated inputs: output bytes, accept/reject, reason and offset.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn fast_path_agrees_with_scalar_definition() {
        let seed = 0x5EED_0002;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let specials = b"=\t\n\r \x0c\x0b-_+/\x00\xff.QA";
        let options = all_decode_options();
        for round in 0..20_000 {
            let len = (rng.next() % 200) as usize;
            let plain = rng.bytes(len);
            let mut text = enc(
                &plain,
                EncodeOptions {
                    alphabet: Alphabet::Standard,
                    padding: rng.next().is_multiple_of(2),
                },
            );
            for _ in 0..rng.next() % 4 {
                rng.edit(&mut text, specials);
            }
            for &opts in &options {
                assert_eq!(
                    decode_to_vec(&text, opts),
                    scalar_decode_to_vec(&text, opts),
                    "round {round} input {text:?} {opts:?}"
                );
            }
        }
    }
}
