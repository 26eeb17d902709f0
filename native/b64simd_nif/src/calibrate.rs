//! Calibration at load: the active kernel's speed, so that slice sizes and
//! charges fit whatever CPU and kernel this is.

use crate::term::alloc_binary;
use b64simd_core::budget::{self, Work};
use b64simd_core::decode::DecodeJob;
use b64simd_core::encode::wrap::{wrapped_len, WrapJob};
use b64simd_core::encode::EncodeJob;
use b64simd_core::job::Job;
use b64simd_core::options::{DecodeOptions, EncodeOptions, LineBreak, Lines};
use b64simd_core::simd::encoded_len;

/// `len` bytes encoded into `output`, as a call does.
fn encode(input: &[u8], output: &mut [u8]) {
    let _ = EncodeJob::new(EncodeOptions::DEFAULT).run_to_end(input, output, usize::MAX);
}

/// `input` decoded into a buffer of its own, as a call does.
fn decode(input: &[u8], output: &mut Vec<u8>) {
    let mut job = DecodeJob::new(input, DecodeOptions::DEFAULT);
    output.resize(job.output_len(), 0);
    let _ = job.run_to_end(input, output, usize::MAX);
}

pub(crate) fn calibrate() {
    let plain = vec![0x5Au8; budget::CALIBRATION_MAX_BYTES];
    let encoded_len_of = |len| encoded_len(len, true).unwrap_or(0);
    budget::calibrate(Work::Encode, |len| {
        encode(&plain[..len], &mut vec![0u8; encoded_len_of(len)]);
    });
    let mut encoded = vec![0u8; encoded_len_of(plain.len())];
    encode(&plain, &mut encoded);
    budget::calibrate(Work::Decode, |len| {
        decode(&encoded[..len / 4 * 4], &mut Vec::new());
    });
    // A call's work as a loop of calls does it: the output is an ERTS
    // binary, allocated and freed each time.
    budget::calibrate_call_cost(Work::Encode, |len| {
        if let Ok(mut output) = alloc_binary(encoded_len_of(len)) {
            encode(&plain[..len], output.as_mut_slice());
        }
    });
    budget::calibrate_call_cost(Work::Decode, |len| {
        let piece = &encoded[..len / 4 * 4];
        let mut job = DecodeJob::new(piece, DecodeOptions::DEFAULT);
        if let Ok(mut output) = alloc_binary(job.output_len()) {
            let _ = job.run_to_end(piece, output.as_mut_slice(), usize::MAX);
        }
    });
    // The same 12 KiB of data, unbroken and as MIME text.
    let data = &plain[..12 * 1024];
    let mime = Lines {
        length: 76,
        line_break: LineBreak::CrLf,
    };
    let mut wrapped = vec![0u8; wrapped_len(data.len(), true, mime).unwrap_or(0)];
    let _ = WrapJob::new(EncodeOptions::DEFAULT, mime).run_to_end(data, &mut wrapped, usize::MAX);
    let unbroken = &encoded[..encoded_len_of(data.len())];
    let (mut decoded, mut scratch) = (Vec::new(), Vec::new());
    budget::calibrate_whitespace(
        || decode(unbroken, &mut decoded),
        || decode(&wrapped, &mut scratch),
    );
}
