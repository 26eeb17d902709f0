//! Base32 (RFC 4648 sections 6 and 7) with Elixir `Base`'s options, decoded by
//! `data-encoding` (no SIMD Base32 crate has run-time dispatch), unpadded and,
//! as `Base`, blind to unused bits; encoded by our table loop, two characters
//! a lookup (`bench/README.md`, "Base32"). Padding and every error are ours:
//!
//! - in groups before the last, a byte outside the alphabet is
//!   `InvalidCharacter` at its offset, a `=` `BadPadding` at its own (text
//!   after padding);
//! - in the last group (1 to 8 characters), a byte outside the alphabet and
//!   `=` is `InvalidCharacter` at its offset; padding must follow 2, 4, 5 or 7 characters
//!   and fill the group to 8, else `BadPadding` at the first `=`; unpadded,
//!   1, 3 or 6 characters (no data encodes to them) are `Incomplete` at the
//!   group's first byte, and fewer than 8 `MissingPadding` if required.

use crate::budget::Work;
use crate::encode::step_len;
use crate::error::DecodeError;
use crate::job::{Buffer, Job, Step};
use crate::options::{Base32Alphabet, Base32DecodeOptions, Base32EncodeOptions, LetterCase};
use crate::output::{put, zeroed};
use data_encoding::{Encoding, Specification};
use std::mem::MaybeUninit;
use std::sync::OnceLock;

const STANDARD: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const HEX: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUV";

/// Input bytes of a whole group and the characters they encode to.
const GROUP_BYTES: usize = 5;
const GROUP_CHARS: usize = 8;

/// Characters of a final group without padding, by its bytes (0 to 4).
const PARTIAL_CHARS: [usize; 5] = [0, 2, 4, 5, 7];

/// data-encoding's decoder for an alphabet and case (mixed: lower case translated).
fn encoding(alphabet: Base32Alphabet, case: LetterCase) -> &'static Encoding {
    static ENCODINGS: [[OnceLock<Encoding>; 3]; 2] = [
        [OnceLock::new(), OnceLock::new(), OnceLock::new()],
        [OnceLock::new(), OnceLock::new(), OnceLock::new()],
    ];
    let symbols = [STANDARD, HEX][alphabet as usize];
    ENCODINGS[alphabet as usize][case as usize].get_or_init(|| {
        let mut spec = Specification::new();
        spec.check_trailing_bits = false;
        if case == LetterCase::Lower {
            spec.symbols.push_str(&symbols.to_ascii_lowercase());
        } else {
            spec.symbols.push_str(symbols);
        }
        if case == LetterCase::Mixed {
            let letters: String = symbols.chars().filter(char::is_ascii_uppercase).collect();
            spec.translate.from.push_str(&letters.to_ascii_lowercase());
            spec.translate.to.push_str(&letters);
        }
        spec.encoding()
            .expect("a 32-symbol alphabet without padding is a valid specification")
    })
}

/// The value of `byte` in the alphabet and case, if it has one.
#[inline]
pub fn symbol(byte: u8, alphabet: Base32Alphabet, case: LetterCase) -> Option<u8> {
    let upper = match byte {
        b'a'..=b'z' if case != LetterCase::Upper => byte - 32,
        b'A'..=b'Z' if case != LetterCase::Lower => byte,
        b'a'..=b'z' | b'A'..=b'Z' => return None,
        _ => byte,
    };
    match (alphabet, upper) {
        (Base32Alphabet::Standard, b'A'..=b'Z') => Some(upper - b'A'),
        (Base32Alphabet::Standard, b'2'..=b'7') => Some(upper - b'2' + 26),
        (Base32Alphabet::Hex, b'0'..=b'9') => Some(upper - b'0'),
        (Base32Alphabet::Hex, b'A'..=b'V') => Some(upper - b'A' + 10),
        _ => None,
    }
}

