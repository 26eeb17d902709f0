//! What a call is charged (`enif_consume_timeslice`) and which calls are
//! sliced, from constant rates per kind of work and class of kernel, as
//! jiffy's `bytes_per_red` and OTP's BIFs charge: fairness, not a stopwatch (a factor
//! of two between CPUs is fine); the clock bounding each slice (`engine::run_slice`)
//! keeps a scheduler free.

use crate::kernel;
use std::cell::Cell;
use std::sync::OnceLock;
use std::time::Duration;

/// The unit of `enif_consume_timeslice`, a process's 4000 reductions, as
/// the time OTP's `base64:decode/1` takes to spend them: a scheduler checks
/// the clock, and fires timers, only every 4000 reductions
/// (`ERTS_CHECK_TIME_REDS`), so work charged slower delays timers more than `base64`.
pub const TIMESLICE: Duration = Duration::from_micros(40);

/// The kinds of work the table has a rate for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    Encode,
    EncodeLines,
    /// Decode and validation of text without whitespace.
    Decode,
    /// Decode and validation of text with whitespace; `mime_decode` in one pass.
    DecodeSpaced,
    /// `mime_decode` of text with bytes outside the alphabet, filtered bytewise.
    MimeFiltered,
    HexEncode,
    HexDecode,
    Base32Encode,
    Base32Decode,
}

/// The kernels a kind of work runs on, by their SIMD: a column of `PS_PER_BYTE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Avx512,
    Avx2,
    /// 128-bit vectors: SSE4.2 (simdutf's westmere kernel) and NEON (arm64).
    Vector128,
    Scalar,
}

/// Picoseconds per input byte, a row per `Work`, a column per `Class`: a
/// call's rate on data in L2, where most calls' data is, for the slowest
/// form of its work (odd line lengths, stray whitespace), rounded, as
/// measured on a CPU that runs all four x86 classes (`bench/README.md`,
/// "Charges"). Base16 runs const-hex's kernels, Base32 portable code.
#[rustfmt::skip]
const PS_PER_BYTE: [[u16; 4]; 9] = [
    //                 AVX-512  AVX2  128-bit  scalar
    /* Encode */       [   30,    50,    100,    480],
    /* EncodeLines */  [   70,   100,    150,    520],
    /* Decode */       [   30,    45,     85,    290],
    /* DecodeSpaced */ [   80,   120,    200,    600],
    /* MimeFiltered */ [  500,   500,    500,    650],
    /* HexEncode */    [   50,    50,     50,    430],
    /* HexDecode */    [   35,    35,     35,    280],
    /* Base32Encode */ [  300,   300,    300,    300],
    /* Base32Decode */ [  330,   330,    330,    330],
];

/// The class of simdutf's kernel (set once, at load, with the kernel).
fn base64_class() -> Class {
    static CLASS: OnceLock<Class> = OnceLock::new();
    *CLASS.get_or_init(|| match kernel::active() {
        Ok("icelake") => Class::Avx512,
        Ok("haswell") => Class::Avx2,
        Ok("westmere" | "arm64") => Class::Vector128,
        _ => Class::Scalar,
    })
}

/// The class of const-hex's kernel (portable code with `hex-generic`).
fn hex_class() -> Class {
    if cfg!(feature = "hex-generic") {
        return Class::Scalar;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        return Class::Avx2;
    }
    if cfg!(target_arch = "aarch64") {
        Class::Vector128
    } else {
        Class::Scalar
    }
}

pub fn class_of(work: Work) -> Class {
    match work {
        Work::HexEncode | Work::HexDecode => hex_class(),
        _ => base64_class(),
    }
}

/// Picoseconds per input byte of `work` in this process (`PS_PER_BYTE`).
#[inline]
pub fn ps_per_byte(work: Work) -> u64 {
    PS_PER_BYTE[work as usize][class_of(work) as usize] as u64
}

