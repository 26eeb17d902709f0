//! Line-wrapped input (MIME, PEM) decoded without simdutf's whitespace path,
//! slow with a break in nearly every block (`bench/README.md`, "Kernels"): lines
//! of one length and break are gathered a block at a time into L1 scratch and
//! decoded as unbroken text. Only breaks where the shape puts them are dropped
//! (whitespace, which every decode mode that comes here skips: never with
//! `whitespace => reject`), and a block is kept only if the rest is whole
//! quanta, so the result is the general path's.

use crate::options::{Alphabet, LineBreak};
use crate::scratch::with_line_scratch;
use crate::simdutf::{decodes_whole, Window};
use std::mem::MaybeUninit;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineShape {
    length: usize,
    line_break: LineBreak,
}

/// Shorter inputs are left to the general path: a few lines gain little.
pub const MIN_INPUT: usize = 512;

/// MIME's and PEM's lengths, recognised by two loads at any input length.
const USUAL_LENGTHS: [usize; 2] = [76, 64];

/// Other lengths: a search for the first LF this far in, where its cost is noise.
pub const LONGEST_LINE: usize = 256;
const ANY_LENGTH_MIN_INPUT: usize = 64 * 1024;

/// `input`'s first line's shape, if usable: a multiple of 4 characters, then LF or CRLF.
pub fn shape_of(input: &[u8]) -> Option<LineShape> {
    if input.len() < MIN_INPUT {
        return None;
    }
    let usual = USUAL_LENGTHS
        .iter()
        .find_map(|&length| match input.get(length..length + 2)? {
            [b'\r', b'\n', ..] => Some((length, LineBreak::CrLf)),
            [b'\n', ..] => Some((length, LineBreak::Lf)),
            _ => None,
        });
    let (length, line_break) = match usual {
        Some(shape) => shape,
        None if input.len() < ANY_LENGTH_MIN_INPUT => return None,
        None => {
            let newline = memchr::memchr(b'\n', &input[..LONGEST_LINE + 2])?;
            match newline.checked_sub(1) {
                Some(cr) if input[cr] == b'\r' => (cr, LineBreak::CrLf),
                _ => (newline, LineBreak::Lf),
            }
        }
    };
    // An earlier break or a space is caught by gather and decodes_whole.
    (length >= 4 && length % 4 == 0).then_some(LineShape { length, line_break })
}

/// Decodes whole blocks of `shape` lines at the start of `input`, about
/// `max_input` bytes, into `output` (3 bytes per 4 characters, or at least
/// `BLOCK_OUTPUT`); stops at the last line, another shape, or the first block
/// that does not fit or decode whole (`consumed` 0 if that is the first).
pub fn decode_lines(
    input: &[u8],
    shape: LineShape,
    alphabet: Alphabet,
    output: &mut [MaybeUninit<u8>],
    max_input: usize,
) -> Window {
    let mut done = Window {
        consumed: 0,
        written: 0,
    };
    with_line_scratch(|chars| {
        while done.consumed < max_input {
            let rest = &input[done.consumed..];
            let (consumed, gathered) = gather(rest, shape, &mut chars[..BLOCK_CHARS]);
            let room = &mut output[done.written..];
            if consumed == 0 || !decodes_whole(&chars[..gathered], alphabet, room) {
                break;
            }
            done.consumed += consumed;
            done.written += gathered / 4 * 3;
        }
    });
    done
}

/// Characters gathered per block: stays in L1.
const BLOCK_CHARS: usize = 16 * 1024;
pub const BLOCK_OUTPUT: usize = BLOCK_CHARS / 4 * 3;

