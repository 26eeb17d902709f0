//! A decoding stream: each piece gives its whole quanta's data, so that any chunking
//! gives the one-shot result, errors at their stream offset. A piece is decoded
//! `in_place` or, if that meets anything unusual, `joined` to the carry.

mod carry;
mod in_place;
mod joined;

pub use carry::Carry;

use crate::budget::Work;
use crate::decode::DecodeJob;
use crate::job::{Buffer, Job, Step};
use crate::lengths::maximal_decoded_len;
use crate::options::DecodeOptions;
use in_place::Start;
use joined::JoinedJob;
use std::mem::MaybeUninit;
use std::ops::Range;

/// One piece's decode; once it is `Done`, `write_next_state` writes the next state.
#[derive(Clone, Debug)]
pub struct DecodePiece {
    carry: Carry,
    piece_len: usize,
    phase: Phase,
    work: Work,
    error_byte: Option<u8>,
}

#[derive(Clone, Debug)]
enum Phase {
    Begin,
    InPlace(DecodeJob),
    Joined(Box<JoinedJob>),
    /// Done in place: the bytes of carry ++ piece to carry on.
    KeptRange(Range<usize>),
    /// Done joined: the same, as offsets.
    KeptList(Vec<usize>),
}

impl DecodePiece {
    pub fn new(carry: &Carry, piece: &[u8]) -> DecodePiece {
        DecodePiece {
            carry: *carry,
            piece_len: piece.len(),
            phase: Phase::Begin,
            work: Work::Decode,
            error_byte: None,
        }
    }

    /// Once failed: the byte at the error, for its message.
    pub fn error_byte(&self) -> Option<u8> {
        self.error_byte
    }

    /// Once done: the size of the stream's next state.
    pub fn next_state_len(&self) -> usize {
        Carry::binary_len(match &self.phase {
            Phase::KeptRange(range) => range.len(),
            Phase::KeptList(list) => list.len(),
            _ => 0,
        })
    }

    /// Once done: writes the next state after `piece` into `out` (`next_state_len()` bytes).
    pub fn write_next_state(&self, piece: &[u8], out: &mut [MaybeUninit<u8>]) {
        match &self.phase {
            Phase::KeptRange(range) => self.carry.write_after(piece, range.clone(), out),
            Phase::KeptList(list) => self.carry.write_after(piece, list.iter().copied(), out),
            _ => self.carry.write_after(piece, 0..0, out),
        }
    }

    /// `consumed` bytes of carry ++ piece decoded in place to `written`: carry the rest, or join.
    fn in_place_done(&mut self, piece: &[u8], written: usize, consumed: usize) -> Step {
        if written != consumed / 4 * 3 {
            self.work = Work::DecodeSpaced;
        }
        let carry_len = self.carry.bytes().len();
        match in_place::left_over(carry_len, self.piece_len, consumed) {
            Some(kept) => {
                self.phase = Phase::KeptRange(kept);
                Step::Done(written)
            }
            None => self.join(piece),
        }
    }

    fn join(&mut self, piece: &[u8]) -> Step {
        let opts = self.carry.options();
        self.phase = Phase::Joined(Box::new(JoinedJob::new(self.carry.bytes(), piece, opts)));
        Step::More
    }
}

impl Job for DecodePiece {
    /// Room for every byte of carry ++ piece being a character.
    fn buffer(&self, piece: &[u8]) -> Option<Buffer> {
        let text = self.carry.bytes().len().saturating_add(piece.len());
        Some(Buffer::Data(maximal_decoded_len(text)))
    }

    fn step(&mut self, piece: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step {
        match &mut self.phase {
            Phase::Begin => {
                let opts = mid_stream(self.carry.options());
                let carry = self.carry.bytes();
                match in_place::start(carry, piece, opts, output, max_input) {
                    None => self.join(piece),
                    Some(Start::Finished(window)) => {
                        self.in_place_done(piece, window.written, window.consumed)
                    }
                    Some(Start::Job(job)) => {
                        self.phase = Phase::InPlace(job);
                        Step::More
                    }
                }
            }
            Phase::InPlace(job) => match job.step(piece, output, max_input) {
                Step::More => Step::More,
                Step::Done(written) => {
                    let consumed = self.carry.bytes().len() + job.position().0;
                    self.in_place_done(piece, written, consumed)
                }
                Step::Failed(_) => self.join(piece),
            },
            Phase::Joined(job) => match job.step(output, max_input) {
                Step::Done(written) => {
                    self.phase = Phase::KeptList(job.kept().to_vec());
                    Step::Done(written)
                }
                Step::Failed(error) => {
                    self.error_byte = error.offset().and_then(|at| job.byte(at));
                    Step::Failed(self.carry.in_stream(error))
                }
                Step::More => Step::More,
            },
            Phase::KeptRange(_) | Phase::KeptList(_) => Step::More,
        }
    }

    fn work(&self) -> Work {
        self.work
    }
}

/// The options for a piece: the end-of-input rules are the stream's end's.
fn mid_stream(opts: DecodeOptions) -> DecodeOptions {
    DecodeOptions {
        padding_required: false,
        canonical: false,
        ..opts
    }
}

/// A stream's end: the carry decoded under the stream's own options.
#[derive(Clone, Debug)]
pub struct DecodeEnd {
    carry: Carry,
    decode: DecodeJob,
    error_byte: Option<u8>,
}

impl DecodeEnd {
    pub fn new(carry: &Carry) -> DecodeEnd {
        DecodeEnd {
            carry: *carry,
            decode: DecodeJob::new(carry.bytes(), carry.options()),
            error_byte: None,
        }
    }

