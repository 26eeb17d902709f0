//! Time budget: how many bytes this CPU's kernel processes in one timeslice,
//! for reduction accounting (`enif_consume_timeslice`) and for slicing big
//! inputs so that no call holds a scheduler for more than about 1 ms.
//!
//! erl_nif's documentation takes a timeslice to be about 1 ms. The speeds are
//! measured once at load on the active kernel (so the fallback kernel at
//! ~1 GB/s and icelake at ~20 GB/s both get ~1 ms slices), then refined by
//! every sliced call from its own measured speed, as potatosalad's
//! keccakf1600 does.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

pub const TIMESLICE: Duration = Duration::from_millis(1);

/// The smallest slice we ever use: keeps the per-call overhead negligible
/// even if the clock misbehaves.
const MIN_SLICE_BYTES: usize = 64 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    Encode,
    Decode,
}

/// Input bytes per timeslice, per kind of work. Conservative until calibrated.
static ENCODE_BYTES_PER_SLICE: AtomicUsize = AtomicUsize::new(1 << 20);
static DECODE_BYTES_PER_SLICE: AtomicUsize = AtomicUsize::new(1 << 20);
/// Test hook (`b64simd_nif:set_slice_bytes/1`): when non-zero, forces every
/// slice to this many input bytes, so slicing is proven on small inputs.
static FORCED_SLICE_BYTES: AtomicUsize = AtomicUsize::new(0);

fn cell(work: Work) -> &'static AtomicUsize {
    match work {
        Work::Encode => &ENCODE_BYTES_PER_SLICE,
        Work::Decode => &DECODE_BYTES_PER_SLICE,
    }
}

/// Input bytes the active kernel processes in one timeslice.
pub fn bytes_per_slice(work: Work) -> usize {
    cell(work).load(Ordering::Relaxed)
}

/// Bytes per slice for the next call of a sliced job: the forced size in
/// tests, else the calibrated one.
pub fn slice_bytes(work: Work) -> usize {
    match FORCED_SLICE_BYTES.load(Ordering::Relaxed) {
        0 => bytes_per_slice(work),
        forced => forced,
    }
}

pub fn force_slice_bytes(bytes: usize) {
    FORCED_SLICE_BYTES.store(bytes, Ordering::Relaxed);
}

/// Inputs above this size are sliced; below it a call fits in a timeslice.
pub fn is_sliced(work: Work, input_len: usize) -> bool {
    input_len > slice_bytes(work)
}

/// Share of a timeslice (in percent, for `enif_consume_timeslice`) that
/// processing `bytes` costs, rounded to nearest; 0 means "too small to
/// charge beyond the call's own reduction".
pub fn timeslice_percent(work: Work, bytes: usize) -> i32 {
    let per_slice = bytes_per_slice(work).max(1);
    let percent = bytes.saturating_mul(100).saturating_add(per_slice / 2) / per_slice;
    percent.min(100) as i32
}

/// Feeds back a measured slice: `bytes` took `elapsed`. Moves the estimate a
/// quarter of the way towards the measurement, so one noisy slice (a page
/// fault, a preempted core) cannot swing it.
pub fn record(work: Work, bytes: usize, elapsed: Duration) {
    if bytes < MIN_SLICE_BYTES || elapsed.is_zero() {
        return;
    }
    let measured = (bytes as u128 * TIMESLICE.as_nanos() / elapsed.as_nanos().max(1)) as usize;
    let old = bytes_per_slice(work);
    let new = old - old / 4 + measured / 4;
    cell(work).store(new.max(MIN_SLICE_BYTES), Ordering::Relaxed);
}

/// Measures the active kernel once, at load, with `run` processing a buffer
/// of the given size.
pub fn calibrate(work: Work, bytes: usize, mut run: impl FnMut()) {
    run(); // warm caches and let simdutf pick its kernel
    let mut best = Duration::MAX;
    for _ in 0..5 {
        let start = Instant::now();
        run();
        best = best.min(start.elapsed());
    }
    let per_slice = (bytes as u128 * TIMESLICE.as_nanos() / best.as_nanos().max(1)) as usize;
    cell(work).store(per_slice.max(MIN_SLICE_BYTES), Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_is_proportional_and_capped() {
        cell(Work::Encode).store(1_000_000, Ordering::Relaxed);
        assert_eq!(timeslice_percent(Work::Encode, 0), 0);
        assert_eq!(timeslice_percent(Work::Encode, 4_000), 0);
        assert_eq!(timeslice_percent(Work::Encode, 10_000), 1);
        assert_eq!(timeslice_percent(Work::Encode, 500_000), 50);
        assert_eq!(timeslice_percent(Work::Encode, usize::MAX), 100);
    }

    #[test]
    fn record_moves_a_quarter_of_the_way() {
        cell(Work::Decode).store(1_000_000, Ordering::Relaxed);
        record(Work::Decode, 2_000_000, TIMESLICE);
        assert_eq!(bytes_per_slice(Work::Decode), 1_250_000);
    }
}
