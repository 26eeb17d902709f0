//! Line-wrapped encode (MIME, PEM), a break between lines only: a line encoder
//! (`dispatch::line_encoder`) writes whole lines, else blocks of whole groups are
//! encoded into L1 scratch and copied out a line at a time, the column the only state.

use super::step_len;
use crate::budget::Work;
use crate::dispatch::{self, encode_piece, Encoder};
use crate::job::{Buffer, Job, Step};
use crate::lengths::{encoded_len, wrapped_len};
use crate::options::{EncodeOptions, LineBreak, Lines};
use crate::output::{as_output, put};
use crate::scratch::with_scratch;
use std::mem::MaybeUninit;

/// Input bytes per block: its text stays in L1 until copied out.
const BLOCK_INPUT: usize = 3 * 4096;

#[derive(Clone, Debug)]
pub struct WrapJob {
    opts: EncodeOptions,
    lines: Lines,
    in_pos: usize,
    out_pos: usize,
    column: usize,
    /// Whether a line encoder may do the work: not from mid-line.
    on_lines: bool,
}

/// The largest unit for a line encoder: one must fit a slice (odd lengths need 4 lines).
const MAX_UNIT: usize = 64 * 1024;

/// The line encoder for a call of `call_len` bytes, if one takes these lines, and its unit.
fn whole_lines(lines: Lines, call_len: usize) -> Option<(Encoder, usize)> {
    let encoder = dispatch::line_encoder(lines, call_len)?;
    // The least common multiple of the line length and 4.
    let chars_per_unit = match lines.length % 4 {
        0 => lines.length,
        2 => lines.length.checked_mul(2)?,
        _ => lines.length.checked_mul(4)?,
    };
    Some((encoder, chars_per_unit / 4 * 3)).filter(|&(_, unit)| unit <= MAX_UNIT)
}

impl WrapJob {
    pub fn new(opts: EncodeOptions, lines: Lines) -> WrapJob {
        WrapJob {
            opts,
            lines,
            in_pos: 0,
            out_pos: 0,
            column: 0,
            on_lines: true,
        }
    }

    /// A job continuing a wrapped text whose last line holds `column` (at most a line).
    pub fn after(opts: EncodeOptions, lines: Lines, column: usize) -> WrapJob {
        let mut job = WrapJob::new(opts, lines);
        job.column = column;
        job.on_lines = column == 0 || column == lines.length;
        job
    }

    /// `after`, `group` (carry and first new bytes) encoded first, then on from `data_pos`.
    pub fn after_group(
        opts: EncodeOptions,
        lines: Lines,
        column: usize,
        group: &[u8],
        data_pos: usize,
        output: &mut [MaybeUninit<u8>],
    ) -> WrapJob {
        let mut job = WrapJob::after(opts, lines, column);
        job.on_lines = false; // the group leaves the line part-filled
        job.encode_blocks(group, output);
        job.in_pos = data_pos;
        job
    }

    /// `piece` is whole units, or the end; a break separates it from the last piece's.
    fn encode_lines(&mut self, encoder: Encoder, piece: &[u8], output: &mut [MaybeUninit<u8>]) {
        if piece.is_empty() {
            return;
        }
        // Between two steps, or first after a full line (`after`).
        if self.out_pos > 0 || self.column == self.lines.length {
            let line_break = self.lines.line_break.bytes();
            put(
                &mut output[self.out_pos..self.out_pos + line_break.len()],
                line_break,
            );
            self.out_pos += line_break.len();
            self.column = 0;
        }
        let rest = &mut output[self.out_pos..];
        self.out_pos += dispatch::encode_lines_with(encoder, piece, self.opts, self.lines, rest);
    }

    /// `piece` is whole 3-byte groups, or the end of the input.
    fn encode_blocks(&mut self, piece: &[u8], output: &mut [MaybeUninit<u8>]) {
        with_scratch(|block| {
            for group in piece.chunks(BLOCK_INPUT) {
                let len = encoded_len(group.len(), self.opts.padding)
                    .expect("a block's encoding is a few hundred bytes");
                let text = &mut block[..len];
                encode_piece(group, self.opts, as_output(text), group.len());
                self.copy_wrapped(text, output);
            }
        })
    }

