//! Time budget: how many bytes this CPU's kernel processes in one timeslice
//! (which inputs are sliced), and what a call costs (its reductions,
//! `enif_consume_timeslice`). Both are measured once, from load, on the
//! active kernel, so that the scalar fallback and AVX-512 get calls of the
//! same duration: the slicing speed on fresh memory, page faults included;
//! a call's cost as a loop of calls meets it, on warm memory and, for big
//! calls, beyond L2. Slices are bounded by the clock (`engine::run_slice`),
//! as potatosalad's keccakf1600 measures each chunk; a call is not timed.

use crate::options::Kind;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The unit of `enif_consume_timeslice`, a process's full reduction budget
/// (4000 reductions), as the time OTP's own `base64:decode/1` takes to spend
/// it here. erl_nif's documentation calls it about 1 ms, but Erlang code
/// spends it much faster, and the rate matters beyond fairness: a scheduler
/// looks at the clock, and so fires due timers, only after every 4000
/// reductions it has run (`ERTS_CHECK_TIME_REDS` in erts's
/// `erl_process.c`); charged any slower, a b64simd loop makes its
/// neighbours' timers later than `base64` does (`bench/README.md`).
pub const TIMESLICE: Duration = Duration::from_micros(40);

/// A slice is a loop of steps of this many bytes of Base64 work (input
/// bytes divided by the job's weight: `engine::run_slice`), with a look at
/// the clock after each, so a slice overruns by at most one step, a few
/// microseconds on a SIMD kernel. Smaller steps cost sliced decode
/// throughput (each bounded-output simdutf call has a fixed cost).
pub const STEP_BYTES: usize = 128 * 1024;

/// The smallest slice we ever use: keeps the per-call overhead negligible
/// even if the clock misbehaves.
const MIN_SLICE_BYTES: usize = 64 * 1024;

/// The largest slice: the calibration's buffers come from malloc, which may
/// hand back memory already faulted in, and then it measures cache-warm
/// speed, too fast for fresh output. A big input that finishes within its
/// first slice costs the same as a one-shot call, so the cap costs nothing.
const MAX_SLICE_BYTES: usize = 256 * 1024;

/// The two kinds of Base64 work whose speed is measured, each the index
/// of its rates in the tables below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Work {
    Encode,
    Decode,
}

/// How many kinds of work there are, the length of the tables indexed by
/// `Work`: a match of every kind, so that a new one fails to compile here
/// until it is counted.
const WORKS: usize = match Work::Encode {
    Work::Encode | Work::Decode => 2,
};

// A const, not a static: repeating a const is how an array of atomics is
// filled without the inline `const {}` of Rust 1.79 (this crate takes 1.78).
#[allow(clippy::declare_interior_mutable_const)]
const UNCALIBRATED: AtomicUsize = AtomicUsize::new(0);

/// Each kind of call beside Base64's (Base16's and Base32's) weighs its
/// input bytes: one costs this many bytes of Base64 work of its kind, as
/// calibrated (`calibrate_weight`); 0 until then.
static WEIGHTS: [AtomicUsize; Kind::COUNT] = [UNCALIBRATED; Kind::COUNT];

/// A weight until calibrated: more than any measured (`bench/README.md`,
/// "Base16 and Base32"), so that until then calls are charged and sliced
/// too much, never too little.
const ROUGH_WEIGHT: usize = 32;

/// The most a weight can be: a byte of the slowest codec on the fastest
/// Base64 kernel.
pub const MAX_WEIGHT: usize = 64;

/// What one input byte of a call of `kind`, a kind beside Base64's, costs
/// in bytes of Base64 work (Base64's own jobs weigh themselves).
#[inline]
pub fn weight(kind: Kind) -> usize {
    calibrated_weight(kind).unwrap_or(ROUGH_WEIGHT)
}

/// The weight of `kind` once calibrated (only kinds beside Base64's are).
#[inline]
pub fn calibrated_weight(kind: Kind) -> Option<usize> {
    match WEIGHTS[kind as usize].load(Ordering::Relaxed) {
        0 => None,
        calibrated => Some(calibrated),
    }
}

