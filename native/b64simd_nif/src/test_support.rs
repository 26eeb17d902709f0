//! Shared by the unit tests: a deterministic generator, so every failure
//! reproduces from the seed the test prints (xorshift64*), and the one-shot
//! decode the sliced and validating paths are held to.

use crate::codec::{decode_into, maximal_decoded_len};
use crate::options::DecodeOptions;
use crate::scalar::DecodeError;

/// `codec::decode_into` of the whole input, as a vector.
pub fn decode_to_vec(input: &[u8], opts: DecodeOptions) -> Result<Vec<u8>, DecodeError> {
    let mut out = vec![0u8; maximal_decoded_len(input.len())];
    decode_into(input, opts, &mut out).map(|n| out[..n].to_vec())
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
}
