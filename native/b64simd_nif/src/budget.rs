//! Time budget: how many bytes this CPU's kernel processes in one timeslice,
//! for reduction accounting (`enif_consume_timeslice`) and for choosing which
//! inputs are sliced so that no call holds a scheduler for more than a slice.
//!
//! The speeds are measured once at load on the active kernel (so the fallback
//! kernel at ~1 GB/s and icelake at ~10 GB/s both get calls of the same
//! duration), on fresh memory, page faults included. Slices themselves are
//! bounded by the clock (`lib.rs`, `run_slice`), as potatosalad's
//! keccakf1600 measures each chunk.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The unit of `enif_consume_timeslice`: a process's full reduction budget
/// (4000 reductions). erl_nif's documentation calls it about 1 ms, but
/// Erlang code spends it much faster: measured here, OTP's own `base64`
/// spends 4000 reductions per 41 us of `decode/1` and per 139 us of
/// `encode/1`. We charge at `decode/1`'s rate.
///
/// The rate matters beyond fairness: a scheduler looks at the clock, and so
/// fires due timers, only after every 4000 reductions it has run
/// (`ERTS_CHECK_TIME_REDS` in erts's `erl_process.c`). Charged per 125 us,
/// a b64simd loop left its neighbours' timers 0.06-0.09 ms later at p99
/// than `base64:decode/1` does; per 60 us, 0.01-0.02 ms; per 40 us, no
/// later (`make latency`).
pub const TIMESLICE: Duration = Duration::from_micros(40);

/// How long one slice of a big input runs: one timeslice, so a sliced call
/// is charged a full timeslice and yields after every slice.
pub const SLICE_TARGET: Duration = TIMESLICE;

/// A slice is a loop of steps of this many input bytes, with a look at the
/// clock after each: 5-10 us on AVX-512, 70-90 us on the scalar fallback, so
/// a slice overruns its 40 us by at most one step. Smaller steps cost sliced
/// decode 10% of its throughput (each bounded-output simdutf call has a
/// fixed cost).
pub const STEP_BYTES: usize = 128 * 1024;

/// The smallest slice we ever use: keeps the per-call overhead negligible
/// even if the clock misbehaves.
const MIN_SLICE_BYTES: usize = 64 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    Encode,
    Decode,
}

/// Input bytes processed per timeslice, per kind of work: the
/// active kernel's measured speed. Conservative until calibrated.
static ENCODE_BYTES_PER_TIMESLICE: AtomicUsize = AtomicUsize::new(256 * 1024);
static DECODE_BYTES_PER_TIMESLICE: AtomicUsize = AtomicUsize::new(256 * 1024);
/// Test hook (`b64simd_nif:set_slice_bytes/1`): when non-zero, forces every
/// slice to this many input bytes, so slicing is proven on small inputs.
static FORCED_SLICE_BYTES: AtomicUsize = AtomicUsize::new(0);

fn speed(work: Work) -> &'static AtomicUsize {
    match work {
        Work::Encode => &ENCODE_BYTES_PER_TIMESLICE,
        Work::Decode => &DECODE_BYTES_PER_TIMESLICE,
    }
}

/// Input bytes the active kernel processes in one timeslice.
pub fn bytes_per_timeslice(work: Work) -> usize {
    speed(work).load(Ordering::Relaxed)
}

/// Input bytes per slice of a sliced job: the forced size in tests, else
/// what the kernel processes in `SLICE_TARGET`.
pub fn slice_bytes(work: Work) -> usize {
    match FORCED_SLICE_BYTES.load(Ordering::Relaxed) {
        0 => scale(bytes_per_timeslice(work), SLICE_TARGET).max(MIN_SLICE_BYTES),
        forced => forced,
    }
}

/// The step size forced by the test hook, if any.
pub fn forced_slice_bytes() -> Option<usize> {
    match FORCED_SLICE_BYTES.load(Ordering::Relaxed) {
        0 => None,
        forced => Some(forced),
    }
}

pub fn force_slice_bytes(bytes: usize) {
    FORCED_SLICE_BYTES.store(bytes, Ordering::Relaxed);
}

/// Inputs above one slice are sliced; below it a call stays short.
pub fn is_sliced(work: Work, input_len: usize) -> bool {
    input_len > slice_bytes(work)
}

/// Share of a timeslice (in percent, for `enif_consume_timeslice`) that
/// processing `bytes` costs, rounded to nearest; 0 means "too small to
/// charge beyond the call's own reduction".
pub fn timeslice_percent(work: Work, bytes: usize) -> i32 {
    let per_timeslice = bytes_per_timeslice(work).max(1);
    // The common small call: skip the division.
    if bytes.saturating_mul(200) < per_timeslice {
        return 0;
    }
    let percent = bytes.saturating_mul(100).saturating_add(per_timeslice / 2) / per_timeslice;
    percent.min(100) as i32
}

/// Share of a timeslice that `elapsed` is, for calls timed directly.
pub fn elapsed_percent(elapsed: Duration) -> i32 {
    (elapsed.as_nanos() * 100 / TIMESLICE.as_nanos()).clamp(1, 100) as i32
}

/// The largest calibration sample: out of L2 on any CPU we know of.
pub const CALIBRATION_MAX_BYTES: usize = 8 << 20;

/// Measures the active kernel once, at load: `run(len)` processes `len`
/// input bytes into a fresh output buffer (page faults included, as in real
/// calls). A first measurement on 256 KiB sizes a second one of about one
/// slice, which is out of cache like the big inputs that get sliced.
pub fn calibrate(work: Work, mut run: impl FnMut(usize)) {
    let mut sample = 256 * 1024;
    for _ in 0..2 {
        run(sample); // warm up, and let simdutf pick its kernel
        let mut best = Duration::MAX;
        for _ in 0..3 {
            let start = Instant::now();
            run(sample);
            best = best.min(start.elapsed());
        }
        speed(work).store(
            per_timeslice(sample, best).max(MIN_SLICE_BYTES),
            Ordering::Relaxed,
        );
        sample = slice_bytes(work).clamp(256 * 1024, CALIBRATION_MAX_BYTES);
    }
}

fn per_timeslice(bytes: usize, elapsed: Duration) -> usize {
    (bytes as u128 * TIMESLICE.as_nanos() / elapsed.as_nanos().max(1)).min(usize::MAX as u128)
        as usize
}

fn scale(per_timeslice: usize, target: Duration) -> usize {
    (per_timeslice as u128 * target.as_nanos() / TIMESLICE.as_nanos()) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_is_proportional_and_capped() {
        speed(Work::Encode).store(1_000_000, Ordering::Relaxed);
        assert_eq!(timeslice_percent(Work::Encode, 0), 0);
        assert_eq!(timeslice_percent(Work::Encode, 4_000), 0);
        assert_eq!(timeslice_percent(Work::Encode, 10_000), 1);
        assert_eq!(timeslice_percent(Work::Encode, 500_000), 50);
        assert_eq!(timeslice_percent(Work::Encode, usize::MAX), 100);
    }
}