    /// Once failed: the byte at the error, for its message.
    pub fn error_byte(&self) -> Option<u8> {
        self.error_byte
    }
}

impl Job for DecodeEnd {
    fn buffer(&self, _input: &[u8]) -> Option<Buffer> {
        self.decode.buffer(self.carry.bytes())
    }

    /// Decodes the carry; `input` is not read.
    fn step(&mut self, _input: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step {
        let carried = self.carry.bytes();
        match self.decode.step(carried, output, max_input) {
            Step::Failed(error) => {
                self.error_byte = error.offset().and_then(|at| carried.get(at).copied());
                Step::Failed(self.carry.in_stream(error))
            }
            step => step,
        }
    }

    fn work(&self) -> Work {
        self.decode.work()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::DecodeError;
    use crate::output::as_output;
    use crate::test_support::{decode_to_vec, reference_encode, Rng};

    /// A stream through its state bytes, as Erlang holds it: the data, or
    /// the first error.
    fn stream(
        input: &[u8],
        flags: u64,
        cuts: &[usize],
        slice: usize,
    ) -> Result<Vec<u8>, DecodeError> {
        let mut carry = Carry::new(flags).unwrap();
        let mut out = Vec::new();
        let mut at = 0;
        for &cut in cuts.iter().chain([input.len()].iter()) {
            let piece = &input[at..cut.max(at)];
            at = cut.max(at);
            let mut job = DecodePiece::new(&carry, piece);
            let mut data = vec![0u8; job.buffer(piece).unwrap().size()];
            let written = job.run_to_end(piece, as_output(&mut data), slice)?;
            out.extend_from_slice(&data[..written]);
            let mut state = vec![0u8; job.next_state_len()];
            job.write_next_state(piece, as_output(&mut state));
            carry = Carry::from_binary(&state).unwrap();
        }
        let mut end = DecodeEnd::new(&carry);
        let mut data = vec![0u8; end.buffer(&[]).unwrap().size()];
        let written = end.run_to_end(&[], as_output(&mut data), slice)?;
        out.extend_from_slice(&data[..written]);
        Ok(out)
    }

    /// Encodings with edits, cut anywhere, under every option set: the
    /// stream gives what one-shot decode gives, error offsets included.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn any_chunking_gives_the_one_shot_result() {
        let seed = 0x5EED_0017;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let specials = b"=\t\n\r \x0c-_+/!A";
        let option_sets = DecodeOptions::all();
        for round in 0..4_000 {
            let len = rng.next() as usize % 2_000;
            let plain = rng.bytes(len);
            let mut text = reference_encode(&plain, rng.encode_options());
            if rng.next() % 2 == 0 {
                let (length, line_break): (usize, &[u8]) =
                    [(76, &b"\r\n"[..]), (64, b"\n"), (10, b" ")][rng.next() as usize % 3];
                text = text.chunks(length).collect::<Vec<_>>().join(line_break);
            }
            for _ in 0..rng.next() % 3 {
                rng.edit(&mut text, specials);
            }
            let mut cuts: Vec<usize> = (0..rng.next() % 6)
                .map(|_| rng.next() as usize % (text.len() + 1))
                .collect();
            cuts.sort_unstable();
            let index = rng.next() as usize % option_sets.len();
            let opts = option_sets[index];
            let slice = [1, 5, 100, usize::MAX][rng.next() as usize % 4];
            assert_eq!(
                stream(&text, opts.to_flags(), &cuts, slice),
                decode_to_vec(&text, opts),
                "round {round} {opts:?} {cuts:?} slice {slice} {:?}",
                String::from_utf8_lossy(&text)
            );
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn errors_are_at_their_stream_offsets() {
        let strict = DecodeOptions::DEFAULT.to_flags();
        assert_eq!(
            stream(b"QUJDQUJD!", strict, &[2, 5], usize::MAX),
            Err(DecodeError::InvalidCharacter(8))
        );
        assert_eq!(
            stream(b"QU\nJ=\n=", strict, &[1, 4, 6], usize::MAX),
            Err(DecodeError::BadPadding(6))
        );
        assert_eq!(
            stream(b"QUJDQ", strict, &[3], 1),
            Err(DecodeError::Incomplete(4))
        );
        assert_eq!(
            stream(b"QUJDQQ", strict, &[4], usize::MAX),
            Err(DecodeError::MissingPadding)
        );
    }
}
