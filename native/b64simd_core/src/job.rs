//! Sliced encode and decode: a big input is processed a slice per NIF call,
//! each slice sized to about one timeslice, into an output buffer allocated
//! once up front. The state between slices is just positions (plus the scalar
//! decoder's state once an error is being located), so any slicing gives the
//! one-shot result byte for byte, and decode errors carry absolute offsets.
//!
//! Plain Rust on slices: `lib.rs` keeps a job in a NIF resource and passes
//! the caller's input binary back in on every call (it is never copied).

use crate::codec::{self, check_final_quantum, check_skipped_bytes, encoded_len};
use crate::lines;
use crate::options::{DecodeOptions, EncodeOptions};
use crate::scalar::{self, DecodeError};
use simdutf::{ErrorCode, LastChunkHandlingOptions};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Call again with the same input and output.
    More,
    /// Finished: this many bytes of the output buffer are the result.
    Done(usize),
    Failed(DecodeError),
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

/// The decode engine of every sliced decode, `is_valid`'s included: one
/// cascade (the line path, whole unbroken windows, simdutf's bounded decode,
/// then the scalar decoder to locate an error) writing into one of two
/// sinks. Decode keeps what it writes in the output buffer; validation
/// (`discarding`) decodes window after window into a small scratch buffer,
/// which stays in cache, and keeps only the count.
#[derive(Clone, Debug)]
pub struct DecodeJob {
    opts: DecodeOptions,
    in_pos: usize,
    /// Bytes the input decoded to so far: where decode writes next.
    decoded: usize,
    /// The output buffer is scratch: every window is written at its start.
    discard: bool,
    /// Set once simdutf has reported an error: from here on the scalar
    /// decoder reads on from `in_pos` to find our exact reason and offset.
    locating_error: Option<scalar::Decoder>,
    /// True until a step meets anything but whole quanta of the alphabet:
    /// until then each window is one plain simdutf decode, which costs less
    /// than the bounded-output variant (sliced decode ran at 0.89x of
    /// one-shot with the bounded variant alone).
    unbroken: bool,
    /// True until the line path (`lines::decode_lines`) makes no progress:
    /// line-wrapped input decodes several times faster that way.
    lines: bool,
}

impl DecodeJob {
    /// A decode into the whole output buffer, at least
    /// `codec::decoded_len_bound(input)` bytes; `Done(n)`: its first `n`.
    pub fn new(opts: DecodeOptions) -> DecodeJob {
        DecodeJob {
            opts,
            in_pos: 0,
            decoded: 0,
            discard: false,
            locating_error: None,
            unbroken: true,
            lines: !opts.reject_whitespace,
        }
    }

    /// A decode that only gives the verdict: the output buffer is scratch
    /// of at least 6 bytes (`validate::SCRATCH` for speed), and `Done(0)`
    /// means valid.
    pub fn discarding(opts: DecodeOptions) -> DecodeJob {
        DecodeJob {
            discard: true,
            ..DecodeJob::new(opts)
        }
    }

    /// Where the next bytes go: the rest of the output, or the whole
    /// scratch (whole quanta of it) when discarding.
    fn room<'o>(&self, output: &'o mut [u8]) -> &'o mut [u8] {
        if self.discard {
            let whole = output.len() / 3 * 3;
            &mut output[..whole]
        } else {
            &mut output[self.decoded..]
        }
    }

    fn advance(&mut self, consumed: usize, written: usize) {
        self.in_pos += consumed;
        self.decoded += written;
    }

    fn done(&self, written: usize) -> Step {
        Step::Done(if self.discard { 0 } else { written })
    }

    /// The line path until `end`; false once it makes no progress.
    fn decode_lines(&mut self, input: &[u8], output: &mut [u8], end: usize) -> bool {
        while self.in_pos < end {
            let room = self.room(output);
            // A block of lines needs a block's room: scratch has less only
            // in tests (the output buffer has room for the rest).
            if self.discard && room.len() < lines::BLOCK_OUTPUT {
                return false;
            }
            let rest = &input[self.in_pos..];
            let budget = end - self.in_pos;
            let Some(done) = lines::decode_some_lines(rest, self.opts.alphabet, room, budget)
            else {
                return false;
            };
            self.advance(done.consumed, done.written);
        }
        true
    }

    /// The scalar decoder is an order of magnitude slower than the SIMD
    /// kernels the slice is sized for, so it gets a quarter of the slice.
    fn scalar_step(&mut self, input: &[u8], output: &mut [u8], max_input: usize) -> Step {
        let end = input
            .len()
            .min(self.in_pos.saturating_add((max_input / 4).max(1)));
        // Discarding, each piece's bytes (and a quantum carried into it)
        // must fit the scratch.
        let piece_max = if self.discard {
            (output.len() / 3).saturating_sub(1).max(1) * 4
        } else {
            usize::MAX
        };
        let Some(decoder) = self.locating_error.as_mut() else {
            return Step::More;
        };
        while self.in_pos < end {
            let piece_end = end.min(self.in_pos.saturating_add(piece_max));
            if let Err(error) = decoder.feed(&input[self.in_pos..piece_end], self.in_pos, output) {
                return Step::Failed(error);
            }
            if self.discard {
                decoder.discard_output();
            }
            self.in_pos = piece_end;
        }
        if self.in_pos < input.len() {
            return Step::More;
        }
        match self.locating_error.take().map(|d| d.finish(output)) {
            Some(Ok(total)) => self.done(total),
            Some(Err(error)) => Step::Failed(error),
            None => Step::More,
        }
    }

    fn locate_error(&mut self, input: &[u8], output: &mut [u8], max_input: usize) -> Step {
        let written = if self.discard { 0 } else { self.decoded };
        self.locating_error = Some(scalar::Decoder::new(self.opts, written));
        self.scalar_step(input, output, max_input)
    }
}