/// The length of the encoding of `len` bytes, or `None` if it overflows.
pub fn encoded_len(len: usize, padding: bool) -> Option<usize> {
    let whole = (len / GROUP_BYTES).checked_mul(GROUP_CHARS)?;
    let rest = len % GROUP_BYTES;
    match rest {
        0 => Some(whole),
        _ if padding => whole.checked_add(GROUP_CHARS),
        _ => whole.checked_add(PARTIAL_CHARS[rest]),
    }
}

/// Two characters per 10-bit value (the first in the low byte): 4 lookups a group.
type PairTable = [u16; 1024];

const fn pair_table(symbols: &str, lower: bool) -> PairTable {
    let symbols = symbols.as_bytes();
    let mut table = [0u16; 1024];
    let mut i = 0;
    while i < 1024 {
        let (mut first, mut second) = (symbols[i >> 5], symbols[i & 31]);
        if lower {
            (first, second) = (first.to_ascii_lowercase(), second.to_ascii_lowercase());
        }
        table[i] = u16::from_le_bytes([first, second]);
        i += 1;
    }
    table
}

static PAIRS: [[PairTable; 2]; 2] = [
    [pair_table(STANDARD, false), pair_table(STANDARD, true)],
    [pair_table(HEX, false), pair_table(HEX, true)],
];

fn pairs(opts: Base32EncodeOptions) -> &'static PairTable {
    &PAIRS[opts.alphabet as usize][usize::from(opts.case == LetterCase::Lower)]
}

fn group_chars(pairs: &PairTable, group: &[u8]) -> [u8; GROUP_CHARS] {
    let bits = u64::from_be_bytes([0, 0, 0, group[0], group[1], group[2], group[3], group[4]]);
    let pair = |shift: u32| u64::from(pairs[(bits >> shift) as usize & 1023]);
    let word = pair(30) | pair(20) << 16 | pair(10) << 32 | pair(0) << 48;
    word.to_le_bytes()
}

/// Whole groups: `input` a multiple of 5 bytes, `output` of 8 characters.
fn encode_groups(pairs: &PairTable, input: &[u8], output: &mut [MaybeUninit<u8>]) {
    let groups = input.chunks_exact(GROUP_BYTES);
    for (group, chars) in groups.zip(output.chunks_exact_mut(GROUP_CHARS)) {
        put(chars, &group_chars(pairs, group));
    }
}

/// Encodes `input` unpadded into `output` (`encoded_len(input.len(), false)`
/// bytes): groups three at a time, so the CPU overlaps their lookups.
fn encode_unpadded(pairs: &PairTable, input: &[u8], output: &mut [MaybeUninit<u8>]) {
    const BLOCK: usize = 3;
    let whole = input.len() / GROUP_BYTES;
    let blocks = whole / BLOCK * BLOCK;
    let (blocks_in, input) = input.split_at(blocks * GROUP_BYTES);
    let (blocks_out, output) = output.split_at_mut(blocks * GROUP_CHARS);
    let block_inputs = blocks_in.chunks_exact(BLOCK * GROUP_BYTES);
    for (block, chars) in block_inputs.zip(blocks_out.chunks_exact_mut(BLOCK * GROUP_CHARS)) {
        encode_groups(pairs, block, chars);
    }
    let singles = (whole - blocks) * GROUP_BYTES;
    let (singles_in, rest) = input.split_at(singles);
    let (singles_out, rest_chars) = output.split_at_mut(singles / GROUP_BYTES * GROUP_CHARS);
    encode_groups(pairs, singles_in, singles_out);
    if !rest.is_empty() {
        let mut group = [0u8; GROUP_BYTES];
        group[..rest.len()].copy_from_slice(rest);
        put(rest_chars, &group_chars(pairs, &group)[..rest_chars.len()]);
    }
}

/// Encode in steps of whole groups: only the last writes a partial one and padding.
#[derive(Clone, Debug)]
pub struct Base32EncodeJob {
    opts: Base32EncodeOptions,
    in_pos: usize,
    out_pos: usize,
}

