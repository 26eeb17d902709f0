//! Sliced work: a big input is processed a slice per NIF call, each slice
//! sized to about one timeslice, into an output buffer allocated once up
//! front. The state between slices is just positions (plus the scalar
//! decoder's state once an error is being located), so any slicing gives the
//! one-shot result byte for byte, and decode errors carry absolute offsets.
//! This module has the `Job` trait and the encode job; the decode jobs are
//! built on `engine`.
//!
//! Plain Rust on slices: the NIF keeps a job in a resource and passes the
//! caller's input binary back in on every call (it is never copied).

use crate::codec::{self, encoded_len};
use crate::options::EncodeOptions;
use crate::scalar::DecodeError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Call again with the same input and output.
    More,
    /// Finished: this many bytes of the output buffer are the result.
    Done(usize),
    Failed(DecodeError),
}

/// A finished step: the bytes written, or the error.
impl From<Result<usize, DecodeError>> for Step {
    fn from(result: Result<usize, DecodeError>) -> Step {
        match result {
            Ok(written) => Step::Done(written),
            Err(error) => Step::Failed(error),
        }
    }
}

/// Work done in steps over one input and one output buffer allocated up
/// front: encode, wrapped encode, decode, MIME decode, validation and the
/// stream's quanta are all jobs. Between steps a job holds only positions,
/// so the NIF can hand the scheduler back between any two.
pub trait Job {
    /// Works on about `max_input` more input bytes. `input` is the whole
    /// input and `output` the whole output buffer, the same on every step.
    fn step(&mut self, input: &[u8], output: &mut [u8], max_input: usize) -> Step;

    /// Steps of `max_input` bytes until the job finishes: the bytes written
    /// or the error. The one-shot form of a sliced job.
    fn run_to_end(
        &mut self,
        input: &[u8],
        output: &mut [u8],
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

#[derive(Clone, Debug)]
pub struct EncodeJob {
    opts: EncodeOptions,
    in_pos: usize,
    out_pos: usize,
}

impl EncodeJob {
    pub fn new(opts: EncodeOptions) -> EncodeJob {
        EncodeJob::resume(opts, 0, 0)
    }

    /// A job whose first `in_pos` input bytes are already encoded into the
    /// first `out_pos` bytes of the output (`in_pos` a whole number of groups
    /// before it, as `encode_after` leaves them).
    pub fn resume(opts: EncodeOptions, in_pos: usize, out_pos: usize) -> EncodeJob {
        EncodeJob {
            opts,
            in_pos,
            out_pos,
        }
    }
}

impl Job for EncodeJob {
    /// Encodes at most `max_input` more bytes (rounded to whole 3-byte groups,
    /// so no slice but the last has padding). `output` is the whole output.
    fn step(&mut self, input: &[u8], output: &mut [u8], max_input: usize) -> Step {
        let remaining = input.len() - self.in_pos;
        let take = if remaining <= max_input.max(3) {
            remaining
        } else if max_input >= ALIGNED_GROUP {
            // Whole 192-byte groups keep every step's input and output as
            // aligned to 64 bytes as the first step's: 128 KiB - 2 bytes
            // steps left them misaligned and cost 8-10% at 1 MiB (C, simdutf
            // icelake, input and output 64-byte aligned).
            max_input / ALIGNED_GROUP * ALIGNED_GROUP
        } else {
            (max_input / 3).max(1) * 3
        };
        let piece = &input[self.in_pos..self.in_pos + take];
        let piece_out_len = encoded_len(take, self.opts.padding)
            .expect("a piece of the input encodes to no more than the whole output");
        let target = &mut output[self.out_pos..self.out_pos + piece_out_len];
        self.out_pos += codec::encode_into(piece, self.opts, target);
        self.in_pos += take;
        if self.in_pos == input.len() {
            Step::Done(self.out_pos)
        } else {
            Step::More
        }
    }
}

/// 192 input bytes encode to 256 characters: both multiples of 64 bytes,
/// a cache line and an AVX-512 register.
const ALIGNED_GROUP: usize = 192;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Alphabet;

    fn encode_sliced(input: &[u8], opts: EncodeOptions, slice: usize) -> Vec<u8> {
        let mut out = vec![0u8; encoded_len(input.len(), opts.padding).unwrap()];
        let mut job = EncodeJob::new(opts);
        let written = job.run_to_end(input, &mut out, slice);
        assert_eq!(written, Ok(out.len()));
        out
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn sliced_encode_equals_one_shot() {
        let plain: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
        for len in [0, 1, 2, 3, 4, 100, 999, 1000] {
            for padding in [true, false] {
                let opts = EncodeOptions {
                    alphabet: Alphabet::UrlSafe,
                    padding,
                };
                let whole = encode_sliced(&plain[..len], opts, usize::MAX);
                for slice in [1, 2, 3, 4, 7, 48, 191, 192, 200, 500] {
                    assert_eq!(
                        encode_sliced(&plain[..len], opts, slice),
                        whole,
                        "len {len} slice {slice}"
                    );
                }
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn encode_steps_keep_64_byte_alignment() {
        let plain = vec![7u8; 10_000];
        let mut output = vec![0u8; encoded_len(plain.len(), true).unwrap()];
        let mut job = EncodeJob::new(EncodeOptions::DEFAULT);
        let mut positions = vec![];
        while job.step(&plain, &mut output, 1000) == Step::More {
            positions.push((job.in_pos, job.out_pos));
        }
        assert_eq!(positions.len(), 10_000 / 960);
        for (in_pos, out_pos) in positions {
            assert_eq!((in_pos % 64, out_pos % 64), (0, 0), "{in_pos} {out_pos}");
        }
    }
}
