//! The scalar decoder, the path of record: the executable definition of what
//! b64simd accepts and of every error reason and offset. It runs when
//! simdutf reports an error (to find our reason and offset) and in tests as
//! the kernels' oracle. It reads once, left to right; the first problem wins:
//!
//! 1. While scanning:
//!    - an alphabet character after `=` is `bad_padding` at that group's
//!      first `=` (as in `QQ==QQ==`);
//!    - `=` after 0 or 1 characters of a quantum, or one `=` too many, is
//!      `bad_padding` at that `=`;
//!    - whitespace (`\t \n \r`, space) is skipped, or with `whitespace =>
//!      reject` is `invalid_character` at it;
//!    - any other byte (`\f` and `\v` too, as in OTP) is `invalid_character`
//!      at it.
//! 2. At the end:
//!    - one dangling character is `incomplete` at it;
//!    - short padding (`QQ=`) is `bad_padding` at its first `=`;
//!    - an unpadded final quantum is `missing_padding` if padding is required;
//!    - with `canonical => true`, non-zero unused bits in the last character
//!      are `non_canonical` at it (RFC 4648 section 3.5).

use crate::error::DecodeError;
use crate::options::DecodeOptions;
use crate::rules::{class_table_for, pads_allowed, INVALID, PAD, WHITESPACE};
use std::mem::MaybeUninit;

/// The state between two pieces, so long input is read in slices (decode's error path).
#[derive(Clone, Debug)]
pub struct Decoder {
    opts: DecodeOptions,
    quantum: u32,
    significant: usize,
    last_significant: usize,
    first_pad: Option<usize>,
    pads: usize,
    written: usize,
}

impl Decoder {
    /// A decoder writing from `written` bytes into the output, at a quantum boundary.
    pub fn new(opts: DecodeOptions, written: usize) -> Decoder {
        Decoder {
            opts,
            quantum: 0,
            significant: 0,
            last_significant: 0,
            first_pad: None,
            pads: 0,
            written,
        }
    }

    /// Reads `piece`, at `offset` in the input, writing whole quanta into `output` (all of it).
    pub fn feed(
        &mut self,
        piece: &[u8],
        offset: usize,
        output: &mut [MaybeUninit<u8>],
    ) -> Result<(), DecodeError> {
        let table = class_table_for(self.opts.alphabet);
        for (index, &byte) in piece.iter().enumerate() {
            let at = offset + index;
            match table[byte as usize] {
                PAD => {
                    self.first_pad.get_or_insert(at);
                    self.pads += 1;
                    if self.pads > pads_allowed(self.significant) {
                        return Err(DecodeError::BadPadding(at));
                    }
                }
                WHITESPACE if !self.opts.reject_whitespace => {}
                WHITESPACE | INVALID => return Err(DecodeError::InvalidCharacter(at)),
                value => {
                    if let Some(pad_offset) = self.first_pad {
                        return Err(DecodeError::BadPadding(pad_offset));
                    }
                    self.quantum = (self.quantum << 6) | u32::from(value);
                    self.significant += 1;
                    self.last_significant = at;
                    if self.significant % 4 == 0 {
                        let w = self.written;
                        output[w] = MaybeUninit::new((self.quantum >> 16) as u8);
                        output[w + 1] = MaybeUninit::new((self.quantum >> 8) as u8);
                        output[w + 2] = MaybeUninit::new(self.quantum as u8);
                        self.written += 3;
                        self.quantum = 0;
                    }
                }
            }
        }
        Ok(())
    }

    /// Writes the next piece from the output's start again: `is_valid` reuses
    /// a small scratch buffer, not an output as big as the decoded data.
    pub fn discard_output(&mut self) {
        self.written = 0;
    }

    /// Applies the end rules, writes the last partial quantum; returns the total written.
    pub fn finish(self, output: &mut [MaybeUninit<u8>]) -> Result<usize, DecodeError> {
        let remainder = self.significant % 4;
        match self.first_pad {
            Some(pad_offset) if self.pads + remainder != 4 => {
                return Err(DecodeError::BadPadding(pad_offset))
            }
            Some(_) => {}
            None if remainder == 1 => return Err(DecodeError::Incomplete(self.last_significant)),
            None if remainder != 0 && self.opts.padding_required => {
                return Err(DecodeError::MissingPadding)
            }
            None => {}
        }
        let (quantum, mut written) = (self.quantum, self.written);
        let unused_bits_set = match remainder {
            2 => {
                output[written] = MaybeUninit::new((quantum >> 4) as u8);
                written += 1;
                quantum & 0xF != 0
            }
            3 => {
                output[written] = MaybeUninit::new((quantum >> 10) as u8);
                output[written + 1] = MaybeUninit::new((quantum >> 2) as u8);
                written += 2;
                quantum & 0x3 != 0
            }
            _ => false,
        };
        if self.opts.canonical && unused_bits_set {
            return Err(DecodeError::NonCanonical(self.last_significant));
        }
        Ok(written)
    }
}