/// Measures the weight of `kind`, once a VM: `run_kind()` and `run_base64()`
/// each do their work on as many input bytes (cache-resident, as most calls
/// are), and the weight is the ratio of their best times, rounded up.
pub fn calibrate_weight(kind: Kind, mut run_kind: impl FnMut(), mut run_base64: impl FnMut()) {
    let kind_time = best_time(5, &mut run_kind).as_nanos();
    let base64_time = best_time(5, &mut run_base64).as_nanos().max(1);
    let weight = kind_time.div_ceil(base64_time).clamp(1, MAX_WEIGHT as u128) as usize;
    WEIGHTS[kind as usize].store(weight, Ordering::Relaxed);
}

/// What is measured of a kind of work on the active kernel: the input bytes
/// it processes per timeslice, on fresh memory, for slicing; and what a call
/// that fits one call costs, a fixed part (allocating the output binary,
/// entering the kernel) plus a part per input byte, calibrated
/// (`calibrate_call_cost`) on cache-resident data and, for big calls, beyond
/// L2: the slicing rate would overcharge small calls many times over.
struct Rates {
    bytes_per_timeslice: AtomicUsize,
    fixed_ns: AtomicUsize,
    ps_per_byte: AtomicUsize,
    big_ps_per_byte: AtomicUsize,
}

/// Conservative until calibrated: the smallest slice, and 200 ns plus 1 ns
/// per byte a call.
#[allow(clippy::declare_interior_mutable_const)]
const ROUGH_RATES: Rates = Rates {
    bytes_per_timeslice: AtomicUsize::new(MIN_SLICE_BYTES),
    fixed_ns: AtomicUsize::new(200),
    ps_per_byte: AtomicUsize::new(1000),
    big_ps_per_byte: AtomicUsize::new(1000),
};
static RATES: [Rates; WORKS] = [ROUGH_RATES; WORKS];

fn rates(work: Work) -> &'static Rates {
    &RATES[work as usize]
}

/// Test hook (`b64simd_nif:set_slice_bytes/1`, in builds with the `hooks`
/// feature only): when non-zero, forces every slice to this many input
/// bytes, so slicing is proven on small inputs.
#[cfg(feature = "hooks")]
static FORCED_SLICE_BYTES: AtomicUsize = AtomicUsize::new(0);

/// Input bytes the active kernel processes in one timeslice.
pub fn bytes_per_timeslice(work: Work) -> usize {
    rates(work).bytes_per_timeslice.load(Ordering::Relaxed)
}

/// Input bytes per slice of a sliced job: the forced size in tests, else
/// what the kernel processes in a timeslice, so a sliced call is charged a
/// full timeslice and yields after every slice.
pub fn slice_bytes(work: Work) -> usize {
    forced_slice_bytes()
        .unwrap_or_else(|| bytes_per_timeslice(work).clamp(MIN_SLICE_BYTES, MAX_SLICE_BYTES))
}

/// The step size forced by the test hook, if any: always `None` in a build
/// without the `hooks` feature, so no VM-wide switch exists there.
#[inline]
pub fn forced_slice_bytes() -> Option<usize> {
    #[cfg(feature = "hooks")]
    {
        match FORCED_SLICE_BYTES.load(Ordering::Relaxed) {
            0 => None,
            forced => Some(forced),
        }
    }
    #[cfg(not(feature = "hooks"))]
    None
}

/// Forces every slice to `bytes` input bytes (0: calibrated sizes again).
#[cfg(feature = "hooks")]
pub fn force_slice_bytes(bytes: usize) {
    FORCED_SLICE_BYTES.store(bytes, Ordering::Relaxed);
}

/// Inputs above one slice are sliced; below it a call stays short. No
/// slice is under `MIN_SLICE_BYTES` unless a test forces one, so smaller
/// inputs need not work out the size.
#[inline]
pub fn is_sliced(work: Work, input_len: usize) -> bool {
    if input_len <= MIN_SLICE_BYTES && forced_slice_bytes().is_none() {
        return false;
    }
    input_len > slice_bytes(work)
}

/// Calls whose work (beyond a call's fixed cost, which their one reduction
/// stands for) is estimated under this cost only that reduction, like a
/// BIF's small work: charged their share, loops of them ran up to a fifth
/// slower (`bench/README.md`, "Small calls"). Half a percent of a
/// timeslice: a process that makes nothing but such calls holds its
/// scheduler for 4000 of them, about a millisecond.
const UNCHARGED_NS: u64 = PERCENT_NS / 2;

