//! Every simdutf call, each with its length contract checked where it is
//! made, and guards for known simdutf defects; no other module calls simdutf.

use crate::lengths::decoded_len_bound;
use crate::options::{Alphabet, EncodeOptions};
use ::simdutf::{Base64Options, ErrorCode, LastChunkHandlingOptions};
use std::mem::MaybeUninit;

fn encode_variant(opts: EncodeOptions) -> Base64Options {
    match (opts.alphabet, opts.padding) {
        (Alphabet::UrlSafe, true) => Base64Options::UrlWithPadding,
        (Alphabet::UrlSafe, false) => Base64Options::Url,
        (_, true) => Base64Options::Default,
        (_, false) => Base64Options::DefaultNoPadding,
    }
}

fn decode_variant(alphabet: Alphabet) -> Base64Options {
    match alphabet {
        Alphabet::Standard => Base64Options::Default,
        Alphabet::UrlSafe => Base64Options::Url,
        Alphabet::Any => Base64Options::DefaultOrUrl,
    }
}

/// Encodes `input` into `output`, which must be exactly
/// `encoded_len(input.len(), opts.padding)` bytes long; returns that length.
pub fn simdutf_encode_into(
    input: &[u8],
    opts: EncodeOptions,
    output: &mut [MaybeUninit<u8>],
) -> usize {
    if input.is_empty() {
        return 0;
    }
    let variant = encode_variant(opts);
    let length = ::simdutf::base64_length_from_binary(input.len(), variant);
    assert_eq!(
        output.len(),
        length,
        "encode output sized by simdutf's length"
    );
    // SAFETY: `output` holds exactly the `length` bytes simdutf counts for
    // this input and variant (checked above); a `&mut` borrow cannot overlap.
    let written = unsafe {
        ::simdutf::binary_to_base64(
            input.as_ptr(),
            input.len(),
            output.as_mut_ptr().cast(),
            variant,
        )
    };
    clear_upper_state();
    written
}

/// simdutf's encoder of `input` in lines of `line_length` characters (at
/// least 4) with LF breaks, at the start of `output`; returns the bytes
/// written. Panics, rather than overflow, if `output` is shorter.
pub fn simdutf_encode_lines_into(
    input: &[u8],
    opts: EncodeOptions,
    line_length: usize,
    output: &mut [MaybeUninit<u8>],
) -> usize {
    let variant = encode_variant(opts);
    let length = ::simdutf::base64_length_from_binary_with_lines(input.len(), variant, line_length);
    let target = &mut output[..length];
    // SAFETY: `target` is the `length` bytes (sliced above) simdutf counts
    // for this input, variant and line length; input and output are distinct.
    let written = unsafe {
        ::simdutf::binary_to_base64_with_lines(
            input.as_ptr(),
            input.len(),
            target.as_mut_ptr().cast(),
            line_length,
            variant,
        )
    };
    clear_upper_state();
    written
}

/// simdutf 7.7.1's haswell kernel (crate 0.7.0, C++ built by gcc 12) can
/// return with the YMM upper halves in use, lacking `vzeroupper`: its encoder
/// always, its standard decoder for some lengths. Until they are cleared,
/// every legacy SSE instruction after it, in the BEAM and our Rust, runs
/// slower (`bench/README.md`, "Small calls"), so every simdutf call that can
/// run it is followed by this. Reproduction on a haswell-kernel CPU:
/// `binary_to_base64` of 32 bytes, or `base64_to_binary` of 100 characters,
/// then `xgetbv(1)`: bit 2 (AVX state) set. Remove this guard when
/// `tests::simdutf_haswell_leaves_the_upper_state_in_use` fails. Glue of a
/// call, always inlined (`job`'s module doc says why).
#[inline(always)]
fn clear_upper_state() {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU has AVX (checked above), all `vzeroupper` needs; it
        // zeroes only vector upper halves, where nothing lives across a call.
        unsafe { std::arch::x86_64::_mm256_zeroupper() };
    }
}

/// simdutf's loose decode (no padding required) of all of `input`; on success
/// `count` is the bytes written. Panics unless `output` holds
/// `decoded_len_bound(input)` bytes, the most simdutf writes.
pub fn decode_loose(
    input: &[u8],
    alphabet: Alphabet,
    output: &mut [MaybeUninit<u8>],
) -> ::simdutf::Result {
    assert!(output.len() >= decoded_len_bound(input));
    // SAFETY: `output` is long enough (checked above); input and output are
    // distinct borrows.
    let result = unsafe {
        ::simdutf::base64_to_binary(
            input.as_ptr(),
            input.len(),
            output.as_mut_ptr().cast(),
            decode_variant(alphabet),
            LastChunkHandlingOptions::Loose,
        )
    };
    clear_upper_state();
    guard_bracket(input, alphabet, result, input.len())
}

/// What one bounded simdutf decode did: input bytes consumed, bytes written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub consumed: usize,
    pub written: usize,
}

/// simdutf's decode of `input` into at most `output.len()` bytes (its
/// `base64_to_binary_safe`): its result (on success or a full buffer,
/// `count` is the input consumed) and the bytes written.
pub fn decode_bounded(
    input: &[u8],
    output: &mut [MaybeUninit<u8>],
    alphabet: Alphabet,
    last_chunk: LastChunkHandlingOptions,
) -> (::simdutf::Result, usize) {
    let mut written = output.len();
    // SAFETY: both slices are valid and distinct, and simdutf writes at most
    // `written` (= output.len()) bytes.
    let result = unsafe {
        ::simdutf::base64_to_binary_safe(
            input.as_ptr(),
            input.len(),
            output.as_mut_ptr().cast(),
            &mut written,
            decode_variant(alphabet),
            last_chunk,
            false,
        )
    };
    clear_upper_state();
    (
        guard_bracket(input, alphabet, result, result.count),
        written,
    )
}

