//! Work done in steps: every call (encode, wrapped encode, decode, MIME
//! decode, validation, a stream's piece) is a job over one input and one
//! output buffer allocated up front. Between two steps a job holds only
//! positions, so the NIF can hand the scheduler back between any two, and
//! a call that fits one slice is the same job run to its end.
//!
//! A short call is mostly glue: the NIF's `run` and `Input::of`, the plain
//! encode's and decode's `buffer` and `step`, `run_to_end`, `Step::after`
//! and simdutf's `clear_upper_state` are `#[inline(always)]` for it, which
//! makes 32-byte encodes and decodes 3-8% faster (`bench/README.md`,
//! "Small calls"); the compiler decides everywhere else.

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
    /// After a step of a job that reads its input in order: `Done` with
    /// what it wrote once it has read all `input_len` bytes, else `More`.
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
    /// The buffer it writes into for `input` (the input every step gets),
    /// or `None` if its length overflows.
    fn buffer(&self, input: &[u8]) -> Option<Buffer>;

    /// Works on about `max_input` more input bytes. `input` is the whole
    /// input and `output` the whole output buffer, the same on every step.
    fn step(&mut self, input: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step;

    /// The kind of work it does, whose rate its charge and slices follow
    /// (`budget`); a job may find out it does slower work once it has run
    /// (decode, on meeting whitespace).
    fn work(&self) -> Work;

    /// Steps of `max_input` bytes until the job finishes: the bytes written
    /// or the error.
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