impl Base32EncodeJob {
    pub fn new(opts: Base32EncodeOptions) -> Base32EncodeJob {
        Base32EncodeJob {
            opts,
            in_pos: 0,
            out_pos: 0,
        }
    }
}

impl Job for Base32EncodeJob {
    fn buffer(&self, input: &[u8]) -> Option<Buffer> {
        encoded_len(input.len(), self.opts.padding).map(Buffer::Data)
    }

    fn step(&mut self, input: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step {
        let take = step_len(input.len() - self.in_pos, max_input, GROUP_BYTES);
        let piece = &input[self.in_pos..self.in_pos + take];
        let len = encoded_len(take, false).expect("a piece's text fits the output");
        encode_unpadded(
            pairs(self.opts),
            piece,
            &mut output[self.out_pos..self.out_pos + len],
        );
        self.in_pos += take;
        self.out_pos += len;
        if self.in_pos < input.len() {
            return Step::More;
        }
        // The padding: `output` is exactly as long as the padded text.
        output[self.out_pos..].fill(MaybeUninit::new(b'='));
        Step::Done(output.len())
    }

    fn work(&self) -> Work {
        Work::Base32Encode
    }
}

/// Decode, or validation (`validating`): whole groups in steps, then the last.
#[derive(Clone, Debug)]
pub struct Base32DecodeJob {
    opts: Base32DecodeOptions,
    in_pos: usize,
    /// Where the last group begins: every group before it is whole.
    last_group: usize,
    /// The bytes the input decodes to, if it is valid.
    bound: usize,
    validate: bool,
}

/// The scratch a validation writes each step into.
pub const VALIDATION_SCRATCH: usize = 10 * 1024;

impl Base32DecodeJob {
    pub fn new(input: &[u8], opts: Base32DecodeOptions) -> Base32DecodeJob {
        let last_group = input.len().saturating_sub(1) / GROUP_CHARS * GROUP_CHARS;
        let tail = &input[last_group..];
        let characters = tail.iter().position(|&b| b == b'=').unwrap_or(tail.len());
        let tail_bytes = characters * 5 / 8;
        Base32DecodeJob {
            opts,
            in_pos: 0,
            last_group,
            bound: last_group / GROUP_CHARS * GROUP_BYTES + tail_bytes,
            validate: false,
        }
    }

    /// A decode giving only the verdict, `Done(0)` if valid, into scratch of at least 5 bytes.
    pub fn validating(input: &[u8], opts: Base32DecodeOptions) -> Base32DecodeJob {
        Base32DecodeJob {
            validate: true,
            ..Base32DecodeJob::new(input, opts)
        }
    }

    pub fn validates(&self) -> bool {
        self.validate
    }

    /// This step's `len` bytes of output, zeroed: data-encoding takes initialised memory only.
    fn target<'o>(&self, output: &'o mut [MaybeUninit<u8>], len: usize) -> &'o mut [u8] {
        if self.validate {
            zeroed(&mut output[..len])
        } else {
            let at = self.in_pos / GROUP_CHARS * GROUP_BYTES;
            zeroed(&mut output[at..at + len])
        }
    }

    /// Decodes whole groups from `in_pos` to `end`, as many a call as the target holds.
    fn groups(
        &mut self,
        input: &[u8],
        output: &mut [MaybeUninit<u8>],
        end: usize,
    ) -> Result<(), DecodeError> {
        let encoding = encoding(self.opts.alphabet, self.opts.case);
        let most = if self.validate {
            (output.len() / GROUP_BYTES).max(1) * GROUP_CHARS
        } else {
            usize::MAX
        };
        while self.in_pos < end {
            let piece_end = end.min(self.in_pos.saturating_add(most));
            let piece = &input[self.in_pos..piece_end];
            let len = piece.len() / GROUP_CHARS * GROUP_BYTES;
            if encoding
                .decode_mut(piece, self.target(output, len))
                .is_err()
            {
                let error =
                    locate_in_groups(piece, self.opts).unwrap_or(DecodeError::InvalidCharacter(0));
                return Err(error.shifted(self.in_pos));
            }
            self.in_pos = piece_end;
        }
        Ok(())
    }

    /// The last group, by the rules above.
    fn last(&mut self, input: &[u8], output: &mut [MaybeUninit<u8>]) -> Result<usize, DecodeError> {
        let group = &input[self.last_group..];
        let characters =
            check_last_group(group, self.opts).map_err(|e| e.shifted(self.last_group))?;
        let len = characters * 5 / 8;
        let encoding = encoding(self.opts.alphabet, self.opts.case);
        if encoding
            .decode_mut(&group[..characters], self.target(output, len))
            .is_err()
        {
            // The characters were checked: data-encoding agrees on them.
            return Err(DecodeError::InvalidCharacter(self.last_group));
        }
        self.in_pos = input.len();
        Ok(if self.validate { 0 } else { self.bound })
    }
}

