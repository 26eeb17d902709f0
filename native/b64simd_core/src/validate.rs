//! `is_valid`: the verdict of `try_decode` (same options, same rules) without
//! the output binary. The input is decoded window by window into a small
//! scratch buffer that stays in cache, with simdutf and the same checks as
//! `codec::decode_into`; when simdutf reports an error, the scalar decoder
//! (the definition of the rules) reads on, into the same scratch buffer.

use crate::codec::{
    check_final_quantum, check_skipped_bytes, decode_window, decodes_whole, Window,
};
use crate::job::{Job, Step};
use crate::lines;
use crate::options::DecodeOptions;
use crate::scalar::Decoder;
use crate::scratch::with_scratch;

/// Scratch bytes for a one-shot check: 16 KiB of input per simdutf call,
/// and one block of the line path.
pub const SCRATCH: usize = 12 * 1024;
const _: () = assert!(SCRATCH >= lines::BLOCK_OUTPUT);

#[derive(Clone, Debug)]
pub struct ValidateJob {
    opts: DecodeOptions,
    in_pos: usize,
    /// Bytes the input decodes to so far (never stored).
    decoded: usize,
    /// Set once simdutf has reported an error: the scalar decoder reads on.
    scalar: Option<Decoder>,
    /// True until a window holds anything but whole quanta of the alphabet:
    /// until then simdutf's plain decode checks window after window, which
    /// costs less per call than its bounded-output variant.
    unbroken: bool,
    /// True until the line path (`lines::decode_block`) makes no progress.
    lines: bool,
}

impl ValidateJob {
    pub fn new(opts: DecodeOptions) -> ValidateJob {
        ValidateJob {
            opts,
            in_pos: 0,
            decoded: 0,
            scalar: None,
            unbroken: true,
            lines: !opts.reject_whitespace,
        }
    }
}

impl Job for ValidateJob {
    /// Checks about `max_input` more input bytes, decoding into `scratch`
    /// (at least 6 bytes, its content is of no use to the caller).
    /// `Done(_)` means valid.
    fn step(&mut self, input: &[u8], scratch: &mut [u8], max_input: usize) -> Step {
        if self.in_pos == 0 {
            // Whitespace before the text is skipped, as in DecodeJob.
            self.in_pos = crate::codec::trim_whitespace(input, self.opts).1;
        }
        let window = scratch.len() / 3 * 3;
        let end = input.len().min(self.in_pos.saturating_add(max_input));
        // The line path decodes a block at a time, so it needs a block's
        // room (the NIF gives SCRATCH; tests also try tiny ones).
        if self.lines && scratch.len() >= lines::BLOCK_OUTPUT {
            if let Some(shape) = lines::shape_of(&input[self.in_pos..]) {
                let output = &mut scratch[..lines::BLOCK_OUTPUT];
                while let Some(block) =
                    lines::decode_block(&input[self.in_pos..], shape, self.opts.alphabet, output)
                {
                    self.in_pos += block.consumed;
                    self.decoded += block.written;
                    if self.in_pos >= end {
                        return Step::More;
                    }
                }
            }
            self.lines = false;
        }
        while self.scalar.is_none() && self.in_pos < input.len() {
            let rest = &input[self.in_pos..];
            if self.unbroken {
                let piece = &rest[..rest.len().min(window / 3 * 4)];
                if piece.len() < rest.len() && decodes_whole(piece, self.opts.alphabet, scratch) {
                    self.in_pos += piece.len();
                    self.decoded += piece.len() / 4 * 3;
                    if self.in_pos >= end {
                        return Step::More;
                    }
                    continue;
                }
                self.unbroken = false;
            }
            // Anything but whole quanta before the end means padding in
            // mid-stream: the scalar decoder finds the reason.
            let Some(Window { consumed, written }) =
                decode_window(rest, &mut scratch[..window], self.opts.alphabet)
            else {
                self.scalar = Some(Decoder::new(self.opts, 0));
                break;
            };
            if let Err(error) =
                check_skipped_bytes(&rest[..consumed], written, self.opts, self.in_pos)
            {
                return Step::Failed(error);
            }
            self.in_pos += consumed;
            self.decoded += written;
            if self.in_pos >= end && self.in_pos < input.len() {
                return Step::More;
            }
        }
        let Some(decoder) = self.scalar.as_mut() else {
            return match check_final_quantum(input, self.decoded, self.opts) {
                Ok(()) => Step::Done(0),
                Err(error) => Step::Failed(error),
            };
        };
        // The scalar decoder is several times slower than any SIMD kernel,
        // so it gets a quarter of the slice; each piece fits the scratch.
        let piece_len = (scratch.len() / 3 - 1) * 4;
        let end = input
            .len()
            .min(self.in_pos.saturating_add((max_input / 4).max(1)));
        while self.in_pos < end {
            let piece_end = end.min(self.in_pos + piece_len);
            if let Err(error) = decoder.feed(&input[self.in_pos..piece_end], self.in_pos, scratch) {
                return Step::Failed(error);
            }
            decoder.discard_output();
            self.in_pos = piece_end;
        }
        if self.in_pos < input.len() {
            return Step::More;
        }
        match self.scalar.take().map(|d| d.finish(scratch)) {
            Some(Ok(_)) => Step::Done(0),
            Some(Err(error)) => Step::Failed(error),
            None => Step::More,
        }
    }
}

