//! Decode: one job that every decode runs, one-shot or in slices. Its stages:
//! the short path (`short`), the line path (`lines`), unbroken windows of
//! whole quanta, bounded windows checked against OTP's rules, and where
//! simdutf fails the scalar decoder (`scalar`) for the exact reason and offset.

pub mod lines;
pub mod mime;
pub mod short;

use crate::budget::Work;
use crate::error::DecodeError;
use crate::job::{Buffer, Job, Step};
use crate::lengths;
use crate::options::DecodeOptions;
use crate::rules::{self, check_final_quantum, check_skipped_bytes, sextet};
use crate::scalar;
use crate::simdutf::{self, Window};
use ::simdutf::{ErrorCode, LastChunkHandlingOptions};
use std::mem::MaybeUninit;
use std::ops::Range;

/// What a simdutf failure and the end of the input mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    /// OTP's rules, an error located by the scalar decoder.
    Otp,
    /// A stream's piece in place (`whole_quanta`).
    WholeQuanta,
    /// `mime_decode`'s fast path (`giving_up`).
    GiveUp,
}

#[derive(Clone, Debug)]
enum Stage {
    /// Nothing done yet: the short path may take all of the input.
    Start,
    Lines,
    Unbroken,
    Windows,
    /// simdutf has failed: the scalar decoder reads on from `in_pos`.
    Locating(Box<scalar::Decoder>),
}

enum Outcome {
    Part(Window),
    Last(Window),
    Unusual,
    Error(DecodeError),
}

#[derive(Clone, Debug)]
pub struct DecodeJob {
    opts: DecodeOptions,
    ending: Ending,
    stage: Stage,
    /// The input the job reads ends here: whitespace after the text is cut.
    end: usize,
    /// The most the text decodes to: the output buffer's size.
    bound: usize,
    in_pos: usize,
    /// Bytes decoded so far: where decode writes next.
    decoded: usize,
    /// The output buffer is scratch: every window is written at its start.
    discard: bool,
    /// `DecodeSpaced` once the input turns out to hold whitespace.
    work: Work,
}

impl DecodeJob {
    pub fn new(input: &[u8], opts: DecodeOptions) -> DecodeJob {
        let Range { start, end } = rules::trimmed(input, opts);
        DecodeJob {
            opts,
            ending: Ending::Otp,
            stage: Stage::Start,
            end,
            bound: lengths::decoded_len_bound(&input[start..end]),
            in_pos: start,
            decoded: 0,
            discard: false,
            work: Work::Decode,
        }
    }

    /// Only the verdict (`Done(0)`: valid), into `VALIDATION_SCRATCH` bytes (6+ in tests).
    pub fn validating(input: &[u8], opts: DecodeOptions) -> DecodeJob {
        DecodeJob {
            discard: true,
            ..DecodeJob::new(input, opts)
        }
    }

    /// The whole quanta of `input` from `in_pos` on, the bytes before having decoded
    /// to `decoded`: `Done(n)` (`position()` says where they end), a partial or padded
    /// last quantum left; `Failed(_)`, reason meaningless, if unusual.
    pub(crate) fn whole_quanta(
        input: &[u8],
        opts: DecodeOptions,
        in_pos: usize,
        decoded: usize,
    ) -> DecodeJob {
        DecodeJob {
            opts,
            ending: Ending::WholeQuanta,
            stage: if opts.reject_whitespace {
                Stage::Unbroken
            } else {
                Stage::Lines
            },
            end: input.len(),
            bound: decoded + lengths::maximal_decoded_len(input.len() - in_pos),
            in_pos,
            decoded,
            discard: false,
            work: Work::Decode,
        }
    }

    /// Allows every byte simdutf skips and gives up where it fails (`Failed(_)`,
    /// reason meaningless, `position()` at a whole quantum); `Done(n)` applies no end rule.
    pub(crate) fn giving_up(input: &[u8], opts: DecodeOptions) -> DecodeJob {
        DecodeJob {
            ending: Ending::GiveUp,
            ..DecodeJob::new(input, opts)
        }
    }

