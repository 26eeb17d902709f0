//! How a call runs its job: to its end when its estimated work fits a
//! timeslice, else a slice at a time, the caller yielding between; either
//! way with the share of a timeslice to charge, so a process that encodes a
//! lot is scheduled as fairly as one running Erlang code.

use crate::budget;
use crate::error::DecodeError;
use crate::job::{Job, Step};
use std::mem::MaybeUninit;
use std::time::Instant;

/// Whether a job on `input_len` bytes runs to its end within one call.
#[inline]
pub fn fits_one_call(job: &impl Job, input_len: usize) -> bool {
    !budget::is_sliced(job.work(), input_len)
}

/// Runs a job that fits one call to its end: its result and the percent to charge.
#[inline]
pub fn run_call<J: Job>(
    job: &mut J,
    input: &[u8],
    output: &mut [MaybeUninit<u8>],
) -> (Result<usize, DecodeError>, i32) {
    let result = job.run_to_end(input, output, usize::MAX);
    // Read after the run: a job learns what work it did as it goes.
    (result, budget::call_percent(job.work(), input.len()))
}

/// Runs one slice: fixed steps of estimated work until a timeslice has passed
/// on the clock, so a slice lasts the same on any kernel and codec and under
/// page faults on fresh output (tests force one step a slice). Returns the
/// last step and the percent of a timeslice to charge.
pub fn run_slice<J: Job + ?Sized>(
    job: &mut J,
    input: &[u8],
    output: &mut [MaybeUninit<u8>],
) -> (Step, i32) {
    let forced = budget::forced_slice_bytes().is_some();
    let started = Instant::now();
    let step = loop {
        let step = job.step(input, output, budget::step_bytes(job.work()));
        if forced || step != Step::More || started.elapsed() >= budget::TIMESLICE {
            break step;
        }
    };
    (step, budget::elapsed_percent(started.elapsed()))
}
