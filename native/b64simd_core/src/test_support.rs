//! Shared by the unit tests: a deterministic generator, so every failure
//! reproduces from the seed the test prints (xorshift64*), and the one-shot
//! decode the sliced and validating paths are held to.

use crate::codec::{decode_into, maximal_decoded_len};
use crate::options::{Alphabet, DecodeOptions, EncodeOptions};
use crate::scalar::{self, DecodeError};

/// `codec::decode_into` of the whole input, as a vector.
pub fn decode_to_vec(input: &[u8], opts: DecodeOptions) -> Result<Vec<u8>, DecodeError> {
    let mut out = vec![0u8; maximal_decoded_len(input.len())];
    decode_into(input, opts, &mut out).map(|n| out[..n].to_vec())
}

/// `scalar::decode` (the definition) of the whole input, as a vector.
pub fn scalar_decode_to_vec(input: &[u8], opts: DecodeOptions) -> Result<Vec<u8>, DecodeError> {
    let mut out = vec![0u8; maximal_decoded_len(input.len())];
    scalar::decode(input, opts, &mut out).map(|n| out[..n].to_vec())
}

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }

    /// Either alphabet, padded three times in four.
    pub fn encode_options(&mut self) -> EncodeOptions {
        EncodeOptions {
            alphabet: if self.next().is_multiple_of(2) {
                Alphabet::Standard
            } else {
                Alphabet::UrlSafe
            },
            padding: !self.next().is_multiple_of(4),
        }
    }

    /// One edit at a random place: a byte of `specials` inserted or put in
    /// place of one, or a byte removed.
    pub fn edit(&mut self, text: &mut Vec<u8>, specials: &[u8]) {
        let special = specials[self.next() as usize % specials.len()];
        let at = self.next() as usize % (text.len() + 1);
        match self.next() % 3 {
            0 => text.insert(at, special),
            1 if at < text.len() => text[at] = special,
            _ if at < text.len() => {
                text.remove(at);
            }
            _ => {}
        }
    }
}