/// The verdict for the whole of `input`, checked in one call.
pub fn is_valid(input: &[u8], opts: DecodeOptions) -> bool {
    // The verdict needs no offsets, so whitespace around the input can go.
    let (input, _) = crate::codec::trim_whitespace(input, opts);
    with_scratch(|scratch| is_valid_with(input, opts, &mut scratch[..SCRATCH]))
}

fn is_valid_with(input: &[u8], opts: DecodeOptions, scratch: &mut [u8]) -> bool {
    // An input that decodes into the scratch buffer is decoded whole.
    if crate::codec::decoded_len_bound(input) <= scratch.len() {
        return crate::codec::decode_into(input, opts, scratch).is_ok();
    }
    let mut job = ValidateJob::new(opts);
    job.run_to_end(input, scratch, usize::MAX).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::encoded_len;
    use crate::options::Alphabet;
    use crate::scalar::DecodeError;
    use crate::test_support::{decode_to_vec, Rng};

    fn sliced(
        input: &[u8],
        opts: DecodeOptions,
        scratch: usize,
        slice: usize,
    ) -> Result<(), DecodeError> {
        let mut scratch = vec![0u8; scratch];
        let mut job = ValidateJob::new(opts);
        job.run_to_end(input, &mut scratch, slice).map(|_| ())
    }

    /// The same verdict (and, for a sliced job, the same reason) as
    /// `try_decode` on mutated encodings, for every option and several
    /// scratch sizes and slicings.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn same_verdict_as_try_decode() {
        let seed = 0x5EED_0014;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let specials = b"=\t\n\r \x0c\x0b-_+/\x00\xff.QA";
        for round in 0..3_000 {
            let len = (rng.next() % 400) as usize;
            let plain = rng.bytes(len);
            let padding = rng.next().is_multiple_of(2);
            let mut text = vec![0u8; encoded_len(len, padding).unwrap()];
            crate::codec::encode_into(
                &plain,
                crate::options::EncodeOptions {
                    alphabet: Alphabet::Standard,
                    padding,
                },
                &mut text,
            );
            for _ in 0..(rng.next() % 3) {
                let special = specials[(rng.next() as usize) % specials.len()];
                let at = (rng.next() as usize) % (text.len() + 1);
                text.insert(at, special);
            }
            for alphabet in [Alphabet::Standard, Alphabet::UrlSafe, Alphabet::Any] {
                for bits in 0..8 {
                    let opts = DecodeOptions {
                        alphabet,
                        padding_required: bits & 1 != 0,
                        reject_whitespace: bits & 2 != 0,
                        canonical: bits & 4 != 0,
                    };
                    let want = decode_to_vec(&text, opts).map(|_| ());
                    assert_eq!(
                        is_valid(&text, opts),
                        want.is_ok(),
                        "round {round} {opts:?}"
                    );
                    let scratch = [6, 9, 30, 300][(rng.next() % 4) as usize];
                    let slice = 1 + (rng.next() % 50) as usize;
                    assert_eq!(
                        sliced(&text, opts, scratch, slice),
                        want,
                        "round {round} scratch {scratch} slice {slice} {opts:?}"
                    );
                }
            }
        }
    }

    /// Line-wrapped text with a stray byte or none: the line path (one shot
    /// and sliced) gives `try_decode`'s verdict and reason.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn same_verdict_on_wrapped_text() {
        let seed = 0x5EED_0015;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        for round in 0..300 {
            let len = 300 + (rng.next() % 40_000) as usize;
            let mut text = vec![0u8; encoded_len(len, true).unwrap()];
            let plain = rng.bytes(len);
            crate::codec::encode_into(&plain, crate::options::EncodeOptions::DEFAULT, &mut text);
            let (length, line_break): (usize, &[u8]) = if rng.next().is_multiple_of(2) {
                (76, b"\r\n")
            } else {
                (64, b"\n")
            };
            let mut text = text.chunks(length).collect::<Vec<_>>().join(line_break);
            if rng.next().is_multiple_of(2) {
                let at = (rng.next() as usize) % text.len();
                text[at] = b"=!\n A"[(rng.next() % 5) as usize];
            }
            for opts in DecodeOptions::all() {
                let want = decode_to_vec(&text, opts).map(|_| ());
                assert_eq!(
                    is_valid(&text, opts),
                    want.is_ok(),
                    "round {round} {opts:?}"
                );
                let slice = [1, 5_000, 100_000][(rng.next() % 3) as usize];
                assert_eq!(
                    sliced(&text, opts, SCRATCH, slice),
                    want,
                    "round {round} slice {slice} {opts:?}"
                );
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn examples() {
        let strict = DecodeOptions::DEFAULT;
        assert!(is_valid(b"", strict));
        assert!(is_valid(b"QQ==", strict));
        assert!(is_valid(b" Q Q = = \n", strict));
        assert!(!is_valid(b"QQ", strict));
        assert!(!is_valid(b"QQ=", strict));
        assert!(!is_valid(b"Q", strict));
        assert!(!is_valid(b"QQ\x0c==", strict));
        assert!(!is_valid(b"QQ==QQ==", strict));
        let long: Vec<u8> = b"QUJD".repeat(20_000);
        assert!(is_valid(&long, strict));
        let mut bad = long.clone();
        bad[70_000] = b'-';
        assert!(!is_valid(&bad, strict));
    }
}