/// Calls on at least this many input bytes are also charged what data
/// beyond L2 adds per input byte (`call_ns`), as a stream's pieces or a
/// file's blocks come. Not timed: two clock readings a call slowed a stream
/// of such pieces (`bench/README.md`).
pub const BIG_CALL_BYTES: usize = 64 * 1024;

/// Estimated nanoseconds of one call on `input_len` bytes of input that
/// are `bytes` bytes of Base64 work of its kind (`weight`): the call's fixed
/// cost and its work (`work_ns`).
fn call_ns(work: Work, input_len: usize, bytes: usize) -> u64 {
    (rates(work).fixed_ns.load(Ordering::Relaxed) as u64)
        .saturating_add(work_ns(work, input_len, bytes))
}

/// The work of such a call: its bytes at the cache-resident rate, and for a
/// big call what data beyond L2 adds, once per input byte however much work
/// each byte is.
fn work_ns(work: Work, input_len: usize, bytes: usize) -> u64 {
    let cost = rates(work);
    let ps_per_byte = cost.ps_per_byte.load(Ordering::Relaxed) as u64;
    let beyond_l2_ps = if input_len >= BIG_CALL_BYTES {
        (cost.big_ps_per_byte.load(Ordering::Relaxed) as u64).saturating_sub(ps_per_byte)
    } else {
        0
    };
    let ps = (bytes as u64)
        .saturating_mul(ps_per_byte)
        .saturating_add((input_len as u64).saturating_mul(beyond_l2_ps));
    ps / 1000
}

/// One percent of a timeslice, the unit of `enif_consume_timeslice`.
const PERCENT_NS: u64 = TIMESLICE.as_nanos() as u64 / 100;

/// The percent of a timeslice to charge now for a call on `input_len`
/// bytes of input that are `bytes` bytes of work of its kind: none for a
/// call whose work is under `UNCHARGED_NS`, else `charge_percent` of what
/// the call costs (`call_ns`).
#[inline]
pub fn call_percent(work: Work, input_len: usize, bytes: usize) -> i32 {
    if work_ns(work, input_len, bytes) < UNCHARGED_NS {
        return 0;
    }
    charge_percent(call_ns(work, input_len, bytes))
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
pub fn charge_percent(ns: u64) -> i32 {
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

/// The largest calibration sample: out of L2 on any CPU we know of.
pub const CALIBRATION_MAX_BYTES: usize = 8 << 20;

/// Measures the active kernel, once a VM: `run(len)` processes `len`
/// input bytes into a fresh output buffer (page faults included, as in real
/// calls). A first measurement on 256 KiB sizes a second one of about one
/// slice, which is out of cache like the big inputs that get sliced.
pub fn calibrate(work: Work, mut run: impl FnMut(usize)) {
    let mut sample = 256 * 1024;
    for _ in 0..2 {
        // The warm-up lets simdutf pick its kernel.
        let best = best_time(3, || run(sample));
        rates(work).bytes_per_timeslice.store(
            per_timeslice(sample, best).max(MIN_SLICE_BYTES),
            Ordering::Relaxed,
        );
        // The uncapped estimate: a sample bigger than the largest slice is
        // what lands on fresh memory.
        sample = bytes_per_timeslice(work).clamp(256 * 1024, CALIBRATION_MAX_BYTES);
    }
}

/// The shortest of `runs` timed runs after one to warm up.
fn best_time(runs: usize, mut run: impl FnMut()) -> Duration {
    run();
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .min()
        .unwrap_or(Duration::ZERO)
}

/// Input sizes of the two-point call-cost measurement: the fixed part
/// dominates the first, the per-byte part the second; both stay in L2.
const CALL_COST_SMALL: usize = 1024;
const CALL_COST_LARGE: usize = 16 * 1024;

/// Measures what one call costs, as `call_ns` estimates it: `run(at, len)`
/// does a call's work (allocate the output binary, run the kernel, free the
/// output) on the `len` bytes at offset `at` (a multiple of
/// `BIG_CALL_BYTES`) of a sample of `sample_len` bytes, whose start short
/// calls read in cache and big calls walk all of, beyond L2.
pub fn calibrate_call_cost(work: Work, sample_len: usize, mut run: impl FnMut(usize, usize)) {
    median_ns(|| run(0, CALL_COST_LARGE)); // warm up
    let small = median_ns(|| run(0, CALL_COST_SMALL));
    let large = median_ns(|| run(0, CALL_COST_LARGE));
    let (fixed_ns, ps_per_byte) = fit_call_cost(small, large);
    let big_ps_per_byte = match sample_len / BIG_CALL_BYTES {
        0 => ps_per_byte,
        offsets => {
            let mut calls = 0;
            let big = median_ns(|| {
                calls += 1;
                run(calls % offsets * BIG_CALL_BYTES, BIG_CALL_BYTES)
            });
            big_call_rate(fixed_ns, ps_per_byte, big)
        }
    };
    let cost = rates(work);
    cost.fixed_ns.store(fixed_ns, Ordering::Relaxed);
    cost.ps_per_byte.store(ps_per_byte, Ordering::Relaxed);
    cost.big_ps_per_byte
        .store(big_ps_per_byte, Ordering::Relaxed);
}

/// Sets the big-call rates (test hook, `hooks` builds only), so that a test
/// can tell the rate a big call is charged from the cache-resident one,
/// which are close on some CPUs.
#[cfg(feature = "hooks")]
pub fn set_big_call_rate(work: Work, ps_per_byte: usize) {
    rates(work)
        .big_ps_per_byte
        .store(ps_per_byte, Ordering::Relaxed);
}

/// Picoseconds per byte of a big call that took `big_ns`, beyond the fixed
/// part; never below the cache-resident rate, whatever noise did.
fn big_call_rate(fixed_ns: usize, ps_per_byte: usize, big_ns: u64) -> usize {
    let rate = big_ns.saturating_sub(fixed_ns as u64) * 1000 / BIG_CALL_BYTES as u64;
    (rate as usize).max(ps_per_byte)
}

/// Nanoseconds one `run()` takes: the median of 15 batches of 32, so one
/// preemption of this shared machine's vCPU does not set the figure.
fn median_ns(mut run: impl FnMut()) -> u64 {
    const BATCH: u32 = 32;
    let mut batches: Vec<u64> = (0..15)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..BATCH {
                run();
            }
            (start.elapsed() / BATCH).as_nanos() as u64
        })
        .collect();
    batches.sort_unstable();
    batches[batches.len() / 2]
}