#[inline]
fn work_ns(work: Work, input_len: usize) -> u64 {
    (input_len as u64).saturating_mul(ps_per_byte(work)) / 1000
}

/// Calls estimated under this much work cost only their one reduction, as a
/// BIF's small work: charging them slowed loops of them (`bench/README.md`,
/// "Charges"). Half a percent of a timeslice: a process making only such
/// calls still holds its scheduler for just 4000 of them.
pub const UNCHARGED_NS: u64 = PERCENT_NS / 2;

/// One percent of a timeslice, the unit of `enif_consume_timeslice`.
const PERCENT_NS: u64 = TIMESLICE.as_nanos() as u64 / 100;

/// A slice's steps are about this much estimated work, the clock read after
/// each, so a slice overruns its timeslice by at most a step.
const STEP_NS: u64 = TIMESLICE.as_nanos() as u64 / 8;

/// Whether `input_len` bytes of `work` take over a timeslice (or the forced slice).
#[inline]
pub fn is_sliced(work: Work, input_len: usize) -> bool {
    match forced_slice_bytes() {
        Some(bytes) => input_len > bytes,
        None => work_ns(work, input_len) > TIMESLICE.as_nanos() as u64,
    }
}

/// Input bytes of `work` in a slice's step: about `STEP_NS`, or the forced slice.
pub fn step_bytes(work: Work) -> usize {
    forced_slice_bytes().unwrap_or((STEP_NS * 1000 / ps_per_byte(work)) as usize)
}

/// The percent to charge a finished call on `input_len` bytes of `work` (0 under `UNCHARGED_NS`).
#[inline]
pub fn call_percent(work: Work, input_len: usize) -> i32 {
    match work_ns(work, input_len) {
        ns if ns < UNCHARGED_NS => 0,
        ns => charge_percent(ns),
    }
}

thread_local! {
    /// Work done on this thread not yet charged (under 1%): a plain integer,
    /// so no thread-exit destructor points into a purged library (as `scratch.rs`).
    static OWED_NS: Cell<u64> = const { Cell::new(0) };
}

/// The whole percents of a timeslice to charge for `ns` of work, the rest
/// carried over on this thread to whichever process runs next, so calls far
/// under 1% are charged in total what they cost, not nothing or 1% each.
fn charge_percent(ns: u64) -> i32 {
    OWED_NS.with(|owed| {
        let total = owed.get().saturating_add(ns);
        let percent = total / PERCENT_NS;
        if percent >= 100 {
            owed.set(0);
            100
        } else {
            owed.set(total - percent * PERCENT_NS);
            percent as i32
        }
    })
}

/// Share of a timeslice that `elapsed` is, for a slice timed on the clock.
pub fn elapsed_percent(elapsed: Duration) -> i32 {
    (elapsed.as_nanos() * 100 / TIMESLICE.as_nanos()).clamp(1, 100) as i32
}

/// Test hook (`b64simd_nif:set_slice_bytes/1`, `hooks` builds only): if non-zero, inputs
/// over this many bytes are sliced, a step of this many a slice, to prove slicing on small inputs.
#[cfg(feature = "hooks")]
static FORCED_SLICE_BYTES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The test hook's forced slice: always `None` without `hooks`, so no VM-wide switch.
#[inline]
pub fn forced_slice_bytes() -> Option<usize> {
    #[cfg(feature = "hooks")]
    {
        match FORCED_SLICE_BYTES.load(std::sync::atomic::Ordering::Relaxed) {
            0 => None,
            forced => Some(forced),
        }
    }
    #[cfg(not(feature = "hooks"))]
    None
}

/// Forces every slice to `bytes` input bytes (0: the table's again).
#[cfg(feature = "hooks")]
pub fn force_slice_bytes(bytes: usize) {
    FORCED_SLICE_BYTES.store(bytes, std::sync::atomic::Ordering::Relaxed);
}

