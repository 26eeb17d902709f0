//! The decode engine: one cascade that every sliced decode runs, over one
//! input and into one output buffer allocated up front. In order: the line
//! path (`lines`), whole unbroken windows (one plain simdutf decode each),
//! simdutf's bounded decode window by window, and the scalar decoder to
//! locate an error. What differs between the functions built on it is only
//! the sink and the ending:
//!
//! - the sink: decode keeps what it writes in the output buffer; `is_valid`
//!   (`discarding`) decodes window after window into a small scratch buffer,
//!   which stays in cache, and keeps only the count;
//! - the ending (`Ending`): what a window's simdutf result means, what
//!   happens when the cascade cannot go on (locate the error, or give up so
//!   that the caller's exact path takes over) and the rules at the end of
//!   the input. `decode`, `is_valid` and the stream's exact way end as OTP
//!   does; the stream's quick step stops before a partial quantum
//!   (`quanta`); `mime_decode` gives up to its filter (`mime`).

use crate::codec::{self, check_final_quantum, check_skipped_bytes, Window};
use crate::job::{Job, Step};
use crate::lines;
use crate::options::DecodeOptions;
use crate::scalar::{self, sextet, DecodeError};
use simdutf::{ErrorCode, LastChunkHandlingOptions};

/// What a window's simdutf result means, where the cascade cannot go on,
/// and the rules at the end of the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    /// OTP's rules: bytes simdutf skips that OTP rejects are errors, the end
    /// of the input gets `check_final_quantum`, and an error is located by
    /// the scalar decoder (its reason and offset are the result).
    Otp,
    /// Whole quanta only (the stream's quick step): simdutf's
    /// `stop_before_partial` leaves a partial or padded last quantum
    /// undecoded; anything unusual gives up.
    BeforePartial,
    /// Every byte simdutf skips is allowed (`mime_decode`'s fast path);
    /// a failure gives up, and the end rules are the caller's.
    GiveUp,
}

/// A window's outcome.
enum Outcome {
    /// Decoded; the input goes on.
    Part(Window),
    /// Decoded, and nothing more is to be decoded from this input.
    Last(Window),
    /// The cascade cannot go on here.
    Unusual,
    /// An error of OTP's rules, at its absolute offset.
    Error(DecodeError),
}

#[derive(Clone, Debug)]
pub struct DecodeJob {
    opts: DecodeOptions,
    ending: Ending,
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
            ending: Ending::Otp,
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

    /// The whole quanta of `input` from `in_pos` on, the first `in_pos`
    /// bytes having decoded to the first `decoded` of the output: `Done(n)`
    /// once they are decoded (`position()` then says where they end), a
    /// partial or padded last quantum left undecoded; `Failed(_)`, whose
    /// reason means nothing, for anything unusual.
    pub(crate) fn whole_quanta(opts: DecodeOptions, in_pos: usize, decoded: usize) -> DecodeJob {
        DecodeJob {
            ending: Ending::BeforePartial,
            in_pos,
            decoded,
            ..DecodeJob::new(opts)
        }
    }

    /// A decode that allows every byte simdutf skips and gives up where
    /// simdutf fails: `Failed(_)`, whose reason means nothing, with
    /// `position()` at a whole quantum. `Done(n)` applies no end rule.
    pub(crate) fn giving_up(opts: DecodeOptions) -> DecodeJob {
        DecodeJob {
            ending: Ending::GiveUp,
            lines: true,
            ..DecodeJob::new(opts)
        }
    }

    /// The input read and the bytes it decoded to so far.
    pub(crate) fn position(&self) -> (usize, usize) {
        (self.in_pos, self.decoded)
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

    fn advance(&mut self, window: Window) {
        self.in_pos += window.consumed;
        self.decoded += window.written;
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
            self.advance(Window {
                consumed: done.consumed,
                written: done.written,
            });
        }
        true
    }

    /// simdutf's bounded decode of a prefix of `rest` (at `in_pos`) into
    /// `room`, read as the ending reads it.
    fn window(&self, rest: &[u8], room: &mut [u8]) -> Outcome {
        let alphabet = self.opts.alphabet;
        if self.ending == Ending::BeforePartial {
            return match decode_whole_quanta(rest, self.opts, room) {
                Some((window, true)) => Outcome::Last(window),
                Some((window, false)) => Outcome::Part(window),
                None => Outcome::Unusual,
            };
        }
        let loose = LastChunkHandlingOptions::Loose;
        let (result, written) = codec::decode_bounded(rest, room, alphabet, loose);
        let consumed = result.count;
        let finished = consumed == rest.len();
        let ok = matches!(
            result.error,
            ErrorCode::Success | ErrorCode::OutputBufferTooSmall
        );
        let progressed = consumed > 0 || written > 0;
        // A window that is not the last must end on a whole quantum:
        // anything else means simdutf met padding in mid-stream.
        if !ok || !progressed || (!finished && !written.is_multiple_of(3)) {
            return Outcome::Unusual;
        }
        if self.ending == Ending::Otp {
            if let Err(error) =
                check_skipped_bytes(&rest[..consumed], written, self.opts, self.in_pos)
            {
                return Outcome::Error(error);
            }
        }
        let window = Window { consumed, written };
        if finished {
            Outcome::Last(window)
        } else {
            Outcome::Part(window)
        }
    }

