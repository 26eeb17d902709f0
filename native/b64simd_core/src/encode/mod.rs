//! Encode: plain and line-wrapped (`wrap`), in steps of whole 3-byte groups,
//! so that any slicing writes the one-shot output.

pub mod wrap;

use crate::budget::Work;
use crate::dispatch::encode_piece;
use crate::job::{Buffer, Job, Step};
use crate::lengths::encoded_len;
use crate::options::EncodeOptions;
use std::mem::MaybeUninit;

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

    /// A job whose first `in_pos` bytes (whole groups) are encoded in `out_pos` bytes.
    pub fn resume(opts: EncodeOptions, in_pos: usize, out_pos: usize) -> EncodeJob {
        EncodeJob {
            opts,
            in_pos,
            out_pos,
        }
    }
}

/// A step's share of `remaining`: all if it fits `max_input`, else whole `unit`s (one at least).
pub(crate) fn step_len(remaining: usize, max_input: usize, unit: usize) -> usize {
    if remaining <= max_input.max(unit) {
        remaining
    } else {
        (max_input / unit).max(1) * unit
    }
}

/// 192 bytes encode to 256 characters, multiples of 64 (a cache line, an AVX-512
/// register): steps of these keep each step as aligned as the first, as simdutf likes.
const ALIGNED_GROUP: usize = 192;

impl Job for EncodeJob {
    /// The exact length, for a job made by `new`.
    #[inline(always)]
    fn buffer(&self, input: &[u8]) -> Option<Buffer> {
        encoded_len(input.len(), self.opts.padding).map(Buffer::Data)
    }

    /// Whole 3-byte groups, so that only the last step pads.
    #[inline(always)]
    fn step(&mut self, input: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step {
        let unit = if max_input >= ALIGNED_GROUP {
            ALIGNED_GROUP
        } else {
            3
        };
        let take = step_len(input.len() - self.in_pos, max_input, unit);
        let piece = &input[self.in_pos..self.in_pos + take];
        let piece_out_len = encoded_len(take, self.opts.padding)
            .expect("a piece of the input encodes to no more than the whole output");
        let target = &mut output[self.out_pos..self.out_pos + piece_out_len];
        self.out_pos += encode_piece(piece, self.opts, target, input.len());
        self.in_pos += take;
        Step::after(self.in_pos, input.len(), self.out_pos)
    }

    fn work(&self) -> Work {
        Work::Encode
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Alphabet;
    use crate::output::as_output;

    fn encode_sliced(input: &[u8], opts: EncodeOptions, slice: usize) -> Vec<u8> {
        let mut job = EncodeJob::new(opts);
        let mut out = vec![0u8; job.buffer(input).unwrap().size()];
        let written = job.run_to_end(input, as_output(&mut out), slice);
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
        while job.step(&plain, as_output(&mut output), 1000) == Step::More {
            positions.push((job.in_pos, job.out_pos));
        }
        assert_eq!(positions.len(), 10_000 / 960);
        for (in_pos, out_pos) in positions {
            assert_eq!((in_pos % 64, out_pos % 64), (0, 0), "{in_pos} {out_pos}");
        }
    }
}
