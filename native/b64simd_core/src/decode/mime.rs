//! `mime_decode`: exactly OTP 26's `base64:mime_decode/2`, which skips every
//! byte outside the alphabet (RFC 2045 section 6.8), a mid-stream `=` too. As
//! rules on the alphabet characters alone:
//! - 4k characters: the data they encode;
//! - 4k + 1: `{incomplete, offset of the last character}` (OTP crashes);
//! - 4k + 2 or 4k + 3: the partial group (unused bits dropped) if a `=` comes
//!   after the last character or padding is optional, else `missing_padding`.
//!
//! simdutf's "accept garbage" mode stops at the first `=`, so it is not this. The
//! fast path (`DecodeJob::giving_up`) agrees with these rules where it succeeds;
//! where it gives up, the job filters alphabet characters into scratch for good.

use super::DecodeJob;
use crate::budget::Work;
use crate::error::DecodeError;
use crate::job::{Buffer, Job, Step};
use crate::lengths;
use crate::options::{Alphabet, DecodeOptions};
use crate::rules::{class_table_for, is_sextet_class, sextet};
use crate::scalar;
use crate::scratch::with_scratch;
use crate::simdutf::decode_loose;
use simdutf::ErrorCode;
use std::mem::MaybeUninit;

/// Bytes filtered per block: the scratch buffer stays in L1.
const BLOCK: usize = 16 * 1024;

#[derive(Clone, Debug)]
struct Filter {
    in_pos: usize,
    out_pos: usize,
    classes: &'static [u8; 256],
    /// Alphabet characters read but not decoded yet: fewer than 4.
    pending: [u8; 4],
    pending_len: usize,
    /// Offset of the last alphabet character read so far.
    last_significant: usize,
    /// Whether a `=` came after that character.
    pad_after_last: bool,
}

#[derive(Clone, Debug)]
pub struct MimeJob {
    opts: DecodeOptions,
    fast: DecodeJob,
    /// Set once the fast path has given up.
    filter: Option<Box<Filter>>,
}

impl MimeJob {
    pub fn new(input: &[u8], opts: DecodeOptions) -> MimeJob {
        MimeJob {
            opts,
            fast: DecodeJob::giving_up(input, opts),
            filter: None,
        }
    }

    fn filter_step(
        &mut self,
        input: &[u8],
        output: &mut [MaybeUninit<u8>],
        max_input: usize,
    ) -> Step {
        let Some(filter) = self.filter.as_mut() else {
            return Step::More;
        };
        let end = input
            .len()
            .min(filter.in_pos.saturating_add(max_input.max(1)));
        with_scratch(|scratch| {
            let chars = &mut scratch[..BLOCK + 4];
            for (index, block) in input[filter.in_pos..end].chunks(BLOCK).enumerate() {
                let offset = filter.in_pos + index * BLOCK;
                let count = filter.read(block, offset, chars);
                let whole = count / 4 * 4;
                filter.out_pos += decode_groups(
                    &chars[..whole],
                    self.opts.alphabet,
                    &mut output[filter.out_pos..],
                );
                filter.pending_len = count - whole;
                filter.pending[..count - whole].copy_from_slice(&chars[whole..count]);
            }
        });
        filter.in_pos = end;
        if end < input.len() {
            return Step::More;
        }
        let out_pos = filter.out_pos;
        let pending = &filter.pending[..filter.pending_len];
        match pending.len() {
            0 => Step::Done(out_pos),
            1 => Step::Failed(DecodeError::Incomplete(filter.last_significant)),
            _ if self.opts.padding_required && !filter.pad_after_last => {
                Step::Failed(DecodeError::MissingPadding)
            }
            _ => scalar::decode(pending, lenient(self.opts.alphabet), &mut output[out_pos..])
                .map(|written| out_pos + written)
                .into(),
        }
    }
}

impl Job for MimeJob {
    /// Room for every byte of `input` being a character.
    fn buffer(&self, input: &[u8]) -> Option<Buffer> {
        Some(Buffer::Data(lengths::maximal_decoded_len(input.len())))
    }