    /// Where the cascade cannot go on: OTP's ending locates the error,
    /// the others give up at `in_pos`.
    fn unusual(&mut self, input: &[u8], output: &mut [u8], max_input: usize) -> Step {
        if self.ending != Ending::Otp {
            return Step::Failed(DecodeError::InvalidCharacter(self.in_pos));
        }
        let written = if self.discard { 0 } else { self.decoded };
        self.locating_error = Some(scalar::Decoder::new(self.opts, written));
        self.scalar_step(input, output, max_input)
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

    /// The rules at the end of the input.
    fn finish(&self, input: &[u8]) -> Step {
        if self.ending == Ending::Otp {
            if let Err(error) = check_final_quantum(input, self.decoded, self.opts) {
                return Step::Failed(error);
            }
        }
        self.done(self.decoded)
    }
}

impl Job for DecodeJob {
    /// Decodes about `max_input` more input bytes.
    fn step(&mut self, input: &[u8], output: &mut [u8], max_input: usize) -> Step {
        if self.locating_error.is_some() {
            return self.scalar_step(input, output, max_input);
        }
        if self.in_pos == 0 && input.len() < lines::MIN_INPUT && input.len() <= max_input {
            // Short input in one step: the line path needs more, and the
            // whole input is one window, so neither attempt can succeed
            // (they took 6 of a 64-byte mime_decode's 32 ns, Rust, hot).
            self.lines = false;
            self.unbroken = false;
        } else if self.in_pos == 0 {
            // Whitespace before the text is skipped, as one-shot decode
            // trims it: a leading newline sent every step after it off the
            // unbroken and line paths (1 MiB: 1.3x the time).
            self.in_pos = codec::trim_whitespace(input, self.opts).1;
        }
        // At least a byte a step, so that every step makes progress.
        let end = input
            .len()
            .min(self.in_pos.saturating_add(max_input.max(1)));
        if self.lines && !self.decode_lines(input, output, end) {
            self.lines = false;
        }
        while self.in_pos < input.len() {
            if self.in_pos >= end {
                return Step::More;
            }
            let rest = &input[self.in_pos..];
            let budget = end - self.in_pos;
            if self.unbroken {
                // Not the last piece: that one may end in padding, which
                // the bounded decode below checks.
                let room = self.room(output);
                let piece = &rest[..rest.len().min(budget / 4 * 4).min(room.len() / 3 * 4)];
                if !piece.is_empty()
                    && piece.len() < rest.len()
                    && codec::decodes_whole(piece, self.opts.alphabet, room)
                {
                    self.advance(Window {
                        consumed: piece.len(),
                        written: piece.len() / 4 * 3,
                    });
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
            match self.window(rest, &mut room[..window]) {
                Outcome::Part(window) => self.advance(window),
                Outcome::Last(window) => {
                    self.advance(window);
                    break;
                }
                Outcome::Unusual => return self.unusual(input, output, max_input),
                Outcome::Error(error) => return Step::Failed(error),
            }
        }
        self.finish(input)
    }
}

/// simdutf's `stop_before_partial` decode of `input` into `output` (room
/// for `maximal_decoded_len(input.len())`, or less to stop early): the
/// input its whole quanta take up and the bytes they decode to, whether it
/// reached the end, or `None` for anything unusual.
pub(crate) fn decode_whole_quanta(
    input: &[u8],
    opts: DecodeOptions,
    output: &mut [u8],
) -> Option<(Window, bool)> {
    let stop = LastChunkHandlingOptions::StopBeforePartial;
    let (result, written) = codec::decode_bounded(input, output, opts.alphabet, stop);
    let (consumed, written, finished) = match result.error {
        // A padded quantum at the end is left for the carry, where the end
        // of the stream (or the next piece) decides about it.
        ErrorCode::Success if !written.is_multiple_of(3) => {
            let (consumed, written) = before_padded_quantum(input, result.count, written)?;
            (consumed, written, true)
        }
        ErrorCode::Success => (result.count, written, true),
        ErrorCode::OutputBufferTooSmall if written > 0 && written.is_multiple_of(3) => {
            (result.count, written, false)
        }
        _ => return None,
    };
    check_skipped_bytes(&input[..consumed], written, opts, 0).ok()?;
    Some((Window { consumed, written }, finished))
}

/// Where the padded quantum that ends `input[..consumed]` (decoded to
/// `written` bytes) begins, and the bytes written before it: its 2 or 3
/// characters are found scanning back over whitespace and `=` (simdutf
/// accepted those bytes, so all others are alphabet characters).
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{encode_into, encoded_len, maximal_decoded_len};
    use crate::options::{Alphabet, EncodeOptions};
    use crate::test_support::{decode_to_vec, Rng};

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
            let encode_opts = EncodeOptions {
                alphabet: Alphabet::Standard,
                padding: rng.next().is_multiple_of(2),
            };
            let mut text = vec![0u8; encoded_len(len, encode_opts.padding).unwrap()];
            encode_into(&plain, encode_opts, &mut text);
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
}