/// How many times longer decoding text that holds whitespace takes than
/// unbroken text of the same length, as MIME text measures it (stray
/// whitespace elsewhere is charged as much): a decode that fits one call is
/// charged this many times its bytes when its output shows whitespace.
static WHITESPACE_FACTOR: AtomicUsize = AtomicUsize::new(4);

pub fn whitespace_factor() -> usize {
    WHITESPACE_FACTOR.load(Ordering::Relaxed)
}

/// Measures the factor, once a VM: `unbroken()` and `wrapped()` decode the
/// same data as unbroken and as MIME text, in L2.
pub fn calibrate_whitespace(unbroken: impl FnMut(), wrapped: impl FnMut()) {
    let unbroken_ns = median_ns(unbroken).max(1);
    let wrapped_ns = median_ns(wrapped);
    let factor = wrapped_ns.div_ceil(unbroken_ns).clamp(1, 16);
    WHITESPACE_FACTOR.store(factor as usize, Ordering::Relaxed);
}

/// The line through (CALL_COST_SMALL, small ns) and (CALL_COST_LARGE, large
/// ns): fixed nanoseconds and picoseconds per byte, neither below zero nor
/// the per-byte part below 10 ps (100 GB/s), whatever noise did.
fn fit_call_cost(small_ns: u64, large_ns: u64) -> (usize, usize) {
    let span = (CALL_COST_LARGE - CALL_COST_SMALL) as u64;
    let ps_per_byte = (large_ns.saturating_sub(small_ns) * 1000 / span).max(10);
    let fixed_ns = small_ns.saturating_sub(CALL_COST_SMALL as u64 * ps_per_byte / 1000);
    (fixed_ns as usize, ps_per_byte as usize)
}