    /// Copies `text` out a line at a time; a break only before a character.
    fn copy_wrapped(&mut self, mut text: &[u8], output: &mut [MaybeUninit<u8>]) {
        let length = self.lines.length;
        let line_break = self.lines.line_break.bytes();
        while !text.is_empty() {
            if self.column == length {
                put(
                    &mut output[self.out_pos..self.out_pos + line_break.len()],
                    line_break,
                );
                self.out_pos += line_break.len();
                self.column = 0;
            }
            if self.column == 0 && text.len() > length {
                let lines = (text.len() - 1) / length;
                let stride = length + line_break.len();
                let out = &mut output[self.out_pos..self.out_pos + lines * stride];
                copy_lines(&text[..lines * length], out, self.lines);
                self.out_pos += lines * stride;
                text = &text[lines * length..];
            }
            let n = text.len().min(length - self.column);
            put(&mut output[self.out_pos..self.out_pos + n], &text[..n]);
            self.out_pos += n;
            self.column += n;
            text = &text[n..];
        }
    }
}

impl Job for WrapJob {
    /// The exact length, for a job made by `new`.
    fn buffer(&self, input: &[u8]) -> Option<Buffer> {
        wrapped_len(input.len(), self.opts.padding, self.lines, 0).map(Buffer::Data)
    }

