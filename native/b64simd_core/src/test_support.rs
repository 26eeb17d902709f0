//! Shared by the unit tests: a deterministic generator, so every failure
//! reproduces from the seed the test prints (xorshift64*), the reference
//! encodings, and the decodes the other paths are held to.

use crate::avx2::{calls_with_rounds, Rounds};
use crate::decode::DecodeJob;
use crate::encoder::encode_piece;
use crate::error::DecodeError;
use crate::job::Job;
use crate::lengths::{encoded_len, maximal_decoded_len};
use crate::options::{Alphabet, DecodeOptions, EncodeOptions, Lines};
use crate::output::as_output;
use crate::scalar;

/// RFC 4648 section 10's test vectors: data and its standard encoding.
pub const RFC4648_VECTORS: [(&[u8], &[u8]); 7] = [
    (b"", b""),
    (b"f", b"Zg=="),
    (b"fo", b"Zm8="),
    (b"foo", b"Zm9v"),
    (b"foob", b"Zm9vYg=="),
    (b"fooba", b"Zm9vYmE="),
    (b"foobar", b"Zm9vYmFy"),
];

/// `plain` encoded (the active encoder, held to RFC 4648's vectors in
/// `simdutf` and `avx2`).
pub fn encode_to_vec(plain: &[u8], opts: EncodeOptions) -> Vec<u8> {
    let mut out = vec![0u8; encoded_len(plain.len(), opts.padding).unwrap()];
    assert_eq!(
        encode_piece(plain, opts, as_output(&mut out), plain.len()),
        out.len()
    );
    out
}

/// The obvious definition of wrapping: encode, cut into lines, join them.
pub fn wrapped_to_vec(plain: &[u8], opts: EncodeOptions, lines: Lines) -> Vec<u8> {
    encode_to_vec(plain, opts)
        .chunks(lines.length)
        .collect::<Vec<_>>()
        .join(lines.line_break.bytes())
}

/// A decode job over the whole input in steps of `slice` bytes, as a vector.
pub fn decode_sliced(
    input: &[u8],
    opts: DecodeOptions,
    slice: usize,
) -> Result<Vec<u8>, DecodeError> {
    let mut job = DecodeJob::new(input, opts);
    let mut out = vec![0u8; job.buffer(input).unwrap().size()];
    job.run_to_end(input, as_output(&mut out), slice)
        .map(|n| out[..n].to_vec())
}

/// A one-shot decode (the job in one step), as a vector.
pub fn decode_to_vec(input: &[u8], opts: DecodeOptions) -> Result<Vec<u8>, DecodeError> {
    decode_sliced(input, opts, usize::MAX)
}

/// `scalar::decode` (the definition) of the whole input, as a vector.
pub fn scalar_decode_to_vec(input: &[u8], opts: DecodeOptions) -> Result<Vec<u8>, DecodeError> {
    let mut out = vec![0u8; maximal_decoded_len(input.len())];
    scalar::decode(input, opts, as_output(&mut out)).map(|n| out[..n].to_vec())
}

/// What edits put into Base64 text to reach every path and reason: padding,
/// the whitespace OTP skips, the `\f` and `\v` it rejects, both alphabets'
/// own characters, NUL, 0xFF, a byte of neither, and letters.
pub const EDIT_BYTES: &[u8] = b"=\t\n\r \x0c\x0b-_+/\x00\xff.QA";

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
            alphabet: if self.next() % 2 == 0 {
                Alphabet::Standard
            } else {
                Alphabet::UrlSafe
            },
            padding: self.next() % 4 != 0,
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

/// Whether the upper halves of the vector registers are in use
/// (XINUSE bit 2, `xgetbv(1)`), or `None` where the CPU cannot say.
#[cfg(target_arch = "x86_64")]
pub fn upper_state_in_use() -> Option<bool> {
    use std::arch::x86_64::{__cpuid_count, _xgetbv};
    if !std::arch::is_x86_feature_detected!("xsave") {
        return None;
    }
    // SAFETY: cpuid is on every x86-64 CPU; leaf 0xD sub-leaf 1 bit 2 says
    // whether xgetbv takes ECX = 1, and xsave (checked above) is what
    // `_xgetbv` needs.
    unsafe {
        if __cpuid_count(0xD, 1).eax & 4 == 0 {
            return None;
        }
        Some(_xgetbv(1) & 4 != 0)
    }
}

/// Runs `test` of our AVX2 code, and fails unless it reached these
/// `rounds`; prints why it cannot run where it cannot.
pub fn on_avx2(name: &str, rounds: Rounds, test: impl FnOnce()) {
    if cfg!(miri) {
        println!(
            "skipped {name}: Miri cannot run SIMD intrinsics \
             (AddressSanitizer runs this code: make sanitize)"
        );
        return;
    }
    if !crate::avx2::available() {
        println!("skipped {name}: this CPU has no AVX2");
        return;
    }
    let before = calls_with_rounds(rounds);
    test();
    assert!(
        calls_with_rounds(rounds) > before,
        "{name} never reached the AVX2 {rounds:?} rounds"
    );
}
