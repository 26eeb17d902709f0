//! What a call is charged (`enif_consume_timeslice`) and which calls are
//! sliced: work estimated from a table of constant rates, one per kind of
//! work and class of kernel, as jiffy's `bytes_per_red` and OTP's BIFs
//! charge. The charge is fairness, not a stopwatch: a factor of two between
//! CPUs is fine. What keeps a scheduler free is the clock that bounds each
//! slice (`engine::run_slice`).

use crate::kernel;
use std::cell::Cell;
use std::sync::OnceLock;
use std::time::Duration;

/// The unit of `enif_consume_timeslice`, a process's full reduction budget
/// (4000 reductions), as the time OTP's own `base64:decode/1` takes to spend
/// it. A scheduler looks at the clock, and so fires due timers, only after
/// every 4000 reductions it has run (`ERTS_CHECK_TIME_REDS` in erts's
/// `erl_process.c`): work charged any slower makes its neighbours' timers
/// later than `base64` does.
pub const TIMESLICE: Duration = Duration::from_micros(40);

/// The kinds of work the table has a rate for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    Encode,
    /// Encode in lines (`line_length`).
    EncodeLines,
    /// Decode and validation of text without whitespace.
    Decode,
    /// Decode and validation of text that held whitespace, and
    /// `mime_decode` of text it reads in one pass.
    DecodeSpaced,
    /// `mime_decode` of text with bytes outside the alphabet, filtered a
    /// byte at a time.
    MimeFiltered,
    HexEncode,
    HexDecode,
    Base32Encode,
    Base32Decode,
}

/// The kernels a kind of work runs on, by the SIMD they use: a column of
/// `PS_PER_BYTE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Avx512,
    Avx2,
    /// 128-bit vectors: SSE4.2 (simdutf's westmere kernel) and NEON (arm64).
    Vector128,
    Scalar,
}

/// Picoseconds per input byte of each kind of work on each class of
/// kernel: a call's rate on data in L2, where most calls' data is, for the
/// slowest form of its work (odd line lengths, stray whitespace), rounded,
/// as measured on a CPU that runs all four x86 classes (`bench/README.md`, "Charges"). Rows follow `Work`; Base16
/// runs const-hex's kernels (its own AVX2 or NEON, else portable code) and
/// Base32 portable code, whatever simdutf's kernel.
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

/// The class of const-hex's kernel: AVX2 on x86-64 where the CPU has it,
/// NEON on aarch64, else portable code (also with the `hex-generic` feature).
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

/// The class `work` runs on in this process.
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

/// The estimated nanoseconds of `input_len` bytes of `work`.
#[inline]
fn work_ns(work: Work, input_len: usize) -> u64 {
    (input_len as u64).saturating_mul(ps_per_byte(work)) / 1000
}

/// Calls estimated under this much work cost only their one reduction,
/// like a BIF's small work: charged their share, loops of them ran up to a
/// fifth slower (`bench/README.md`, "Charges"). Half a percent of a
/// timeslice: a process that makes nothing but such calls still holds its
/// scheduler for only 4000 of them, about a millisecond.
pub const UNCHARGED_NS: u64 = PERCENT_NS / 2;

/// One percent of a timeslice, the unit of `enif_consume_timeslice`.
const PERCENT_NS: u64 = TIMESLICE.as_nanos() as u64 / 100;

/// A slice is a loop of steps of about this much estimated work, with a
/// look at the clock after each, so a slice overruns its timeslice by at
/// most a step.
const STEP_NS: u64 = TIMESLICE.as_nanos() as u64 / 8;

/// Whether a job of `work` on `input_len` bytes is sliced: its estimated
/// work is more than a timeslice (or, in tests, more than the forced slice).
#[inline]
pub fn is_sliced(work: Work, input_len: usize) -> bool {
    match forced_slice_bytes() {
        Some(bytes) => input_len > bytes,
        None => work_ns(work, input_len) > TIMESLICE.as_nanos() as u64,
    }
}

/// Input bytes of `work` in a step of a slice: about `STEP_NS` of work, or
/// the forced slice in tests.
pub fn step_bytes(work: Work) -> usize {
    forced_slice_bytes().unwrap_or((STEP_NS * 1000 / ps_per_byte(work)) as usize)
}

/// The percent of a timeslice to charge now for a call on `input_len` bytes
/// of `work` that ran to its end: none for work under `UNCHARGED_NS`, else
/// `charge_percent` of it.
#[inline]
pub fn call_percent(work: Work, input_len: usize) -> i32 {
    match work_ns(work, input_len) {
        ns if ns < UNCHARGED_NS => 0,
        ns => charge_percent(ns),
    }
}

thread_local! {
    /// Work done on this scheduler thread and not yet charged: less than 1%.
    /// A plain integer, so no thread-exit destructor points into this
    /// library after the NIF module is purged (as `scratch.rs`).
    static OWED_NS: Cell<u64> = const { Cell::new(0) };
}

/// The whole percents of a timeslice to charge now for `ns` of work, the
/// rest carried over on this scheduler thread (onto whichever process runs
/// next, under 1%), so that a loop of calls much shorter than 1% is charged
/// in total what it costs, rather than nothing or 1% per call.
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

/// Test hook (`b64simd_nif:set_slice_bytes/1`, in builds with the `hooks`
/// feature only): when non-zero, every input above this many bytes is
/// sliced, a step of this many bytes per slice, so slicing is proven on
/// small inputs.
#[cfg(feature = "hooks")]
static FORCED_SLICE_BYTES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The slice forced by the test hook, if any: always `None` in a build
/// without the `hooks` feature, so no VM-wide switch exists there.
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

/// Every kind of work, in the order of the table's rows: for the test
/// hook that shows the table, and the tests.
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