    fn step(&mut self, input: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step {
        let whole_lines = whole_lines(self.lines, input.len()).filter(|_| self.on_lines);
        let unit = whole_lines.map_or(3, |(_, unit)| unit);
        let take = step_len(input.len() - self.in_pos, max_input, unit);
        let piece = &input[self.in_pos..self.in_pos + take];
        match whole_lines {
            Some((encoder, _)) => self.encode_lines(encoder, piece, output),
            None => self.encode_blocks(piece, output),
        }
        self.in_pos += take;
        Step::after(self.in_pos, input.len(), self.out_pos)
    }

    fn work(&self) -> Work {
        Work::EncodeLines
    }
}

/// Copies whole lines, each then a break; MIME's and PEM's sizes as constants avoid `memcpy`.
fn copy_lines(text: &[u8], out: &mut [MaybeUninit<u8>], lines: Lines) {
    match (lines.length, lines.line_break) {
        (76, LineBreak::CrLf) => copy_fixed_lines::<76, 2>(text, out, b"\r\n"),
        (76, LineBreak::Lf) => copy_fixed_lines::<76, 1>(text, out, b"\n"),
        (64, LineBreak::CrLf) => copy_fixed_lines::<64, 2>(text, out, b"\r\n"),
        (64, LineBreak::Lf) => copy_fixed_lines::<64, 1>(text, out, b"\n"),
        (length, line_break) => {
            let line_break = line_break.bytes();
            let stride = length + line_break.len();
            for (line, dst) in text.chunks_exact(length).zip(out.chunks_exact_mut(stride)) {
                put(&mut dst[..length], line);
                put(&mut dst[length..], line_break);
            }
        }
    }
}

fn copy_fixed_lines<const L: usize, const B: usize>(
    text: &[u8],
    out: &mut [MaybeUninit<u8>],
    line_break: &[u8; B],
) {
    for (line, dst) in text.chunks_exact(L).zip(out.chunks_exact_mut(L + B)) {
        put(&mut dst[..L], line);
        put(&mut dst[L..], line_break);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::Job;
    use crate::options::Alphabet;
    use crate::test_support::Rng;

    fn lines(length: usize, line_break: LineBreak) -> Lines {
        Lines { length, line_break }
    }

    /// The obvious definition, of the reference encoder (not the encoder
    /// under test): encode, then cut into lines and join them.
    fn reference(input: &[u8], opts: EncodeOptions, lines: Lines) -> Vec<u8> {
        crate::test_support::reference_wrapped(input, opts, lines)
    }

    fn wrapped(input: &[u8], opts: EncodeOptions, lines: Lines, slice: usize) -> Vec<u8> {
        let mut out = vec![0u8; wrapped_len(input.len(), opts.padding, lines, 0).unwrap()];
        let mut job = WrapJob::new(opts, lines);
        let written = job.run_to_end(input, as_output(&mut out), slice);
        assert_eq!(written, Ok(out.len()));
        out
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn pem_and_mime_shapes() {
        let lf = lines(4, LineBreak::Lf);
        assert_eq!(
            wrapped(b"foobar", EncodeOptions::DEFAULT, lf, 99),
            b"Zm9v\nYmFy"
        );
        assert_eq!(wrapped(b"", EncodeOptions::DEFAULT, lf, 99), b"");
        let crlf = lines(3, LineBreak::CrLf);
        assert_eq!(
            wrapped(b"foob", EncodeOptions::DEFAULT, crlf, 99),
            b"Zm9\r\nvYg\r\n=="
        );
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn equals_reference_for_every_length_and_slicing() {
        let seed = 0x5EED_0010;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let plain = rng.bytes(40_000);
        for length in [1, 2, 3, 4, 5, 63, 64, 75, 76, 77, 1000] {
            for line_break in [LineBreak::CrLf, LineBreak::Lf] {
                let lines = Lines { length, line_break };
                for alphabet in [Alphabet::Standard, Alphabet::UrlSafe] {
                    for padding in [true, false] {
                        let opts = EncodeOptions { alphabet, padding };
                        for len in (0..300).chain([12_287, 12_288, 12_289, 40_000]) {
                            let input = &plain[..len];
                            let want = reference(input, opts, lines);
                            assert_eq!(
                                wrapped(input, opts, lines, usize::MAX),
                                want,
                                "len {len} {lines:?} {opts:?}"
                            );
                            if len % 37 == 0 || len > 300 {
                                for slice in [1, 3, 7, 100, 12_289] {
                                    assert_eq!(
                                        wrapped(input, opts, lines, slice),
                                        want,
                                        "len {len} slice {slice} {lines:?} {opts:?}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// A big call (`BIG_CALL` bytes and a few more), whose lines may take
    /// another line encoder than a smaller call's (`dispatch::line_encoder`),
    /// in one step and in steps of 1 MiB: MIME's and PEM's lines, either
    /// break, against the reference.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn big_calls_equal_the_reference() {
        let seed = 0x5EED_0017;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let input = rng.bytes(dispatch::BIG_CALL + 5);
        for length in [76, 64] {
            for line_break in [LineBreak::CrLf, LineBreak::Lf] {
                let lines = Lines { length, line_break };
                let opts = rng.encode_options();
                let want = reference(&input, opts, lines);
                for slice in [usize::MAX, 1 << 20] {
                    let got = wrapped(&input, opts, lines, slice);
                    assert!(got == want, "slice {slice} {lines:?} {opts:?}");
                }
            }
        }
    }

    /// What the NIF does for a stream's piece: `carry ++ data` encoded
    /// after a line holding `column` characters.
    fn after(
        carry: &[u8],
        data: &[u8],
        opts: EncodeOptions,
        lines: Lines,
        column: usize,
        slice: usize,
    ) -> Vec<u8> {
        let len = wrapped_len(carry.len() + data.len(), opts.padding, lines, column).unwrap();
        let mut out = vec![0u8; len];
        let mut job = if carry.is_empty() {
            WrapJob::after(opts, lines, column)
        } else {
            let taken = (3 - carry.len()).min(data.len());
            let group = [carry, &data[..taken]].concat();
            WrapJob::after_group(opts, lines, column, &group, taken, as_output(&mut out))
        };
        let written = job.run_to_end(data, as_output(&mut out), slice);
        assert_eq!(written, Ok(len));
        out
    }

    /// A stream's pieces, each encoded after the last as `b64simd_stream`
    /// does (whole 3-byte groups, the rest carried, the column kept), give
    /// the one-shot output for every line shape and many cuttings.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn pieces_after_pieces_equal_the_whole() {
        let seed = 0x5EED_0016;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        for round in 0..3_000 {
            let length = [1, 2, 3, 4, 5, 7, 63, 64, 76, 77, 1000][rng.next() as usize % 11];
            let line_break = [LineBreak::CrLf, LineBreak::Lf][rng.next() as usize % 2];
            let lines = Lines { length, line_break };
            let opts = rng.encode_options();
            let len = rng.next() as usize % 3_000;
            let input = rng.bytes(len);
            let slice = [1, 7, 100, usize::MAX][rng.next() as usize % 4];
            let (mut out, mut column, mut carry) = (Vec::new(), 0, Vec::new());
            let mut at = 0;
            while at < input.len() {
                let end = input.len().min(at + 1 + rng.next() as usize % 700);
                let piece = &input[at..end];
                at = end;
                let whole = (carry.len() + piece.len()) / 3 * 3;
                if whole == 0 {
                    carry.extend_from_slice(piece);
                    continue;
                }
                let taken = whole - carry.len();
                out.extend(after(&carry, &piece[..taken], opts, lines, column, slice));
                column = (column + whole / 3 * 4 - 1) % length + 1;
                carry = piece[taken..].to_vec();
            }
            if !carry.is_empty() {
                out.extend(after(&carry, &[], opts, lines, column, slice));
            }
            assert_eq!(
                out,
                reference(&input, opts, lines),
                "round {round} {lines:?} {opts:?}"
            );
        }
    }
}