/// Whether `piece` is only alphabet characters in whole quanta, decoding it
/// into `output`: then simdutf's loose decode writes exactly 3 bytes per 4
/// (whitespace, `=` or a partial quantum write fewer). Cheaper per call than
/// `decode_bounded`.
pub fn decodes_whole(piece: &[u8], alphabet: Alphabet, output: &mut [MaybeUninit<u8>]) -> bool {
    // 3 bytes per 4 characters is at least decoded_len_bound(piece).
    if piece.len() % 4 != 0 || output.len() < piece.len() / 4 * 3 {
        return false;
    }
    let result = decode_loose(piece, alphabet, output);
    result.error == ErrorCode::Success && result.count == piece.len() / 4 * 3
}

/// simdutf 7.7.1's arm64 kernel (crate 0.7.0) takes `[` (0x5B) for a
/// character of its "default or url" alphabet (our `mode => any`) inside
/// whole 64-character blocks; x86 kernels and the scalar rules reject it.
/// Reproduction: `base64_to_binary(.., DefaultOrUrl, Loose)` of `[` then 63
/// `A` gives SUCCESS, count 48, not INVALID_BASE64_CHARACTER, count 0. Remove
/// this guard when `tests::simdutf_arm64_takes_bracket_in_any_alphabet` fails.
const SIMDUTF_ANY_TAKES_BRACKET: bool = cfg!(target_arch = "aarch64");

/// `result` of a simdutf decode that read `input[..read]`, with the arm64
/// defect above undone: a success of `mode => any` over a `[` becomes the
/// error at the first `[`, so that callers take their exact path. Only
/// `mode => any` on aarch64 pays this second pass over the input.
fn guard_bracket(
    input: &[u8],
    alphabet: Alphabet,
    result: ::simdutf::Result,
    read: usize,
) -> ::simdutf::Result {
    let succeeded = matches!(
        result.error,
        ErrorCode::Success | ErrorCode::OutputBufferTooSmall
    );
    if !(SIMDUTF_ANY_TAKES_BRACKET && alphabet == Alphabet::Any && succeeded) {
        return result;
    }
    match memchr::memchr(b'[', &input[..read.min(input.len())]) {
        Some(at) => ::simdutf::Result {
            error: ErrorCode::InvalidBase64Character,
            count: at,
        },
        None => result,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::as_output;
    use crate::test_support::reference_encode;
    #[cfg(target_arch = "x86_64")]
    use crate::test_support::{skipped, upper_state_in_use, Needs};

    /// The simdutf defect `clear_upper_state` works around, called raw on
    /// the haswell kernel; and our calls clear the state after it. Fails
    /// when a simdutf update clears it itself (remove the guard then).
    #[test]
    #[cfg(target_arch = "x86_64")]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn simdutf_haswell_leaves_the_upper_state_in_use() {
        const NAME: &str = "simdutf::simdutf_haswell_leaves_the_upper_state_in_use";
        let kernel = crate::kernel::active();
        if kernel != Ok("haswell") {
            let why = format!("simdutf runs kernel {kernel:?}, not haswell");
            return skipped(NAME, Needs::HaswellKernel, &why);
        }
        if upper_state_in_use().is_none() {
            return skipped(NAME, Needs::Xinuse, "XINUSE unknown here");
        }
        let data = [0x5Au8; 75];
        let text = reference_encode(&data, EncodeOptions::DEFAULT);
        assert_eq!(text.len(), 100);
        let mut output = [0u8; 100];
        clear_upper_state();
        // SAFETY: 44 bytes is what 32 encode to with padding; distinct
        // buffers.
        let written = unsafe {
            ::simdutf::binary_to_base64(
                data.as_ptr(),
                32,
                output.as_mut_ptr(),
                Base64Options::Default,
            )
        };
        assert_eq!(written, 44);
        assert_eq!(
            upper_state_in_use(),
            Some(true),
            "simdutf's haswell encoder now clears the upper state"
        );
        clear_upper_state();
        // SAFETY: 100 characters decode to at most 75 bytes; distinct buffers.
        let result = unsafe {
            ::simdutf::base64_to_binary(
                text.as_ptr(),
                text.len(),
                output.as_mut_ptr(),
                Base64Options::Default,
                LastChunkHandlingOptions::Loose,
            )
        };
        assert_eq!((result.error, result.count), (ErrorCode::Success, 75));
        assert_eq!(
            upper_state_in_use(),
            Some(true),
            "simdutf's haswell decoder now clears the upper state"
        );
        simdutf_encode_into(
            &data[..32],
            EncodeOptions::DEFAULT,
            as_output(&mut output[..44]),
        );
        assert_eq!(
            upper_state_in_use(),
            Some(false),
            "simdutf_encode_into left it in use"
        );
        decode_loose(&text, Alphabet::Standard, as_output(&mut output[..75]));
        assert_eq!(
            upper_state_in_use(),
            Some(false),
            "decode_loose left it in use"
        );
        decode_bounded(
            &text,
            as_output(&mut output[..75]),
            Alphabet::Standard,
            LastChunkHandlingOptions::Loose,
        );
        assert_eq!(
            upper_state_in_use(),
            Some(false),
            "decode_bounded left it in use"
        );
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn rfc4648_section10_encodings() {
        // The active encoder, which every call takes (`encode_piece`).
        crate::test_support::follows_rfc4648(|plain, opts| {
            let mut out =
                vec![0u8; crate::lengths::encoded_len(plain.len(), opts.padding).unwrap()];
            let written =
                crate::dispatch::encode_piece(plain, opts, as_output(&mut out), plain.len());
            out[..written].to_vec()
        });
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
            ::simdutf::base64_to_binary(
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
}
