//! The AddressSanitizer canary of `make sanitize`: shows that the sanitized
//! fuzzer build would catch simdutf writing past one of our buffers, by
//! making it do so. Built only with the `asan-canary` feature, run only in
//! that build, where ASan stops the process at the first bad byte:
//!
//! ```text
//! asan_canary encode LEN   encode LEN bytes into a buffer one byte short
//! asan_canary decode LEN   decode the encoding of LEN bytes, likewise
//!                          (LEN of at least 2: a buffer of 0 bytes is no
//!                          allocation to overflow)
//! asan_canary kernels      the kernels to try it on: those this CPU runs
//! ```
//!
//! Exits 0 only if the write went unnoticed, which `scripts/sanitize.sh`
//! counts as a failure of the sanitizer, not of the codec.

use simdutf::{Base64Options, LastChunkHandlingOptions};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("kernels") {
        println!("{}", b64simd_core::kernel::supported().join(" "));
        return;
    }
    let (Some(direction), Some(len)) = (
        args.first(),
        args.get(1).and_then(|arg| arg.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: asan_canary encode|decode LEN (LEN >= 2)");
        std::process::exit(2);
    };
    let plain = vec![0x5Au8; len.max(2)];
    let variant = Base64Options::Default;
    let mut text = vec![0u8; simdutf::base64_length_from_binary(plain.len(), variant)];
    // SAFETY: `text` is exactly simdutf's own length for this input.
    let encoded = unsafe {
        simdutf::binary_to_base64(plain.as_ptr(), plain.len(), text.as_mut_ptr(), variant)
    };
    assert_eq!(encoded, text.len());
    let written = match direction.as_str() {
        "encode" => {
            let mut short = vec![0u8; text.len() - 1];
            // SAFETY: none, on purpose: `short` is one byte shorter than
            // simdutf writes. This binary exists to make that overflow
            // happen under ASan, which aborts at it; no other build
            // compiles it (required-features).
            unsafe {
                simdutf::binary_to_base64(plain.as_ptr(), plain.len(), short.as_mut_ptr(), variant)
            }
        }
        "decode" => {
            let mut short = vec![0u8; plain.len() - 1];
            // SAFETY: none, on purpose, as above: `short` is one byte
            // shorter than the bytes `text` decodes to.
            let result = unsafe {
                simdutf::base64_to_binary(
                    text.as_ptr(),
                    text.len(),
                    short.as_mut_ptr(),
                    variant,
                    LastChunkHandlingOptions::Loose,
                )
            };
            result.count
        }
        _ => {
            eprintln!("asan_canary: encode or decode, not {direction}");
            std::process::exit(2);
        }
    };
    println!(
        "asan_canary: {direction} of {len} bytes wrote {written} past a short buffer unnoticed"
    );
}
