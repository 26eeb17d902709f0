//! Size arithmetic near and beyond 4 GiB, without allocating it: every
//! length and offset computation is checked against exact u128 arithmetic
//! around each power-of-two and 32-bit boundary, up to `usize::MAX`, and
//! error offsets past 4 GiB must come back untruncated.
//!
//! `lengths::encoded_len` returning `None` is what makes the NIF raise
//! `system_limit` (lib.rs: `.ok_or(Error::RaiseAtom("system_limit"))`); the
//! Erlang side of that is b64simd_31_fault_tests (an allocation that cannot
//! succeed under `ulimit -v`).

use b64simd_core::error::DecodeError;
use b64simd_core::lengths::{encoded_len, maximal_decoded_len};
use b64simd_core::options::DecodeOptions;
use b64simd_core::output::as_output;
use b64simd_core::rules::check_skipped_bytes;
use b64simd_core::scalar::Decoder;

const GIB: usize = 1 << 30;

/// Lengths around every interesting boundary, `usize::MAX` included.
fn boundary_lengths() -> Vec<usize> {
    let mut centres = vec![0, 3 * GIB, 4 * GIB, 6 * GIB, 8 * GIB, 12 * GIB, 16 * GIB];
    centres.extend((31..usize::BITS).map(|bit| 1usize << bit));
    centres.extend([u32::MAX as usize / 4 * 3, usize::MAX / 4 * 3, usize::MAX]);
    let mut lengths = Vec::new();
    for centre in centres {
        for delta in 0..=16usize {
            lengths.extend(centre.checked_sub(delta));
            lengths.extend(centre.checked_add(delta));
        }
    }
    lengths.sort_unstable();
    lengths.dedup();
    lengths
}

fn exact_encoded_len(len: usize, padding: bool) -> u128 {
    let len = len as u128;
    if padding {
        len.div_ceil(3) * 4
    } else {
        (len * 4).div_ceil(3)
    }
}

#[test]
fn encoded_len_is_exact_or_none_when_it_cannot_fit() {
    for len in boundary_lengths() {
        for padding in [true, false] {
            let exact = exact_encoded_len(len, padding);
            let expected = usize::try_from(exact).ok();
            assert_eq!(
                encoded_len(len, padding),
                expected,
                "len {len:#x} padding {padding}"
            );
        }
    }
    // Past 4 GiB of output, nothing is truncated to 32 bits.
    assert_eq!(encoded_len(3 * GIB, true), Some(4 * GIB));
    assert_eq!(encoded_len(3 * GIB + 1, true), Some(4 * GIB + 4));
    assert_eq!(encoded_len(3 * GIB + 1, false), Some(4 * GIB + 2));
    // The largest inputs whose encoding still fits, and the first that do not.
    let last_fitting = usize::MAX / 4 * 3;
    assert_eq!(encoded_len(last_fitting, true), Some(usize::MAX / 4 * 4));
    assert_eq!(encoded_len(last_fitting + 1, true), None);
    assert_eq!(encoded_len(usize::MAX, false), None);
}

#[test]
fn maximal_decoded_len_is_floor_of_three_quarters_and_never_overflows() {
    for len in boundary_lengths() {
        let exact = (len as u128 * 3 / 4) as usize;
        assert_eq!(maximal_decoded_len(len), exact, "len {len:#x}");
        // An upper bound for any input of this length: every byte significant.
        assert!(maximal_decoded_len(len) <= len);
    }
    assert_eq!(maximal_decoded_len(4 * GIB + 3), 3 * GIB + 2);
    assert_eq!(maximal_decoded_len(16 * GIB), 12 * GIB);
}

#[test]
fn encoded_then_decoded_lengths_agree_beyond_4gib() {
    for len in boundary_lengths() {
        if let Some(encoded) = encoded_len(len, false) {
            assert_eq!(maximal_decoded_len(encoded), len, "len {len:#x}");
        }
    }
}

#[test]
fn error_offsets_beyond_4gib_are_not_truncated() {
    let far = (5usize << 32) + 7;
    let mut output = [0u8; 16];
    let opts = DecodeOptions::DEFAULT;
    let mut decoder = Decoder::new(opts, 0);
    assert_eq!(
        decoder.feed(b"Q*", far, as_output(&mut output)),
        Err(DecodeError::InvalidCharacter(far + 1))
    );
    let mut decoder = Decoder::new(opts, 0);
    assert_eq!(
        decoder.feed(b"Q=", far, as_output(&mut output)),
        Err(DecodeError::BadPadding(far + 1))
    );
    let mut decoder = Decoder::new(opts, 0);
    assert_eq!(decoder.feed(b"Q \n", far, as_output(&mut output)), Ok(()));
    assert_eq!(
        decoder.finish(as_output(&mut output)),
        Err(DecodeError::Incomplete(far))
    );
    assert_eq!(
        check_skipped_bytes(b"QQ\x0c==", 1, opts, far),
        Err(DecodeError::InvalidCharacter(far + 2))
    );
}