/// Copies the characters of the `shape` lines that fit `chars`: (input taken, copied).
fn gather(input: &[u8], shape: LineShape, chars: &mut [u8]) -> (usize, usize) {
    use LineBreak::{CrLf, Lf};
    // A constant shape makes each line's copy a few moves, not a memcpy call.
    match (shape.length, shape.line_break) {
        (76, CrLf) => gather_lines(input, 76, CrLf, chars),
        (76, Lf) => gather_lines(input, 76, Lf, chars),
        (64, CrLf) => gather_lines(input, 64, CrLf, chars),
        (64, Lf) => gather_lines(input, 64, Lf, chars),
        (length, line_break) => gather_lines(input, length, line_break, chars),
    }
}

fn gather_lines(
    input: &[u8],
    length: usize,
    line_break: LineBreak,
    chars: &mut [u8],
) -> (usize, usize) {
    let line_break = line_break.bytes();
    let stride = length + line_break.len();
    // The input's last line (no byte after its break) is the general path's.
    let available = input.len().saturating_sub(1) / stride;
    let mut lines = 0;
    for (line, slot) in input
        .chunks_exact(stride)
        .zip(chars.chunks_exact_mut(length))
        .take(available)
    {
        if line[length..] != *line_break {
            break;
        }
        slot.copy_from_slice(&line[..length]);
        lines += 1;
    }
    (lines * stride, lines * length)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{DecodeOptions, EncodeOptions};
    use crate::output::as_output;
    use crate::test_support::{
        decode_sliced, decode_to_vec, reference_encode, scalar_decode_to_vec, Rng, EDIT_BYTES,
    };

    /// `plain` encoded and wrapped every `length` characters with `line_break`.
    fn wrapped(plain: &[u8], opts: EncodeOptions, length: usize, line_break: &[u8]) -> Vec<u8> {
        let text = reference_encode(plain, opts);
        text.chunks(length).collect::<Vec<_>>().join(line_break)
    }

    /// `length` characters, `line_break`, and more characters up to `total`.
    fn lines(length: usize, line_break: &[u8], total: usize) -> Vec<u8> {
        let mut text = vec![b'A'; length];
        text.extend_from_slice(line_break);
        text.resize(total.max(MIN_INPUT), b'A');
        text
    }

    #[test]
    fn shapes() {
        let shape = |text: &[u8]| shape_of(text).map(|s| (s.length, s.line_break));
        let big = ANY_LENGTH_MIN_INPUT;
        assert_eq!(shape(&lines(76, b"\r\n", 0)), Some((76, LineBreak::CrLf)));
        assert_eq!(shape(&lines(76, b"\n", 0)), Some((76, LineBreak::Lf)));
        assert_eq!(shape(&lines(64, b"\n", 0)), Some((64, LineBreak::Lf)));
        assert_eq!(shape(&lines(64, b"\r\n", 0)), Some((64, LineBreak::CrLf)));
        assert_eq!(
            shape(&lines(72, b"\r\n", 4096)),
            None,
            "not looked for in short input"
        );
        assert_eq!(shape(&lines(72, b"\r\n", big)), Some((72, LineBreak::CrLf)));
        assert_eq!(shape(&lines(4, b"\n", big)), Some((4, LineBreak::Lf)));
        assert_eq!(shape(&lines(256, b"\n", big)), Some((256, LineBreak::Lf)));
        assert_eq!(
            shape(&lines(260, b"\n", big)),
            None,
            "beyond the first 258 bytes"
        );
        assert_eq!(shape(&lines(73, b"\n", big)), None, "not whole quanta");
        assert_eq!(shape(&lines(0, b"\r\n", big)), None, "an empty line");
        assert_eq!(shape(&vec![b'A'; big]), None, "no break");
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn stops_before_the_last_line_and_at_a_line_of_another_shape() {
        let opts = EncodeOptions::DEFAULT;
        let text = wrapped(&[7u8; 570], opts, 76, b"\r\n"); // 760 characters, 10 lines
        let shape = shape_of(&text).unwrap();
        let mut out = vec![0u8; 570];
        let done = decode_lines(
            &text,
            shape,
            Alphabet::Standard,
            as_output(&mut out),
            usize::MAX,
        );
        assert_eq!((done.consumed, done.written), (9 * 78, 9 * 57));
        let mut broken = text.clone();
        broken[3 * 78 + 10] = b' '; // a space in line 4: a block is all or nothing
        let done = decode_lines(
            &broken,
            shape,
            Alphabet::Standard,
            as_output(&mut out),
            usize::MAX,
        );
        assert_eq!(done.consumed, 0);
        let mut short = text.clone();
        short.remove(3 * 78 + 10); // line 4 one character short
        let done = decode_lines(
            &short,
            shape,
            Alphabet::Standard,
            as_output(&mut out),
            usize::MAX,
        );
        assert_eq!(done.consumed, 3 * 78);
    }

    /// Wrapped text of many shapes, mutated (bytes inserted, replaced,
    /// removed): the decode job, which takes the line path when it can, gives
    /// exactly what the scalar decoder (the definition) gives, under every
    /// option set.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn line_path_agrees_with_the_scalar_decoder() {
        let seed = 0x5EED_0006;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let option_sets = DecodeOptions::all();
        let shapes: [(usize, &[u8]); 10] = [
            (76, b"\r\n"),
            (76, b"\n"),
            (64, b"\n"),
            (64, b"\r\n"),
            (4, b"\n"),
            (8, b"\r\n"),
            (72, b"\r\n"),
            (75, b"\r\n"),
            (256, b"\n"),
            (260, b"\n"),
        ];
        let mut taken = 0;
        for round in 0..2_000 {
            let len = match rng.next() % 8 {
                0 => ANY_LENGTH_MIN_INPUT + rng.next() as usize % 4_000,
                _ => rng.next() as usize % 3_000,
            };
            let plain = rng.bytes(len);
            let (length, line_break) = shapes[rng.next() as usize % shapes.len()];
            let encode_opts = rng.encode_options();
            let mut text = wrapped(&plain, encode_opts, length, line_break);
            if rng.next() % 4 == 0 {
                text.extend_from_slice(line_break);
            }
            for _ in 0..rng.next() % 3 {
                rng.edit(&mut text, EDIT_BYTES);
            }
            if let Some(shape) = shape_of(&text) {
                let mut out = vec![0u8; text.len()];
                let alphabet = encode_opts.alphabet;
                taken += usize::from(
                    decode_lines(&text, shape, alphabet, as_output(&mut out), 1).consumed > 0,
                );
            }
            for &opts in &option_sets {
                assert_eq!(
                    decode_to_vec(&text, opts),
                    scalar_decode_to_vec(&text, opts),
                    "round {round} {opts:?} input {:?}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
        assert!(taken > 500, "the line path was taken {taken} times");
    }

    /// A sliced decode job on wrapped, mutated text, at several slice sizes,
    /// gives the one-shot result: the line path stops and starts at step
    /// boundaries, and hands over to the general path mid-way.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn sliced_decode_agrees_on_wrapped_input() {
        let seed = 0x5EED_0007;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let option_sets = DecodeOptions::all();
        for round in 0..400 {
            let len = 400 + rng.next() as usize % 40_000;
            let plain = rng.bytes(len);
            let (length, line_break): (usize, &[u8]) = match rng.next() % 3 {
                0 => (76, b"\r\n"),
                1 => (64, b"\n"),
                _ => (72, b"\r\n"),
            };
            let mut text = wrapped(&plain, EncodeOptions::DEFAULT, length, line_break);
            for _ in 0..rng.next() % 3 {
                let at = rng.next() as usize % text.len();
                text[at] = b"= \n!A"[rng.next() as usize % 5];
            }
            let opts = option_sets[rng.next() as usize % option_sets.len()];
            let want = decode_to_vec(&text, opts);
            for slice in [1, 1000, 20_000] {
                let got = decode_sliced(&text, opts, slice);
                assert_eq!(got, want, "round {round} slice {slice} {opts:?}");
            }
        }
    }
}
