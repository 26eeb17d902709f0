//! Work done in steps: every call is a job over one input and one output
//! buffer allocated up front, holding only positions between steps, so the
//! NIF can hand the scheduler back between any two; a call that fits one
//! slice is the same job run to its end.
//!
//! A short call is mostly glue, so the NIF's `run` and `Input::of`, the plain
//! encode's and decode's `buffer` and `step`, the decode's `short`,
//! `run_to_end`, `Step::after` and simdutf's `clear_upper_state` are
//! `#[inline(always)]` (`bench/README.md`, "Small calls"); the compiler
//! decides everywhere else.

use crate::budget::Work;
use crate::error::DecodeError;
use std::mem::MaybeUninit;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Call again with the same input and output.
    More,
    /// Finished: this many bytes of the output buffer are the result.
    Done(usize),
    Failed(DecodeError),
}

impl Step {
    /// After an in-order step: `Done(written)` once all `input_len` bytes are read, else `More`.
    /// Glue of a call, always inlined (the module's doc says why).
    #[inline(always)]
    pub fn after(read: usize, input_len: usize, written: usize) -> Step {
        if read == input_len {
            Step::Done(written)
        } else {
            Step::More
        }
    }
}

impl From<Result<usize, DecodeError>> for Step {
    fn from(result: Result<usize, DecodeError>) -> Step {
        match result {
            Ok(written) => Step::Done(written),
            Err(error) => Step::Failed(error),
        }
    }
}

/// The buffer a job writes into, allocated before its first step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffer {
    /// The result: `Done(n)` means its first `n` bytes.
    Data(usize),
    /// Scratch the job overwrites and nobody reads after it (a validation's).
    Scratch(usize),
}

impl Buffer {
    pub fn size(self) -> usize {
        match self {
            Buffer::Data(len) | Buffer::Scratch(len) => len,
        }
    }
}

pub trait Job {
    /// The buffer it writes into for `input` (every step's), `None` if its length overflows.
    fn buffer(&self, input: &[u8]) -> Option<Buffer>;

    /// Works on about `max_input` more bytes of `input`; both buffers whole, the same each step.
    fn step(&mut self, input: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step;

    /// Its kind of work, whose rate its charge and slices follow (`budget`);
    /// it may turn slower as the job runs (decode, on meeting whitespace).
    fn work(&self) -> Work;

    /// Steps of `max_input` bytes to the end: the bytes written or the error.
    /// Glue of a call, always inlined (the module's doc says why).
    #[inline(always)]
    fn run_to_end(
        &mut self,
        input: &[u8],
        output: &mut [MaybeUninit<u8>],
        max_input: usize,
    ) -> Result<usize, DecodeError> {
        loop {
            match self.step(input, output, max_input) {
                Step::More => continue,
                Step::Done(written) => return Ok(written),
                Step::Failed(error) => return Err(error),
            }
        }
    }
}