/// Decodes `input` into `output`, which must hold at least
/// `lengths::maximal_decoded_len(input.len())` bytes; returns the bytes written.
pub fn decode(
    input: &[u8],
    opts: DecodeOptions,
    output: &mut [MaybeUninit<u8>],
) -> Result<usize, DecodeError> {
    let mut decoder = Decoder::new(opts, 0);
    decoder.feed(input, 0, output)?;
    decoder.finish(output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Alphabet;
    use crate::output::as_output;
    use DecodeError::*;

    fn run(input: &[u8], opts: DecodeOptions) -> Result<Vec<u8>, DecodeError> {
        let mut out = vec![0u8; input.len()];
        decode(input, opts, as_output(&mut out)).map(|n| out[..n].to_vec())
    }

    const STRICT: DecodeOptions = DecodeOptions::DEFAULT;
    const LOOSE: DecodeOptions = DecodeOptions {
        padding_required: false,
        ..DecodeOptions::DEFAULT
    };

    #[test]
    fn accepts_what_otp_accepts() {
        assert_eq!(run(b"", STRICT), Ok(vec![]));
        assert_eq!(run(b"QQ==", STRICT), Ok(b"A".to_vec()));
        assert_eq!(run(b"QUI=", STRICT), Ok(b"AB".to_vec()));
        assert_eq!(run(b"QUJD", STRICT), Ok(b"ABC".to_vec()));
        assert_eq!(run(b" Q Q = = ", STRICT), Ok(b"A".to_vec()));
        assert_eq!(
            run(b"QR==", STRICT),
            Ok(b"A".to_vec()),
            "non-canonical accepted by default"
        );
        assert_eq!(run(b"QUJ=", STRICT), Ok(b"AB".to_vec()));
    }

    #[test]
    fn every_reason_with_its_offset() {
        assert_eq!(run(b"QQ", STRICT), Err(MissingPadding));
        assert_eq!(run(b"QQ", LOOSE), Ok(b"A".to_vec()));
        assert_eq!(run(b"QQ=", STRICT), Err(BadPadding(2)));
        assert_eq!(run(b"QQ=", LOOSE), Err(BadPadding(2)));
        assert_eq!(run(b"QQ==QQ==", STRICT), Err(BadPadding(2)));
        assert_eq!(run(b"QQ===", STRICT), Err(BadPadding(4)));
        assert_eq!(run(b"====", STRICT), Err(BadPadding(0)));
        assert_eq!(run(b"Q===", STRICT), Err(BadPadding(1)));
        assert_eq!(run(b"QUJD=", STRICT), Err(BadPadding(4)));
        assert_eq!(run(b"Q", STRICT), Err(Incomplete(0)));
        assert_eq!(run(b"QUJDR \n", STRICT), Err(Incomplete(4)));
        assert_eq!(run(b"QQ\x0c==", STRICT), Err(InvalidCharacter(2)));
        assert_eq!(run(b"QQ\x0b==", STRICT), Err(InvalidCharacter(2)));
        assert_eq!(run(b"-_==", STRICT), Err(InvalidCharacter(0)));
        assert_eq!(
            run(
                b"QQ ==",
                DecodeOptions {
                    reject_whitespace: true,
                    ..STRICT
                }
            ),
            Err(InvalidCharacter(2))
        );
        assert_eq!(
            run(
                b"QR==",
                DecodeOptions {
                    canonical: true,
                    ..STRICT
                }
            ),
            Err(NonCanonical(1))
        );
        assert_eq!(
            run(
                b"QUJ=",
                DecodeOptions {
                    canonical: true,
                    ..STRICT
                }
            ),
            Err(NonCanonical(2))
        );
    }

    #[test]
    fn alphabets() {
        let url = DecodeOptions {
            alphabet: Alphabet::UrlSafe,
            ..STRICT
        };
        let any = DecodeOptions {
            alphabet: Alphabet::Any,
            ..STRICT
        };
        assert_eq!(run(b"-_-_", url), Ok(vec![0xfb, 0xff, 0xbf]));
        assert_eq!(run(b"+/+/", url), Err(InvalidCharacter(0)));
        assert_eq!(run(b"-/+_", any), Ok(vec![0xfb, 0xff, 0xbf]));
    }
}