impl Job for Base32DecodeJob {
    fn buffer(&self, _input: &[u8]) -> Option<Buffer> {
        Some(match self.validate {
            true => Buffer::Scratch(VALIDATION_SCRATCH),
            false => Buffer::Data(self.bound),
        })
    }

    fn step(&mut self, input: &[u8], output: &mut [MaybeUninit<u8>], max_input: usize) -> Step {
        let budget = (max_input / GROUP_CHARS).max(1) * GROUP_CHARS;
        let end = self.last_group.min(self.in_pos.saturating_add(budget));
        if let Err(error) = self.groups(input, output, end) {
            return Step::Failed(error);
        }
        if self.in_pos < self.last_group {
            return Step::More;
        }
        self.last(input, output).into()
    }

    fn work(&self) -> Work {
        Work::Base32Decode
    }
}

/// The first error in groups before the last (`=` there: text after padding).
fn locate_in_groups(groups: &[u8], opts: Base32DecodeOptions) -> Option<DecodeError> {
    let at = groups
        .iter()
        .position(|&b| symbol(b, opts.alphabet, opts.case).is_none())?;
    Some(match groups[at] {
        b'=' => DecodeError::BadPadding(at),
        _ => DecodeError::InvalidCharacter(at),
    })
}

/// The last group's characters before padding, or its first error (offset in the group).
fn check_last_group(group: &[u8], opts: Base32DecodeOptions) -> Result<usize, DecodeError> {
    if let Some(at) = group
        .iter()
        .position(|&b| b != b'=' && symbol(b, opts.alphabet, opts.case).is_none())
    {
        return Err(DecodeError::InvalidCharacter(at));
    }
    match group.iter().position(|&b| b == b'=') {
        Some(first) => {
            let padded = group.len() == GROUP_CHARS
                && group[first..].iter().all(|&b| b == b'=')
                && PARTIAL_CHARS[1..].contains(&first);
            if padded {
                Ok(first)
            } else {
                Err(DecodeError::BadPadding(first))
            }
        }
        None if group.len() == GROUP_CHARS || group.is_empty() => Ok(group.len()),
        None if !PARTIAL_CHARS.contains(&group.len()) => Err(DecodeError::Incomplete(0)),
        None if opts.padding_required => Err(DecodeError::MissingPadding),
        None => Ok(group.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base32_reference::{base32_reference_decode, base32_reference_encode};
    use crate::output::as_output;
    use crate::test_support::Rng;

    fn encode(data: &[u8], opts: Base32EncodeOptions, slice: usize) -> Vec<u8> {
        let mut job = Base32EncodeJob::new(opts);
        let mut out = vec![0u8; job.buffer(data).unwrap().size()];
        assert_eq!(
            job.run_to_end(data, as_output(&mut out), slice),
            Ok(out.len())
        );
        out
    }

    fn decode(
        text: &[u8],
        opts: Base32DecodeOptions,
        slice: usize,
    ) -> Result<Vec<u8>, DecodeError> {
        let mut job = Base32DecodeJob::new(text, opts);
        let mut out = vec![0u8; job.buffer(text).unwrap().size()];
        let decoded = job
            .run_to_end(text, as_output(&mut out), slice)
            .map(|n| out[..n].to_vec());
        let mut scratch = [0u8; 7];
        let valid = Base32DecodeJob::validating(text, opts).run_to_end(
            text,
            as_output(&mut scratch),
            slice,
        );
        assert_eq!(
            valid.map(|_| ()),
            decoded.as_ref().map(|_| ()).map_err(|e| *e)
        );
        decoded
    }

    fn encode_options() -> Vec<Base32EncodeOptions> {
        Base32DecodeOptions::all()
            .into_iter()
            .filter(|o| o.case != LetterCase::Mixed)
            .map(|o| Base32EncodeOptions {
                alphabet: o.alphabet,
                case: o.case,
                padding: o.padding_required,
            })
            .collect()
    }

    #[test]
    fn rfc_4648_vectors() {
        let vectors: [(&[u8], &[u8], &[u8]); 7] = [
            (b"", b"", b""),
            (b"f", b"MY======", b"CO======"),
            (b"fo", b"MZXQ====", b"CPNG===="),
            (b"foo", b"MZXW6===", b"CPNMU==="),
            (b"foob", b"MZXW6YQ=", b"CPNMUOG="),
            (b"fooba", b"MZXW6YTB", b"CPNMUOJ1"),
            (b"foobar", b"MZXW6YTBOI======", b"CPNMUOJ1E8======"),
        ];
        for (data, standard, hex) in vectors {
            let opts = Base32EncodeOptions::DEFAULT;
            assert_eq!(encode(data, opts, usize::MAX), standard);
            let hex_opts = Base32EncodeOptions {
                alphabet: Base32Alphabet::Hex,
                ..opts
            };
            assert_eq!(encode(data, hex_opts, 5), hex);
            let decode_opts = Base32DecodeOptions::DEFAULT;
            assert_eq!(decode(standard, decode_opts, 8), Ok(data.to_vec()));
        }
    }

    #[test]
    fn reasons_and_offsets() {
        use DecodeError::*;
        let required = Base32DecodeOptions::DEFAULT;
        let optional = Base32DecodeOptions {
            padding_required: false,
            ..required
        };
        type Case<'a> = (&'a [u8], Base32DecodeOptions, Result<Vec<u8>, DecodeError>);
        let cases: [Case; 13] = [
            (b"MY", required, Err(MissingPadding)),
            (b"MY", optional, Ok(b"f".to_vec())),
            (b"MY======", optional, Ok(b"f".to_vec())),
            (b"MZX", optional, Err(Incomplete(0))),
            (b"MZXW6YTBM", optional, Err(Incomplete(8))),
            (b"MY==", optional, Err(BadPadding(2))),
            (b"MY======MY======", required, Err(BadPadding(2))),
            (b"MZX=====", required, Err(BadPadding(3))),
            (b"MY=A====", required, Err(BadPadding(2))),
            (b"MY1=====", required, Err(InvalidCharacter(2))),
            (b"my======", required, Err(InvalidCharacter(0))),
            (b"========", required, Err(BadPadding(0))),
            // Unused bits are not checked, as in Elixir's `Base`.
            (b"MZ======", required, Ok(b"f".to_vec())),
        ];
        for (text, opts, expected) in cases {
            assert_eq!(decode(text, opts, usize::MAX), expected, "{text:?}");
        }
        let mixed = Base32DecodeOptions {
            case: LetterCase::Mixed,
            ..required
        };
        assert_eq!(decode(b"mZxW6yTb", mixed, 8), Ok(b"fooba".to_vec()));
        let hex_mixed = Base32DecodeOptions {
            alphabet: Base32Alphabet::Hex,
            ..mixed
        };
        assert_eq!(decode(b"cpnmuoj1", hex_mixed, 8), Ok(b"fooba".to_vec()));
        assert_eq!(decode(b"cpnmuow1", hex_mixed, 8), Err(InvalidCharacter(6)));
    }

    #[test]
    #[cfg_attr(miri, ignore = "thousands of inputs: hours under Miri")]
    fn every_length_option_and_slice_against_the_reference() {
        let mut rng = Rng(0x5EED_0032);
        for len in 0..200 {
            let data = rng.bytes(len);
            for opts in encode_options() {
                let text = base32_reference_encode(&data, opts);
                for slice in [1, 5, 8, 13, 64, usize::MAX] {
                    assert_eq!(encode(&data, opts, slice), text, "len {len} {opts:?}");
                }
                for decode_opts in Base32DecodeOptions::all() {
                    for slice in [1, 16, usize::MAX] {
                        assert_eq!(
                            decode(&text, decode_opts, slice),
                            base32_reference_decode(&text, decode_opts),
                            "len {len} {decode_opts:?} slice {slice}"
                        );
                    }
                }
            }
        }
    }

    /// Every byte value at every position of texts of up to 24 characters
    /// (three groups, padded and not), under every option set.
    #[test]
    #[cfg_attr(miri, ignore = "thousands of inputs: hours under Miri")]
    fn every_byte_everywhere() {
        let mut rng = Rng(0x5EED_0033);
        for len in 0..15 {
            for padding in [true, false] {
                let opts = Base32EncodeOptions {
                    padding,
                    ..Base32EncodeOptions::DEFAULT
                };
                let mut text = base32_reference_encode(&rng.bytes(len), opts);
                for at in 0..text.len() {
                    let original = text[at];
                    for byte in 0..=255u8 {
                        text[at] = byte;
                        for opts in Base32DecodeOptions::all() {
                            assert_eq!(
                                decode(&text, opts, [8, usize::MAX][byte as usize % 2]),
                                base32_reference_decode(&text, opts),
                                "{text:?} {opts:?}"
                            );
                        }
                    }
                    text[at] = original;
                }
            }
        }
    }

    /// Our encoder against data-encoding's: every length up to 200, and
    /// every byte value in every position of groups of 1 to 5 bytes, in
    /// every alphabet, case and padding.
    #[test]
    #[cfg_attr(miri, ignore = "thousands of inputs: hours under Miri")]
    fn encoder_agrees_with_data_encoding() {
        let mut rng = Rng(0x5EED_0035);
        for opts in encode_options() {
            let theirs = encoding(opts.alphabet, opts.case);
            let check = |data: &[u8]| {
                let mut want = theirs.encode(data).into_bytes();
                want.resize(encoded_len(data.len(), opts.padding).unwrap(), b'=');
                assert_eq!(encode(data, opts, usize::MAX), want, "{data:?} {opts:?}");
            };
            for len in 0..200 {
                check(&rng.bytes(len));
            }
            for len in 1..=GROUP_BYTES {
                let mut group = rng.bytes(len);
                for at in 0..len {
                    for byte in 0..=255u8 {
                        group[at] = byte;
                        check(&group);
                    }
                }
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "thousands of inputs: hours under Miri")]
    fn random_long_inputs() {
        let mut rng = Rng(0x5EED_0034);
        for _ in 0..10 {
            let len = (rng.next() % (1 << 19)) as usize;
            let data = rng.bytes(len);
            let opts = Base32EncodeOptions::DEFAULT;
            let text = base32_reference_encode(&data, opts);
            assert_eq!(encode(&data, opts, 65_536), text);
            let decode_opts = Base32DecodeOptions::DEFAULT;
            assert_eq!(decode(&text, decode_opts, 40_000), Ok(data));
            if text.len() > 16 {
                let mut bad = text.clone();
                let at = rng.next() as usize % (text.len() - 16);
                bad[at] = b'1';
                assert_eq!(
                    decode(&bad, decode_opts, 4096),
                    Err(DecodeError::InvalidCharacter(at))
                );
            }
        }
    }
}