impl Job for DecodeJob {
    /// Decodes about `max_input` more input bytes.
    fn step(&mut self, input: &[u8], output: &mut [u8], max_input: usize) -> Step {
        if self.locating_error.is_some() {
            return self.scalar_step(input, output, max_input);
        }
        if self.in_pos == 0 {
            // Whitespace before the text is skipped, as one-shot decode
            // trims it: a leading newline sent every step after it off the
            // unbroken and line paths (1 MiB: 1.3x the time).
            self.in_pos = codec::trim_whitespace(input, self.opts).1;
        }
        let end = input.len().min(self.in_pos.saturating_add(max_input));
        if self.lines && !self.decode_lines(input, output, end) {
            self.lines = false;
        }
        while self.in_pos < input.len() {
            if self.in_pos >= end {
                return Step::More;
            }
            let rest = &input[self.in_pos..];
            let budget = end - self.in_pos;
            let alphabet = self.opts.alphabet;
            if self.unbroken {
                // Not the last piece: that one may end in padding, which
                // the bounded decode below checks.
                let room = self.room(output);
                let piece = &rest[..rest.len().min(budget / 4 * 4).min(room.len() / 3 * 4)];
                if !piece.is_empty()
                    && piece.len() < rest.len()
                    && codec::decodes_whole(piece, alphabet, room)
                {
                    self.advance(piece.len(), piece.len() / 4 * 3);
                    continue;
                }
                self.unbroken = false;
            }
            let room = self.room(output);
            let window = if codec::maximal_decoded_len(rest.len()) <= budget / 4 * 3 {
                room.len()
            } else {
                (budget / 4).max(1) * 3
            }
            .min(room.len());
            let loose = LastChunkHandlingOptions::Loose;
            let (result, written) =
                codec::decode_bounded(rest, &mut room[..window], alphabet, loose);
            let consumed = result.count;
            let finished = consumed == rest.len();
            let progressed = consumed > 0 || written > 0;
            let ok = matches!(
                result.error,
                ErrorCode::Success | ErrorCode::OutputBufferTooSmall
            );
            // A window that is not the last must end on a whole quantum:
            // anything else means simdutf met padding in mid-stream.
            if !ok || !progressed || (!finished && written % 3 != 0) {
                return self.locate_error(input, output, max_input);
            }
            if let Err(error) =
                check_skipped_bytes(&rest[..consumed], written, self.opts, self.in_pos)
            {
                return Step::Failed(error);
            }
            self.advance(consumed, written);
        }
        match check_final_quantum(input, self.decoded, self.opts) {
            Ok(()) => self.done(self.decoded),
            Err(error) => Step::Failed(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::maximal_decoded_len;
    use crate::options::Alphabet;
    use crate::test_support::{decode_to_vec, Rng};

    fn encode_sliced(input: &[u8], opts: EncodeOptions, slice: usize) -> Vec<u8> {
        let mut out = vec![0u8; encoded_len(input.len(), opts.padding).unwrap()];
        let mut job = EncodeJob::new(opts);
        let written = job.run_to_end(input, &mut out, slice);
        assert_eq!(written, Ok(out.len()));
        out
    }

    fn decode_sliced(
        input: &[u8],
        opts: DecodeOptions,
        slice: usize,
    ) -> Result<Vec<u8>, DecodeError> {
        let mut out = vec![0u8; maximal_decoded_len(input.len())];
        let mut job = DecodeJob::new(opts);
        for _ in 0..=input.len() * 4 + 8 {
            match job.step(input, &mut out, slice) {
                Step::More => continue,
                Step::Done(n) => return Ok(out[..n].to_vec()),
                Step::Failed(e) => return Err(e),
            }
        }
        panic!("decode job made no progress on {input:?}");
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn sliced_equals_one_shot_on_mutated_inputs() {
        let seed = 0x5EED_0003;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let specials = b"=\t\n\r \x0c\x0b-_+/\x00.QA";
        for round in 0..4_000 {
            let len = (rng.next() % 120) as usize;
            let plain = rng.bytes(len);
            let padding = rng.next().is_multiple_of(2);
            let mut text = encode_sliced(
                &plain,
                EncodeOptions {
                    alphabet: Alphabet::Standard,
                    padding,
                },
                3,
            );
            for _ in 0..(rng.next() % 4) {
                let special = specials[(rng.next() as usize) % specials.len()];
                let at = (rng.next() as usize) % (text.len() + 1);
                if rng.next().is_multiple_of(2) || at == text.len() {
                    text.insert(at, special);
                } else {
                    text[at] = special;
                }
            }
            for slice in [1, 4, 5, 8, 12, 64] {
                for padding_required in [true, false] {
                    for reject_whitespace in [true, false] {
                        let opts = DecodeOptions {
                            alphabet: Alphabet::Standard,
                            padding_required,
                            reject_whitespace,
                            canonical: rng.next().is_multiple_of(2),
                        };
                        assert_eq!(
                            decode_sliced(&text, opts, slice),
                            decode_to_vec(&text, opts),
                            "round {round} slice {slice} input {:?} {opts:?}",
                            String::from_utf8_lossy(&text)
                        );
                    }
                }
            }
        }
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