/// The calibrated call cost: fixed nanoseconds, and picoseconds per byte
/// of a call and of a big call (test hook, `hooks` builds only).
#[cfg(feature = "hooks")]
pub fn call_cost_of(work: Work) -> (usize, usize, usize) {
    let cost = rates(work);
    (
        cost.fixed_ns.load(Ordering::Relaxed),
        cost.ps_per_byte.load(Ordering::Relaxed),
        cost.big_ps_per_byte.load(Ordering::Relaxed),
    )
}

fn per_timeslice(bytes: usize, elapsed: Duration) -> usize {
    (bytes as u128 * TIMESLICE.as_nanos() / elapsed.as_nanos().max(1)).min(usize::MAX as u128)
        as usize
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn calls_under_half_a_percent_of_work_cost_only_their_reduction() {
        // Only this test reads or writes the decoding call cost: 100 ns
        // fixed, 1 ns a byte.
        let cost = rates(Work::Decode);
        cost.fixed_ns.store(100, Ordering::Relaxed);
        cost.ps_per_byte.store(1000, Ordering::Relaxed);
        assert_eq!(charge_percent(PERCENT_NS * 100), 100);
        let under = UNCHARGED_NS as usize - 1;
        // Nothing charged and nothing carried, however many of them.
        assert!((0..1000).all(|_| call_percent(Work::Decode, under, under) == 0));
        assert_eq!(charge_percent(PERCENT_NS - 1), 0);
        // The fixed cost is charged with the work.
        let at = UNCHARGED_NS as usize;
        assert_eq!(call_percent(Work::Decode, at, at), 1);
        assert_eq!(charge_percent(PERCENT_NS - 100 - UNCHARGED_NS), 0);
        assert_eq!(charge_percent(1), 1);
    }

    #[test]
    fn slices_stay_between_64_and_256_kib() {
        // Nothing else in the unit tests reads the decode speed.
        rates(Work::Decode)
            .bytes_per_timeslice
            .store(1 << 30, Ordering::Relaxed);
        assert_eq!(slice_bytes(Work::Decode), MAX_SLICE_BYTES);
        rates(Work::Decode)
            .bytes_per_timeslice
            .store(1, Ordering::Relaxed);
        assert_eq!(slice_bytes(Work::Decode), MIN_SLICE_BYTES);
        rates(Work::Decode)
            .bytes_per_timeslice
            .store(100 * 1024, Ordering::Relaxed);
        assert_eq!(slice_bytes(Work::Decode), 100 * 1024);
    }

    #[test]
    fn call_cost_is_a_line_through_two_points() {
        // 100 ns fixed, 50 ps a byte.
        let small = 100 + CALL_COST_SMALL as u64 * 50 / 1000;
        let large = 100 + CALL_COST_LARGE as u64 * 50 / 1000;
        assert_eq!(fit_call_cost(small, large), (100, 50));
        // Noise that makes the big call look cheaper cannot make bytes free.
        assert_eq!(fit_call_cost(500, 400).1, 10);
        assert_eq!(fit_call_cost(0, 0), (0, 10));
    }

    #[test]
    fn a_big_call_pays_what_memory_adds_once_per_input_byte() {
        // Only this test reads or writes the encoding call cost.
        let cost = rates(Work::Encode);
        cost.fixed_ns.store(100, Ordering::Relaxed);
        cost.ps_per_byte.store(50, Ordering::Relaxed);
        cost.big_ps_per_byte.store(80, Ordering::Relaxed);
        let big = BIG_CALL_BYTES as u64;
        let call =
            |input_len: usize, weight: usize| call_ns(Work::Encode, input_len, input_len * weight);
        assert_eq!(call(BIG_CALL_BYTES, 1), 100 + big * 80 / 1000);
        // Four times the work a byte (MIME text): the work four times over,
        // the memory once.
        assert_eq!(
            call(BIG_CALL_BYTES, 4),
            100 + (big * 4 * 50 + big * 30) / 1000
        );
        assert_eq!(call(BIG_CALL_BYTES - 4, 4), 100 + (big - 4) * 4 * 50 / 1000);
    }

    #[test]
    fn a_big_call_is_charged_at_least_the_cache_resident_rate() {
        let big = 100 + BIG_CALL_BYTES as u64 * 125 / 1000;
        assert_eq!(big_call_rate(100, 50, big), 125);
        assert_eq!(big_call_rate(100, 50, 0), 50);
    }
}