    /// Whether this is a validation (`validating`), whose output is scratch.
    pub fn validates(&self) -> bool {
        self.discard
    }

    /// The input read and the bytes it decoded to so far.
    pub(crate) fn position(&self) -> (usize, usize) {
        (self.in_pos, self.decoded)
    }

    /// Where the next bytes go: the rest of the output, or scratch.
    fn room<'o>(&self, output: &'o mut [MaybeUninit<u8>]) -> &'o mut [MaybeUninit<u8>] {
        if self.discard {
            let whole = output.len() / 3 * 3;
            &mut output[..whole]
        } else {
            &mut output[self.decoded..]
        }
    }

    fn advance(&mut self, window: Window) {
        self.in_pos += window.consumed;
        self.decoded += window.written;
    }

    /// Ends the job; text that decoded to less than its bound held whitespace.
    fn done(&mut self, written: usize) -> Step {
        if written < self.bound {
            self.work = Work::DecodeSpaced;
        }
        Step::Done(if self.discard { 0 } else { written })
    }

    /// The short path, if the rest fits the step and room, has no line shape,
    /// and its ending takes a last quantum (not `whole_quanta`'s).
    #[inline(always)]
    fn short(
        &mut self,
        text: &[u8],
        output: &mut [MaybeUninit<u8>],
        max_input: usize,
    ) -> Option<Step> {
        let rest = &text[self.in_pos..];
        if self.ending == Ending::WholeQuanta
            || rest.len() > max_input
            || lines::shape_of(rest).is_some()
        {
            return None;
        }
        // Nothing is decoded yet: the rest's bound is the job's.
        let room = self.room(output);
        if room.len() < self.bound {
            return None;
        }
        let written = short::decode(rest, self.opts, room)?;
        self.in_pos = text.len();
        Some(self.done(self.decoded + written))
    }

    /// The line path until `end`; false once it finds no shape or no progress.
    fn decode_lines(&mut self, text: &[u8], output: &mut [MaybeUninit<u8>], end: usize) -> bool {
        while self.in_pos < end {
            let room = self.room(output);
            // A block needs a block's room; scratch has less only in tests.
            if self.discard && room.len() < lines::BLOCK_OUTPUT {
                return false;
            }
            let rest = &text[self.in_pos..];
            let Some(shape) = lines::shape_of(rest) else {
                return false;
            };
            let budget = end - self.in_pos;
            let done = lines::decode_lines(rest, shape, self.opts.alphabet, room, budget);
            if done.consumed == 0 {
                return false;
            }
            self.advance(done);
        }
        true
    }

    /// An unbroken window of whole quanta, never the text's last (may be padded); false if none.
    fn unbroken(&mut self, text: &[u8], output: &mut [MaybeUninit<u8>], budget: usize) -> bool {
        let rest = &text[self.in_pos..];
        let room = self.room(output);
        if self.takes_whole_rest(rest, room.len(), budget) {
            return false;
        }
        let piece = &rest[..rest.len().min(budget / 4 * 4).min(room.len() / 3 * 4)];
        let taken = !piece.is_empty()
            && piece.len() < rest.len()
            && simdutf::decodes_whole(piece, self.opts.alphabet, room);
        if taken {
            self.advance(Window {
                consumed: piece.len(),
                written: piece.len() / 4 * 3,
            });
        }
        taken
    }

    /// Whether `window` takes all of the rest in one plain decode (one call, not two).
    fn takes_whole_rest(&self, rest: &[u8], room: usize, budget: usize) -> bool {
        self.ending != Ending::WholeQuanta
            && rest.len() <= budget
            && room >= lengths::decoded_len_bound(rest)
    }

    /// The next window, about `budget` bytes, read as the ending reads it.
    fn window(&self, text: &[u8], output: &mut [MaybeUninit<u8>], budget: usize) -> Outcome {
        let rest = &text[self.in_pos..];
        let room = self.room(output);
        if self.ending == Ending::WholeQuanta {
            let window = if lengths::maximal_decoded_len(rest.len()) <= budget / 4 * 3 {
                room.len()
            } else {
                (budget / 4).max(1) * 3
            }
            .min(room.len());
            return match decode_whole_quanta(rest, self.opts, &mut room[..window]) {
                Some((window, true)) => Outcome::Last(window),
                Some((window, false)) => Outcome::Part(window),
                None => Outcome::Unusual,
            };
        }
        let (ok, window) = if self.takes_whole_rest(rest, room.len(), budget) {
            let result = simdutf::decode_loose(rest, self.opts.alphabet, room);
            let (consumed, written) = (rest.len(), result.count);
            let ok = result.error == ErrorCode::Success;
            (ok, Window { consumed, written })
        } else {
            let window = room.len().min((budget / 4).max(1) * 3);
            let loose = LastChunkHandlingOptions::Loose;
            let (result, written) =
                simdutf::decode_bounded(rest, &mut room[..window], self.opts.alphabet, loose);
            let ok = matches!(
                result.error,
                ErrorCode::Success | ErrorCode::OutputBufferTooSmall
            );
            let consumed = result.count;
            (ok, Window { consumed, written })
        };
        let finished = window.consumed == rest.len();
        // A window before the last ends on a whole quantum unless simdutf met padding.
        let progressed = window.consumed > 0 || window.written > 0;
        if !ok || !progressed || (!finished && window.written % 3 != 0) {
            return Outcome::Unusual;
        }
        if self.ending == Ending::Otp {
            let read = &rest[..window.consumed];
            if let Err(error) = check_skipped_bytes(read, window.written, self.opts, self.in_pos) {
                return Outcome::Error(error);
            }
        }
        if finished {
            Outcome::Last(window)
        } else {
            Outcome::Part(window)
        }
    }

    /// OTP's ending locates the error with the scalar decoder; others give up.
    fn unusual(&mut self, text: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step {
        if self.ending != Ending::Otp {
            return Step::Failed(DecodeError::InvalidCharacter(self.in_pos));
        }
        let written = if self.discard { 0 } else { self.decoded };
        self.stage = Stage::Locating(Box::new(scalar::Decoder::new(self.opts, written)));
        self.locate(text, output, max_input)
    }

    /// The scalar decoder, far slower than the kernels, gets a quarter step.
    fn locate(&mut self, text: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step {
        let end = text
            .len()
            .min(self.in_pos.saturating_add((max_input / 4).max(1)));
        // Discarding, a piece and a quantum carried into it must fit scratch.
        let piece_max = if self.discard {
            (output.len() / 3).saturating_sub(1).max(1) * 4
        } else {
            usize::MAX
        };
        let Stage::Locating(decoder) = &mut self.stage else {
            return Step::More;
        };
        while self.in_pos < end {
            let piece_end = end.min(self.in_pos.saturating_add(piece_max));
            if let Err(error) = decoder.feed(&text[self.in_pos..piece_end], self.in_pos, output) {
                return Step::Failed(error);
            }
            if self.discard {
                decoder.discard_output();
            }
            self.in_pos = piece_end;
        }
        if self.in_pos < text.len() {
            return Step::More;
        }
        let Stage::Locating(decoder) = std::mem::replace(&mut self.stage, Stage::Windows) else {
            return Step::More;
        };
        match decoder.finish(output) {
            Ok(total) => self.done(total),
            Err(error) => Step::Failed(error),
        }
    }

    fn finish(&mut self, text: &[u8]) -> Step {
        if self.ending == Ending::Otp {
            if let Err(error) = check_final_quantum(text, self.decoded, self.opts) {
                return Step::Failed(error);
            }
        }
        self.done(self.decoded)
    }

    /// Every stage after the short path's.
    #[inline(never)]
    fn stages(&mut self, input: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step {
        let text = &input[..self.end];
        if let Stage::Locating(_) = self.stage {
            return self.locate(text, output, max_input);
        }
        // At least a byte a step, so that every step makes progress.
        let end = text.len().min(self.in_pos.saturating_add(max_input.max(1)));
        if let Stage::Lines = self.stage {
            if !self.decode_lines(text, output, end) {
                self.stage = Stage::Unbroken;
            }
        }
        while self.in_pos < text.len() {
            if self.in_pos >= end {
                return Step::More;
            }
            let budget = end - self.in_pos;
            if let Stage::Unbroken = self.stage {
                if self.unbroken(text, output, budget) {
                    continue;
                }
                // Under a quantum left ends the step, not the stage, if steps are 4+ bytes.
                if budget < 4 && end < text.len() && max_input >= 4 {
                    return Step::More;
                }
                self.stage = Stage::Windows;
            }
            match self.window(text, output, budget) {
                Outcome::Part(window) => self.advance(window),
                Outcome::Last(window) => {
                    self.advance(window);
                    break;
                }
                Outcome::Unusual => return self.unusual(text, output, max_input),
                Outcome::Error(error) => return Step::Failed(error),
            }
        }
        self.finish(text)
    }
}

impl Job for DecodeJob {
    /// `decoded_len_bound` of the text, or `VALIDATION_SCRATCH` for a validation.
    #[inline(always)]
    fn buffer(&self, _input: &[u8]) -> Option<Buffer> {
        Some(match self.discard {
            true => Buffer::Scratch(VALIDATION_SCRATCH),
            false => Buffer::Data(self.bound),
        })
    }

    /// The short path inline, the other stages out of line.
    #[inline(always)]
    fn step(&mut self, input: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step {
        if let Stage::Start = self.stage {
            let text = &input[..self.end];
            if let Some(step) = self.short(text, output, max_input) {
                return step;
            }
            self.stage = if self.opts.reject_whitespace || text.len() < lines::MIN_INPUT {
                Stage::Unbroken
            } else {
                Stage::Lines
            };
        }
        self.stages(input, output, max_input)
    }

    fn work(&self) -> Work {
        self.work
    }
}

/// simdutf's `stop_before_partial` decode into `output` (`maximal_decoded_len`, or
/// less to stop early): the whole quanta, whether at the end; `None` if unusual.
pub(crate) fn decode_whole_quanta(
    input: &[u8],
    opts: DecodeOptions,
    output: &mut [MaybeUninit<u8>],
) -> Option<(Window, bool)> {
    let stop = LastChunkHandlingOptions::StopBeforePartial;
    let (result, written) = simdutf::decode_bounded(input, output, opts.alphabet, stop);
    let (consumed, written, finished) = match result.error {
        // A padded last quantum is left for the carry, for what follows to judge.
        ErrorCode::Success if written % 3 != 0 => {
            let (consumed, written) = before_padded_quantum(input, result.count, written)?;
            (consumed, written, true)
        }
        ErrorCode::Success => (result.count, written, true),
        ErrorCode::OutputBufferTooSmall if written > 0 && written % 3 == 0 => {
            (result.count, written, false)
        }
        _ => return None,
    };
    check_skipped_bytes(&input[..consumed], written, opts, 0).ok()?;
    Some((Window { consumed, written }, finished))
}

/// Where the padded quantum ending `input[..consumed]` begins, and the bytes
/// before it; simdutf accepted them, so all but whitespace and `=` are characters.
fn before_padded_quantum(input: &[u8], consumed: usize, written: usize) -> Option<(usize, usize)> {
    let mut characters = written % 3 + 1;
    for at in (0..consumed).rev() {
        if sextet(input[at]).is_some() {
            characters -= 1;
            if characters == 0 {
                return Some((at, written - written % 3));
            }
        }
    }
    None
}

/// The scratch a validation writes into: a block of the line path's output.
pub const VALIDATION_SCRATCH: usize = 12 * 1024;
const _: () = assert!(VALIDATION_SCRATCH >= lines::BLOCK_OUTPUT);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{Alphabet, EncodeOptions};
    use crate::output::as_output;
    use crate::test_support::{
        decode_sliced, decode_to_vec, reference_encode, scalar_decode_to_vec, Rng, EDIT_BYTES,
    };

    /// A validation in steps of `slice` bytes into `scratch` bytes.
    fn validate(
        input: &[u8],
        opts: DecodeOptions,
        scratch: usize,
        slice: usize,
    ) -> Result<(), DecodeError> {
        let mut scratch = vec![0u8; scratch];
        let mut job = DecodeJob::validating(input, opts);
        job.run_to_end(input, as_output(&mut scratch), slice)
            .map(|_| ())
    }

    /// Unbroken text stays on unbroken windows through steps of any size:
    /// a step whose budget ends mid-quantum leaves the rest to the next
    /// step, not to the slower bounded windows.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn unbroken_text_stays_unbroken_through_uneven_steps() {
        let text = reference_encode(&[0x5A; 30_000], EncodeOptions::DEFAULT);
        for (discard, step) in [(false, 1001), (false, 4097), (true, 1001), (true, 16_386)] {
            let mut job = DecodeJob::new(&text, DecodeOptions::DEFAULT);
            job.discard = discard;
            let mut out = vec![0u8; job.buffer(&text).unwrap().size()];
            while job.step(&text, as_output(&mut out), step) == Step::More {
                assert!(
                    matches!(job.stage, Stage::Unbroken),
                    "{discard} {step}: {:?} at {}",
                    job.stage,
                    job.in_pos
                );
            }
        }
    }

    impl Stage {
        /// The stages in the order a job goes through them; `Locating` may
        /// follow any, and none goes back.
        fn rank(&self) -> u8 {
            match self {
                Stage::Start => 0,
                Stage::Lines => 1,
                Stage::Unbroken => 2,
                Stage::Windows => 3,
                Stage::Locating(_) => 4,
            }
        }
    }

    impl DecodeJob {
        /// What holds between any two steps of a job that goes on, whatever
        /// made it: its reading stays within the input it was made for, what
        /// it has decoded within the buffer it asked for (a write past it
        /// would panic), its stages only go forward, its work only slows,
        /// and its ending, options and end never change.
        fn assert_invariants(&self, input: &[u8], first: &DecodeJob, before: &DecodeJob) {
            assert!(
                self.end <= input.len() && self.in_pos <= self.end,
                "{self:?}"
            );
            assert!(self.in_pos >= before.in_pos, "{self:?} after {before:?}");
            assert!(
                self.stage.rank() >= before.stage.rank(),
                "{self:?} after {before:?}"
            );
            assert!(
                before.work == Work::Decode || self.work == before.work,
                "{self:?} after {before:?}"
            );
            assert_eq!(
                (self.ending, self.opts, self.end, self.bound, self.discard),
                (
                    first.ending,
                    first.opts,
                    first.end,
                    first.bound,
                    first.discard
                )
            );
            if !self.discard {
                assert!(self.decoded <= self.bound, "{self:?}");
                assert!(self.decoded >= before.decoded, "{self:?} after {before:?}");
            }
        }
    }

    /// Every kind of job (decode, validation, `mime_decode`'s giving up, a
    /// stream piece's whole quanta), every option set, random slices: the
    /// invariants hold after every step that asks for more, the job ends
    /// within a step per input byte, and `Done(n)` is within the buffer.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn invariants_hold_between_steps() {
        let seed = 0x5EED_0017;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let options = DecodeOptions::all();
        // How many steps asked for more in each stage: every stage is reached.
        let mut seen = [0usize; 5];
        for round in 0..3_000 {
            let len = [0, 3, 50, 700, 5_000][(rng.next() % 5) as usize];
            let plain = rng.bytes(len);
            let mut text = reference_encode(&plain, rng.encode_options());
            if rng.next() % 2 == 0 {
                text = text.chunks(76).collect::<Vec<_>>().join(&b"\r\n"[..]);
            }
            for _ in 0..rng.next() % 3 {
                rng.edit(&mut text, EDIT_BYTES);
            }
            let opts = options[(rng.next() as usize) % options.len()];
            let jobs = [
                DecodeJob::new(&text, opts),
                DecodeJob::validating(&text, opts),
                DecodeJob::giving_up(&text, opts),
                DecodeJob::whole_quanta(&text, opts, 0, 0),
            ];
            for first in jobs {
                let mut job = first.clone();
                let mut output = vec![0u8; job.buffer(&text).unwrap().size()];
                let slice = 1 + (rng.next() % 3_000) as usize;
                for steps in 1.. {
                    assert!(steps <= text.len() + 2, "round {round}: no end");
                    let before = job.clone();
                    match job.step(&text, as_output(&mut output), slice) {
                        Step::More => {
                            job.assert_invariants(&text, &first, &before);
                            seen[usize::from(job.stage.rank())] += 1;
                        }
                        Step::Done(n) => {
                            assert!(n <= output.len(), "round {round}");
                            break;
                        }
                        Step::Failed(_) => break,
                    }
                }
            }
        }
        println!("steps that asked for more, by stage: {seen:?}");
        assert!(seen.iter().skip(1).all(|&n| n > 0), "{seen:?}");
    }

    /// The definition, for every option set: every path of a one-shot
    /// decode (short, lines, unbroken, simdutf, scalar) gives the scalar
    /// decoder's bytes, verdict, reason and offset on mutated inputs.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn one_shot_agrees_with_the_scalar_definition() {
        let seed = 0x5EED_0002;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let options = DecodeOptions::all();
        for round in 0..20_000 {
            let len = (rng.next() % 200) as usize;
            let plain = rng.bytes(len);
            let mut text = reference_encode(&plain, rng.encode_options());
            for _ in 0..rng.next() % 4 {
                rng.edit(&mut text, EDIT_BYTES);
            }
            for &opts in &options {
                assert_eq!(
                    decode_to_vec(&text, opts),
                    scalar_decode_to_vec(&text, opts),
                    "round {round} input {text:?} {opts:?}"
                );
            }
        }
    }

    /// One decode path for every size: the same inputs one-shot and in
    /// slices of every size that crosses their quanta, blocks and lines give
    /// the same bytes, verdicts, reasons and offsets.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn sliced_equals_one_shot_on_mutated_inputs() {
        let seed = 0x5EED_0003;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let specials = b"=\t\n\r \x0c\x0b-_+/\x00.QA";
        let options = DecodeOptions::all();
        for round in 0..4_000 {
            let len = match round % 8 {
                0 => 400 + (rng.next() % 3_000) as usize,
                _ => (rng.next() % 120) as usize,
            };
            let plain = rng.bytes(len);
            let mut text = reference_encode(&plain, rng.encode_options());
            if round % 5 == 0 {
                let length = [76, 64, 72][rng.next() as usize % 3];
                text = text.chunks(length).collect::<Vec<_>>().join(&b"\r\n"[..]);
            }
            for _ in 0..(rng.next() % 4) {
                rng.edit(&mut text, specials);
            }
            let opts = options[rng.next() as usize % options.len()];
            let one_shot = decode_to_vec(&text, opts);
            for slice in [1, 4, 5, 8, 12, 64, 1000] {
                assert_eq!(
                    decode_sliced(&text, opts, slice),
                    one_shot,
                    "round {round} slice {slice} input {:?} {opts:?}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
    }

    /// Whitespace around the text is cut before the decode starts, and the
    /// result is that of the whole: bytes, reasons and offsets.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn whitespace_around_the_text_changes_nothing() {
        let seed = 0x5EED_0011;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let spaces = b" \t\r\n";
        let nasty = b"= \n\x0c\t-_+/AQgz";
        for round in 0..20_000 {
            let plain = rng.bytes(round % 200);
            let mut text = reference_encode(&plain, rng.encode_options());
            if round % 3 == 0 && !text.is_empty() {
                let at = rng.next() as usize % text.len();
                text[at] = nasty[rng.next() as usize % nasty.len()];
            }
            let mut around = |n: u64| -> Vec<u8> {
                (0..rng.next() % n)
                    .map(|_| spaces[rng.next() as usize % spaces.len()])
                    .collect()
            };
            let (head, tail) = (around(4), around(4));
            let input = [head, text, tail].concat();
            for opts in DecodeOptions::all() {
                assert_eq!(
                    decode_to_vec(&input, opts),
                    scalar_decode_to_vec(&input, opts),
                    "{:?} {opts:?}",
                    String::from_utf8_lossy(&input)
                );
            }
        }
    }

    /// `mode => any` with every byte value at every position of 64- to
    /// 256-character inputs: the same verdict, reason and offset as the
    /// scalar rules on every kernel (the arm64 `[` defect included).
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn any_alphabet_every_byte_everywhere() {
        let opts = DecodeOptions {
            alphabet: Alphabet::Any,
            ..DecodeOptions::DEFAULT
        };
        for len in [64, 68, 128, 192, 256] {
            let base: Vec<u8> = (0..len).map(|i| b"AQgw-_+/"[i % 8]).collect();
            for at in 0..len {
                for byte in 0..=255u8 {
                    let mut input = base.clone();
                    input[at] = byte;
                    assert_eq!(
                        decode_to_vec(&input, opts),
                        scalar_decode_to_vec(&input, opts),
                        "len {len}, byte {byte:#04x} at {at}"
                    );
                }
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn round_trip_every_length_to_1100() {
        let seed = 0x5EED_0001;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        for len in 0..=1100 {
            let plain = rng.bytes(len);
            for alphabet in [Alphabet::Standard, Alphabet::UrlSafe] {
                for padding in [true, false] {
                    let encoded = reference_encode(&plain, EncodeOptions { alphabet, padding });
                    let opts = DecodeOptions {
                        alphabet,
                        padding_required: padding,
                        reject_whitespace: true,
                        canonical: true,
                    };
                    assert_eq!(
                        decode_to_vec(&encoded, opts),
                        Ok(plain.clone()),
                        "len {len} {alphabet:?} {padding}"
                    );
                }
            }
        }
    }

    /// Validation gives decode's verdict, one-shot and in slices, into
    /// scratch of any size.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn validation_gives_the_decode_verdict() {
        let seed = 0x5EED_0014;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        for round in 0..3_000 {
            let len = match round % 10 {
                0 => 300 + (rng.next() % 20_000) as usize,
                _ => (rng.next() % 400) as usize,
            };
            let plain = rng.bytes(len);
            let mut text = reference_encode(&plain, rng.encode_options());
            if round % 10 == 0 {
                let length = [76, 64][rng.next() as usize % 2];
                text = text.chunks(length).collect::<Vec<_>>().join(&b"\r\n"[..]);
            }
            for _ in 0..(rng.next() % 3) {
                rng.edit(&mut text, EDIT_BYTES);
            }
            for opts in DecodeOptions::all() {
                let want = decode_to_vec(&text, opts).map(|_| ());
                assert_eq!(
                    validate(&text, opts, VALIDATION_SCRATCH, usize::MAX),
                    want,
                    "round {round} {opts:?}"
                );
                let scratch = [6, 9, 30, 300, VALIDATION_SCRATCH][(rng.next() % 5) as usize];
                let slice = 1 + (rng.next() % 5_000) as usize;
                assert_eq!(
                    validate(&text, opts, scratch, slice),
                    want,
                    "round {round} scratch {scratch} slice {slice} {opts:?}"
                );
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn validation_examples() {
        let valid = |text: &[u8]| validate(text, DecodeOptions::DEFAULT, 64, usize::MAX).is_ok();
        assert!(valid(b""));
        assert!(valid(b"QQ=="));
        assert!(valid(b" Q Q = = \n"));
        assert!(!valid(b"QQ"));
        assert!(!valid(b"QQ="));
        assert!(!valid(b"Q"));
        assert!(!valid(b"QQ\x0c=="));
        assert!(!valid(b"QQ==QQ=="));
        let long: Vec<u8> = b"QUJD".repeat(20_000);
        assert!(valid(&long));
        let mut bad = long.clone();
        bad[70_000] = b'-';
        assert!(!valid(&bad));
    }
}
