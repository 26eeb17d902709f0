//! Calibration at load: the active kernel's speed, so that slice sizes and
//! charges fit whatever CPU and kernel this is.

use crate::term::alloc_binary;
use b64simd_core::budget::{self, Work};
use b64simd_core::codec;
use b64simd_core::options::{DecodeOptions, EncodeOptions};
use b64simd_core::wrap::{self, LineBreak, Lines};

/// Measures the active kernel's speed, so that slice thresholds and charges fit
/// whatever CPU and kernel this is.
pub(crate) fn calibrate() {
    let plain = vec![0x5Au8; budget::CALIBRATION_MAX_BYTES];
    budget::calibrate(Work::Encode, |len| {
        let mut encoded = vec![0u8; codec::encoded_len(len, true).unwrap_or(0)];
        codec::encode_into(&plain[..len], EncodeOptions::DEFAULT, &mut encoded);
    });
    let mut encoded = vec![0u8; codec::encoded_len(plain.len(), true).unwrap_or(0)];
    codec::encode_into(&plain, EncodeOptions::DEFAULT, &mut encoded);
    budget::calibrate(Work::Decode, |len| {
        let piece = &encoded[..len / 4 * 4];
        let mut decoded = vec![0u8; codec::maximal_decoded_len(piece.len())];
        let _ = codec::decode_into(piece, DecodeOptions::DEFAULT, &mut decoded);
    });
    // A call's work as a loop of calls does it: the output is an ERTS
    // binary, allocated and freed each time.
    budget::calibrate_call_cost(Work::Encode, |len| {
        let out_len = codec::encoded_len(len, true).unwrap_or(0);
        if let Ok(mut output) = alloc_binary(out_len) {
            codec::encode_into(&plain[..len], EncodeOptions::DEFAULT, output.as_mut_slice());
        }
    });
    budget::calibrate_call_cost(Work::Decode, |len| {
        let piece = &encoded[..len / 4 * 4];
        if let Ok(mut output) = alloc_binary(codec::decoded_len_bound(piece)) {
            let _ = codec::decode_into(piece, DecodeOptions::DEFAULT, output.as_mut_slice());
        }
    });
    // The same 12 KiB of data, unbroken and as MIME text.
    let data = &plain[..12 * 1024];
    let mime = Lines {
        length: 76,
        line_break: LineBreak::CrLf,
    };
    let mut wrapped = vec![0u8; wrap::wrapped_len(data.len(), true, mime).unwrap_or(0)];
    wrap::encode_wrapped_into(data, EncodeOptions::DEFAULT, mime, &mut wrapped);
    let unbroken = &encoded[..codec::encoded_len(data.len(), true).unwrap_or(0)];
    let mut decoded = vec![0u8; codec::maximal_decoded_len(wrapped.len())];
    let mut scratch = decoded.clone();
    budget::calibrate_whitespace(
        || {
            let _ = codec::decode_into(unbroken, DecodeOptions::DEFAULT, &mut decoded);
        },
        || {
            let _ = codec::decode_into(&wrapped, DecodeOptions::DEFAULT, &mut scratch);
        },
    );
}