/// Every kind of work, in the table's row order (for the charges hook and tests).
pub const ALL_WORK: [Work; 9] = [
    Work::Encode,
    Work::EncodeLines,
    Work::Decode,
    Work::DecodeSpaced,
    Work::MimeFiltered,
    Work::HexEncode,
    Work::HexDecode,
    Work::Base32Encode,
    Work::Base32Decode,
];

impl Work {
    /// Its name in the test hook's map (`b64simd_nif:charges/0`).
    pub fn name(self) -> &'static str {
        match self {
            Work::Encode => "encode",
            Work::EncodeLines => "encode_lines",
            Work::Decode => "decode",
            Work::DecodeSpaced => "decode_spaced",
            Work::MimeFiltered => "mime_filtered",
            Work::HexEncode => "hex_encode",
            Work::HexDecode => "hex_decode",
            Work::Base32Encode => "base32_encode",
            Work::Base32Decode => "base32_decode",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_work_is_its_row() {
        for (row, work) in ALL_WORK.into_iter().enumerate() {
            assert_eq!(work as usize, row, "{work:?}");
        }
        assert_eq!(ALL_WORK.len(), PS_PER_BYTE.len());
    }

    #[test]
    fn slower_classes_never_cost_less() {
        for row in PS_PER_BYTE {
            assert!(row.windows(2).all(|pair| pair[0] <= pair[1]), "{row:?}");
        }
    }

    #[test]
    fn charges_carry_over_until_a_whole_percent() {
        // A capped charge clears this thread's carry, whatever ran before.
        assert_eq!(charge_percent(PERCENT_NS * 100), 100);
        assert_eq!(charge_percent(0), 0);
        assert_eq!(charge_percent(PERCENT_NS / 2), 0);
        assert_eq!(charge_percent(PERCENT_NS / 2), 1);
        assert_eq!(charge_percent(PERCENT_NS * 5 / 2), 2);
        assert_eq!(charge_percent(PERCENT_NS / 2), 1);
        assert_eq!(charge_percent(PERCENT_NS * 250), 100);
        // A capped charge drops its excess instead of carrying it.
        assert_eq!(charge_percent(PERCENT_NS - 1), 0);
        assert_eq!(charge_percent(1), 1);
    }

    #[test]
    fn a_thousand_small_calls_cost_what_one_big_one_does() {
        assert_eq!(charge_percent(PERCENT_NS * 100), 100);
        let charged: i32 = (0..1000).map(|_| charge_percent(PERCENT_NS / 8)).sum();
        assert_eq!(charged, 125);
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn calls_under_half_a_percent_of_work_cost_only_their_reduction() {
        assert_eq!(charge_percent(PERCENT_NS * 100), 100);
        let ps = ps_per_byte(Work::Decode);
        let under = (UNCHARGED_NS * 1000 / ps) as usize - 1;
        // Nothing charged and nothing carried, however many of them.
        assert!((0..1000).all(|_| call_percent(Work::Decode, under) == 0));
        assert_eq!(charge_percent(PERCENT_NS - 1), 0);
        // At the threshold, the work is charged, onto the carry.
        let at = (UNCHARGED_NS * 1000).div_ceil(ps) as usize;
        let at_ns = at as u64 * ps / 1000;
        assert_eq!(call_percent(Work::Decode, at), 1);
        assert_eq!(charge_percent(PERCENT_NS - at_ns), 0);
        assert_eq!(charge_percent(1), 1);
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn calls_of_more_than_a_timeslice_of_work_are_sliced() {
        for work in ALL_WORK {
            let most = (TIMESLICE.as_nanos() as u64 * 1000 / ps_per_byte(work)) as usize;
            assert!(!is_sliced(work, most), "{work:?}");
            assert!(is_sliced(work, most + most / 100), "{work:?}");
            assert!(step_bytes(work) > 0 && step_bytes(work) < most, "{work:?}");
        }
    }
}