    fn step(&mut self, input: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step {
        if self.filter.is_none() {
            match self.fast.step(input, output, max_input) {
                Step::More => return Step::More,
                Step::Done(written) => return fast_done(input, written, self.opts).into(),
                // Given up at a whole group: the filter goes on from there.
                Step::Failed(_) => {
                    let (in_pos, out_pos) = self.fast.position();
                    self.filter = Some(Box::new(Filter {
                        in_pos,
                        out_pos,
                        classes: class_table_for(self.opts.alphabet),
                        pending: [0; 4],
                        pending_len: 0,
                        last_significant: 0,
                        pad_after_last: false,
                    }));
                }
            }
        }
        self.filter_step(input, output, max_input)
    }

    /// MIME bodies have line breaks.
    fn work(&self) -> Work {
        match self.filter {
            Some(_) => Work::MimeFiltered,
            None => Work::DecodeSpaced,
        }
    }
}

impl Filter {
    /// Appends `block`'s alphabet characters to the pending ones in `chars`: the count.
    fn read(&mut self, block: &[u8], offset: usize, chars: &mut [u8]) -> usize {
        chars[..self.pending_len].copy_from_slice(&self.pending[..self.pending_len]);
        let mut count = self.pending_len;
        let classes = self.classes;
        // Branch-free: every byte is stored, only alphabet characters advance.
        let room = &mut chars[..count + block.len()];
        for &byte in block {
            if let Some(slot) = room.get_mut(count) {
                *slot = byte;
            }
            count += usize::from(is_sextet_class(classes[usize::from(byte)]));
        }
        if count > self.pending_len {
            if let Some(last) = block
                .iter()
                .rposition(|&b| is_sextet_class(classes[usize::from(b)]))
            {
                self.last_significant = offset + last;
                self.pad_after_last = block[last + 1..].contains(&b'=');
            }
        } else if !self.pad_after_last {
            self.pad_after_last = block.contains(&b'=');
        }
        count
    }
}

/// With padding required, a partial last group needs a `=` after its last character.
fn fast_done(input: &[u8], written: usize, opts: DecodeOptions) -> Result<usize, DecodeError> {
    let mut after_last = input.iter().rev().take_while(|&&b| sextet(b).is_none());
    if written % 3 != 0 && opts.padding_required && !after_last.any(|&b| b == b'=') {
        return Err(DecodeError::MissingPadding);
    }
    Ok(written)
}

fn decode_groups(chars: &[u8], alphabet: Alphabet, output: &mut [MaybeUninit<u8>]) -> usize {
    if chars.is_empty() {
        return 0;
    }
    let result = decode_loose(chars, alphabet, output);
    if result.error == ErrorCode::Success {
        return result.count;
    }
    // Cannot happen (all are characters); if it does, decode by the definition.
    scalar::decode(chars, lenient(alphabet), output).unwrap_or(0)
}

/// OTP's mime_decode of characters: a partial last group unpadded, unused bits dropped.
fn lenient(alphabet: Alphabet) -> DecodeOptions {
    DecodeOptions {
        alphabet,
        padding_required: false,
        ..DecodeOptions::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::as_output;
    use crate::test_support::{reference_wrapped, Rng};

    /// Decodes 2, 3 or 4 alphabet characters, dropping the unused bits as
    /// OTP does; returns the bytes written. The oracle's own.
    fn decode_partial(chars: &[u8], output: &mut [u8]) -> usize {
        let bits = chars.iter().fold(0u32, |acc, &c| {
            (acc << 6) | u32::from(sextet(c).unwrap_or(0))
        }) << (6 * (4 - chars.len()));
        let written = chars.len() - 1;
        for (i, byte) in output[..written].iter_mut().enumerate() {
            *byte = (bits >> (16 - 8 * i)) as u8;
        }
        written
    }

    /// The oracle's own alphabet, written independently of `scalar`.
    fn alphabet_table(alphabet: Alphabet) -> [bool; 256] {
        let mut table = [false; 256];
        for byte in 0..=255u8 {
            table[byte as usize] = match byte {
                b'+' | b'/' => alphabet != Alphabet::UrlSafe,
                b'-' | b'_' => alphabet != Alphabet::Standard,
                _ => byte.is_ascii_alphanumeric(),
            };
        }
        table
    }

    /// OTP 26's mime_decode, transcribed clause by clause: the oracle.
    fn otp(input: &[u8], opts: DecodeOptions) -> Result<Vec<u8>, DecodeError> {
        let table = alphabet_table(opts.alphabet);
        let mut out = Vec::new();
        let mut group: Vec<u8> = Vec::new();
        let mut after_eq = false;
        let mut last = 0;
        for (at, &byte) in input.iter().enumerate() {
            if table[usize::from(byte)] {
                // A character after `=`: the `=` was invalid and is skipped.
                after_eq = false;
                group.push(byte);
                last = at;
                if group.len() == 4 {
                    let mut three = [0u8; 3];
                    decode_partial(&group, &mut three);
                    out.extend_from_slice(&three);
                    group.clear();
                }
            } else if byte == b'=' && group.len() >= 2 {
                after_eq = true;
            }
        }
        match group.len() {
            0 => Ok(out),
            1 => Err(DecodeError::Incomplete(last)),
            _ if !after_eq && opts.padding_required => Err(DecodeError::MissingPadding),
            n => {
                let mut bytes = [0u8; 3];
                decode_partial(&group, &mut bytes);
                out.extend_from_slice(&bytes[..n - 1]);
                Ok(out)
            }
        }
    }

    fn options(alphabet: Alphabet, padding_required: bool) -> DecodeOptions {
        DecodeOptions {
            alphabet,
            padding_required,
            ..DecodeOptions::DEFAULT
        }
    }

    fn one_shot(input: &[u8], opts: DecodeOptions) -> Result<Vec<u8>, DecodeError> {
        sliced(input, opts, usize::MAX)
    }

    fn sliced(input: &[u8], opts: DecodeOptions, slice: usize) -> Result<Vec<u8>, DecodeError> {
        let mut job = MimeJob::new(input, opts);
        let mut out = vec![0u8; job.buffer(input).unwrap().size()];
        job.run_to_end(input, as_output(&mut out), slice)
            .map(|n| out[..n].to_vec())
    }

    /// OTP's result for `input`, once one shot and slices of `slice` bytes
    /// are found to give it too.
    fn agrees_with_otp(
        input: &[u8],
        opts: DecodeOptions,
        slice: usize,
        round: usize,
    ) -> Result<Vec<u8>, DecodeError> {
        let want = otp(input, opts);
        let context = format!("round {round} slice {slice} {input:?} {opts:?}");
        assert_eq!(one_shot(input, opts), want, "{context}");
        assert_eq!(sliced(input, opts, slice), want, "{context}");
        want
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn otp_examples() {
        let strict = DecodeOptions::DEFAULT;
        let loose = options(Alphabet::Standard, false);
        assert_eq!(one_shot(b"QQ==", strict), Ok(b"A".to_vec()));
        assert_eq!(one_shot(b"QQ=", strict), Ok(b"A".to_vec()));
        assert_eq!(one_shot(b"QQ", strict), Err(DecodeError::MissingPadding));
        assert_eq!(one_shot(b"QQ", loose), Ok(b"A".to_vec()));
        assert_eq!(one_shot(b"Q", loose), Err(DecodeError::Incomplete(0)));
        assert_eq!(one_shot(b"Q==!", strict), Err(DecodeError::Incomplete(0)));
        assert_eq!(one_shot(b"QUJD=", strict), Ok(b"ABC".to_vec()));
        assert_eq!(one_shot(b"Q=Q=", strict), Ok(b"A".to_vec()));
        assert_eq!(one_shot(b"QUI=x", strict), Ok(b"AB1".to_vec()));
        assert_eq!(one_shot(b"QQ==QQ==", strict), Ok(vec![65, 4, 16]));
        assert_eq!(one_shot(b"QQ=Q", strict), Err(DecodeError::MissingPadding));
        assert_eq!(one_shot(b"", strict), Ok(vec![]));
        assert_eq!(one_shot(b"!!==\x00", strict), Ok(vec![]));
        assert_eq!(one_shot(b"Q\x0cU\x0bJ\xffD", strict), Ok(b"ABC".to_vec()));
        assert_eq!(one_shot(b"-_-_", strict), Ok(vec![]));
        assert_eq!(
            one_shot(b"-_+/-_", options(Alphabet::UrlSafe, true)),
            Ok(vec![0xfb, 0xff, 0xbf])
        );
    }

    #[test]
    fn decode_partial_drops_unused_bits() {
        let mut out = [0u8; 3];
        assert_eq!(decode_partial(b"QR", &mut out), 1);
        assert_eq!(out[0], b'A');
        assert_eq!(decode_partial(b"QUJ", &mut out), 2);
        assert_eq!(&out[..2], b"AB");
        assert_eq!(decode_partial(b"QUJD", &mut out), 3);
        assert_eq!(&out, b"ABC");
    }

    /// Random inputs full of garbage, `=` and whitespace: one shot and every
    /// slicing equal the transcription of OTP's code.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn equals_otp_rules_on_garbage() {
        let seed = 0x5EED_0011;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let noise = b"=\r\n \t\x0c\x0b\x00\xff!.-_+/";
        for round in 0..6_000 {
            let len = (rng.next() % 300) as usize;
            let density = 1 + rng.next() % 8;
            let input: Vec<u8> = (0..len)
                .map(|_| {
                    let r = rng.next();
                    if r % density == 0 {
                        noise[(r >> 8) as usize % noise.len()]
                    } else {
                        b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                            [(r >> 16) as usize % 62]
                    }
                })
                .collect();
            for alphabet in [Alphabet::Standard, Alphabet::UrlSafe, Alphabet::Any] {
                for padding_required in [true, false] {
                    let opts = options(alphabet, padding_required);
                    let slice = 1 + (rng.next() % 40) as usize;
                    let _ = agrees_with_otp(&input, opts, slice, round);
                }
            }
        }
    }

    /// MIME and PEM bodies, clean or with one stray byte anywhere, so that a
    /// sliced job starts on the line path or simdutf and switches mid-way.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn clean_bodies_and_late_garbage() {
        use crate::options::{EncodeOptions, LineBreak, Lines};
        let seed = 0x5EED_0013;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        for round in 0..2_000 {
            // MIME's lines, and PEM's (which take the line path too).
            let lines = if rng.next() % 2 == 0 {
                Lines {
                    length: 76,
                    line_break: LineBreak::CrLf,
                }
            } else {
                Lines {
                    length: 64,
                    line_break: LineBreak::Lf,
                }
            };
            let len = (rng.next() % 3000) as usize;
            let plain = rng.bytes(len);
            let padding = rng.next() % 4 != 0;
            let opts = EncodeOptions {
                padding,
                ..EncodeOptions::DEFAULT
            };
            let mut text = reference_wrapped(&plain, opts, lines);
            if rng.next() % 2 == 0 && !text.is_empty() {
                let at = (rng.next() as usize) % text.len();
                text.insert(at, b"=!\x00.="[(rng.next() % 5) as usize]);
            }
            for padding_required in [true, false] {
                let opts = options(Alphabet::Standard, padding_required);
                let slice = 4 + (rng.next() % 300) as usize;
                let decoded = agrees_with_otp(&text, opts, slice, round);
                if padding || !padding_required {
                    assert!(decoded.is_ok(), "round {round}");
                }
            }
        }
    }

    /// Blocks: inputs longer than one filter block, garbage at the start so
    /// that the filter does the whole decode.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn long_inputs_cross_filter_blocks() {
        let seed = 0x5EED_0012;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        for len in [BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 5] {
            let mut input: Vec<u8> = rng
                .bytes(len)
                .into_iter()
                .map(|b| b"QUJD\n=!x"[usize::from(b) % 8])
                .collect();
            input[0] = b'!';
            for padding_required in [true, false] {
                let opts = options(Alphabet::Standard, padding_required);
                let want = otp(&input, opts);
                assert_eq!(one_shot(&input, opts), want, "len {len}");
                assert_eq!(sliced(&input, opts, 7_000), want, "len {len}");
            }
        }
    }
}
