//! Our Base64 decoder of short text for x86-64 CPUs with AVX2: whole quanta
//! of alphabet characters, 32 or 16 at a time. simdutf's haswell decoder
//! spends most of a short call in its setup and byte-at-a-time tail, which
//! these rounds lack, so `decode::short` takes them up to the lengths where
//! they measured faster (`avx2_rule` there; `bench/README.md`, "Small calls").
//!
//! The method is Wojciech Muła's, as aklomp/base64's AVX2 codec runs it: a
//! character's high and low nibbles each look up a bit mask, and it is in the
//! alphabet when the two share no bit; its high nibble (and whether it is
//! `/`) looks up what to add to make its 6-bit value; two multiply-adds pack
//! each four values into three bytes, and a shuffle and a permute pack a
//! round's 24 together. The urlsafe alphabet turns `-` and `_` into `+` and
//! `/` first, and rejects `+` and `/`; `any` turns them and rejects no more.
//!
//! It returns what the scalar decoder returns for the same quanta, or gives
//! up (`None`) and leaves them to the later stages.

use crate::options::Alphabet;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;
use std::mem::MaybeUninit;

/// Decodes `input[..input.len() / 16 * 16]` (the rest is the caller's) into
/// the start of `output` if every byte there is in `alphabet`: the bytes
/// written, 3 per 4 characters; `None` if not (what it wrote is then junk).
/// Panics if `output` is shorter, or on a CPU without AVX2 (`avx2::available`).
#[inline]
pub fn decode_units(
    input: &[u8],
    alphabet: Alphabet,
    output: &mut [MaybeUninit<u8>],
) -> Option<usize> {
    let units = input.len() / 16 * 16;
    assert!(output.len() >= units / 4 * 3, "room for the units' bytes");
    assert!(
        crate::avx2::available(),
        "the AVX2 decoder on a CPU without AVX2"
    );
    // SAFETY: AVX2 and the output's room, checked above, and whole units of
    // 16: all `rounds` needs.
    let valid = unsafe { rounds(&input[..units], alphabet, output) };
    #[cfg(any(test, feature = "testing"))]
    crate::reached::count_rounds(crate::reached::Rounds::Decode, units);
    valid.then_some(units / 4 * 3)
}

/// # Safety
/// Never called: `avx2::available` is false off x86-64.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn rounds(_input: &[u8], _alphabet: Alphabet, _output: &mut [MaybeUninit<u8>]) -> bool {
    unreachable!("`avx2::available` is false off x86-64")
}

/// Decodes `input` (a multiple of 16 characters) into `output`, 32 characters
/// a round and 16 in a last half round; whether all were in the alphabet (it
/// stops at the first round that holds another). A round stores 32 bytes, 24
/// its own, where the output has room, else 16 and 8; a half round 16, 12 its
/// own, or 8 and 4.
///
/// # Safety
/// The CPU must have AVX2, `input` be a multiple of 16 characters, and
/// `output` hold at least 3 bytes for every 4 of them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn rounds(input: &[u8], alphabet: Alphabet, output: &mut [MaybeUninit<u8>]) -> bool {
    debug_assert!(input.len() % 16 == 0 && output.len() >= input.len() / 4 * 3);
    // SAFETY: the CPU has AVX2 (this function's contract).
    let lookups = unsafe { Lookups::new(alphabet) };
    let room = output.len();
    let src = input.as_ptr();
    let dst = output.as_mut_ptr().cast::<u8>();
    let (mut read, mut written) = (0, 0);
    while read + 32 <= input.len() {
        // SAFETY: the CPU has AVX2 (this function's contract). The round
        // reads input[read..read + 32] (the loop's condition) and writes
        // output[written..written + 24] (written is read / 4 * 3, and the
        // contract), and the 8 bytes after only where the output has them.
        // The unaligned intrinsics take any address.
        let valid = unsafe {
            let (bytes, valid) = lookups.round(_mm256_loadu_si256(src.add(read).cast()));
            if written + 32 <= room {
                _mm256_storeu_si256(dst.add(written).cast(), bytes);
            } else {
                let (low, high) = (
                    _mm256_castsi256_si128(bytes),
                    _mm256_extracti128_si256::<1>(bytes),
                );
                _mm_storeu_si128(dst.add(written).cast(), low);
                _mm_storel_epi64(dst.add(written + 16).cast(), high);
            }
            valid
        };
        if !valid {
            return false;
        }
        read += 32;
        written += 24;
    }
    if read == input.len() {
        return true;
    }
    // SAFETY: the CPU has AVX2 (this function's contract). With the input a
    // multiple of 16 (the contract), the half round reads its last 16 bytes,
    // input[read..read + 16]; it writes output[written..][..12], within the
    // output by the contract, and the 4 bytes after only where it has them.
    unsafe {
        let (bytes, valid) = lookups.half_round(_mm_loadu_si128(src.add(read).cast()));
        if written + 16 <= room {
            _mm_storeu_si128(dst.add(written).cast(), bytes);
        } else {
            _mm_storel_epi64(dst.add(written).cast(), bytes);
            let last = _mm_cvtsi128_si32(_mm_srli_si128::<8>(bytes)).to_le_bytes();
            dst.add(written + 8).cast::<[u8; 4]>().write_unaligned(last);
        }
        valid
    }
}

#[cfg(target_arch = "x86_64")]
struct Lookups {
    alphabet: Alphabet,
    /// By low nibble and by high nibble: bit masks that share a bit for
    /// every byte outside the standard alphabet.
    low_masks: __m256i,
    high_masks: __m256i,
    /// By high nibble (less one for `/`): what to add to a character to make
    /// its 6-bit value.
    offsets: __m256i,
    /// Each 4 values' 3 bytes, then each lane's 12 bytes, together.
    pack_lanes: __m256i,
    pack_rounds: __m256i,
}

#[cfg(target_arch = "x86_64")]
impl Lookups {
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn new(alphabet: Alphabet) -> Lookups {
        // SAFETY: the CPU has AVX2 (this function's contract).
        unsafe {
            Lookups {
                alphabet,
                low_masks: _mm256_setr_epi8(
                    0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, //
                    0x11, 0x11, 0x13, 0x1A, 0x1B, 0x1B, 0x1B, 0x1A, //
                    0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, //
                    0x11, 0x11, 0x13, 0x1A, 0x1B, 0x1B, 0x1B, 0x1A,
                ),
                high_masks: _mm256_setr_epi8(
                    0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, //
                    0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, //
                    0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, //
                    0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10,
                ),
                // `/` (high nibble 2, less one) +16, `+` +19, digits +4,
                // `A`-`Z` -65, `a`-`z` -71.
                offsets: _mm256_setr_epi8(
                    0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0, //
                    0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0,
                ),
                pack_lanes: _mm256_setr_epi8(
                    2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1, //
                    2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,
                ),
                pack_rounds: _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7),
            }
        }
    }

    /// A round's 24 bytes (at the start of the register) from its 32
    /// characters, and whether all of them are in the alphabet.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn round(&self, chars: __m256i) -> (__m256i, bool) {
        // SAFETY: the CPU has AVX2 (this function's contract).
        unsafe {
            let (bytes, outside) = self.decode(chars);
            (bytes, _mm256_testz_si256(outside, outside) == 1)
        }
    }

    /// A half round's 12 bytes (at the start of the register) from its 16
    /// characters, and whether all of them are in the alphabet.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn half_round(&self, chars: __m128i) -> (__m128i, bool) {
        // SAFETY: the CPU has AVX2 (this function's contract).
        unsafe {
            // The high lane's zero bytes are outside the alphabet: only the
            // low lane's verdict counts.
            let (bytes, outside) = self.decode(_mm256_zextsi128_si256(chars));
            let outside = _mm256_castsi256_si128(outside);
            (
                _mm256_castsi256_si128(bytes),
                _mm_testz_si128(outside, outside) == 1,
            )
        }
    }

    /// The 24 bytes of 32 characters, and a register whose byte for each
    /// character outside the alphabet is not zero.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn decode(&self, chars: __m256i) -> (__m256i, __m256i) {
        // SAFETY: the CPU has AVX2 (this function's contract).
        unsafe {
            let (chars, rejected) = match self.alphabet {
                Alphabet::Standard => (chars, _mm256_setzero_si256()),
                Alphabet::UrlSafe => (
                    standard_signs(chars),
                    _mm256_or_si256(
                        _mm256_cmpeq_epi8(chars, _mm256_set1_epi8(b'+' as i8)),
                        _mm256_cmpeq_epi8(chars, _mm256_set1_epi8(b'/' as i8)),
                    ),
                ),
                Alphabet::Any => (standard_signs(chars), _mm256_setzero_si256()),
            };
            let nibble = _mm256_set1_epi8(0x0F);
            let high = _mm256_and_si256(_mm256_srli_epi32::<4>(chars), nibble);
            let low = _mm256_and_si256(chars, nibble);
            let outside = _mm256_and_si256(
                _mm256_shuffle_epi8(self.low_masks, low),
                _mm256_shuffle_epi8(self.high_masks, high),
            );
            let slash = _mm256_cmpeq_epi8(chars, _mm256_set1_epi8(b'/' as i8));
            let offsets = _mm256_shuffle_epi8(self.offsets, _mm256_add_epi8(slash, high));
            let values = _mm256_add_epi8(chars, offsets);
            // Each 16-bit word's two values as 12 bits, then each 32-bit
            // lane's two words as 24 bits (its low 3 bytes, big end first).
            let words = _mm256_maddubs_epi16(values, _mm256_set1_epi32(0x0140_0140));
            let groups = _mm256_madd_epi16(words, _mm256_set1_epi32(0x0001_1000));
            let bytes = _mm256_permutevar8x32_epi32(
                _mm256_shuffle_epi8(groups, self.pack_lanes),
                self.pack_rounds,
            );
            (bytes, _mm256_or_si256(outside, rejected))
        }
    }
}

/// The urlsafe signs `-` and `_` turned into the standard `+` and `/`.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn standard_signs(chars: __m256i) -> __m256i {
    // SAFETY: the CPU has AVX2 (this function's contract).
    unsafe {
        let dash = _mm256_and_si256(
            _mm256_cmpeq_epi8(chars, _mm256_set1_epi8(b'-' as i8)),
            _mm256_set1_epi8((b'-' ^ b'+') as i8),
        );
        let underscore = _mm256_and_si256(
            _mm256_cmpeq_epi8(chars, _mm256_set1_epi8(b'_' as i8)),
            _mm256_set1_epi8((b'_' ^ b'/') as i8),
        );
        _mm256_xor_si256(chars, _mm256_or_si256(dash, underscore))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{DecodeOptions, EncodeOptions};
    use crate::output::as_output;
    use crate::reached::Rounds;
    use crate::rules::{class_table_for, is_sextet_class};
    use crate::test_support::{on_avx2, reference_encode, scalar_decode_to_vec, Rng};

    const ALPHABETS: [Alphabet; 3] = [Alphabet::Standard, Alphabet::UrlSafe, Alphabet::Any];

    /// `len` characters of `alphabet` in whole quanta (both alphabets'
    /// signs, mixed, for `Any`).
    fn text_of(rng: &mut Rng, len: usize, alphabet: Alphabet) -> Vec<u8> {
        let encoded_alphabet = match alphabet {
            Alphabet::Any if rng.next() % 2 == 0 => Alphabet::UrlSafe,
            Alphabet::Any => Alphabet::Standard,
            alphabet => alphabet,
        };
        let opts = EncodeOptions {
            alphabet: encoded_alphabet,
            padding: false,
        };
        let mut text = reference_encode(&rng.bytes(len.div_ceil(4) * 3), opts);
        text.truncate(len);
        if alphabet == Alphabet::Any {
            for byte in text.iter_mut() {
                *byte = match (*byte, rng.next() % 2) {
                    (b'+', 0) => b'-',
                    (b'/', 0) => b'_',
                    (b'-', 0) => b'+',
                    (b'_', 0) => b'/',
                    (byte, _) => byte,
                };
            }
        }
        text
    }

    /// What the scalar decoder (the definition) makes of the whole units
    /// of `input`: their bytes, or `None` if one is outside the alphabet.
    fn scalar_units(input: &[u8], alphabet: Alphabet) -> Option<Vec<u8>> {
        let opts = DecodeOptions {
            alphabet,
            padding_required: false,
            reject_whitespace: true,
            canonical: false,
        };
        scalar_decode_to_vec(&input[..input.len() / 16 * 16], opts).ok()
    }

    fn units_to_vec(input: &[u8], alphabet: Alphabet) -> Option<Vec<u8>> {
        let mut out = vec![0u8; input.len() / 16 * 16 / 4 * 3];
        let written = decode_units(input, alphabet, as_output(&mut out))?;
        assert_eq!(written, out.len());
        Some(out)
    }

    /// Every byte value in every position of a round, a half round and
    /// the rounds after them, in each alphabet: decoded as the scalar
    /// decoder decodes it when it is in the alphabet, refused when not.
    #[test]
    fn every_byte_in_every_position() {
        on_avx2("every_byte_in_every_position", Rounds::Decode, || {
            let seed = 0x5EED_D001;
            println!("seed {seed:#x}");
            let mut rng = Rng(seed);
            for alphabet in ALPHABETS {
                let classes = class_table_for(alphabet);
                for len in [16, 32, 48, 80] {
                    let text = text_of(&mut rng, len, alphabet);
                    for at in 0..len {
                        for byte in 0..=255u8 {
                            let mut input = text.clone();
                            input[at] = byte;
                            let ours = units_to_vec(&input, alphabet);
                            let label = format!("{byte:#x} at {at} of {len} {alphabet:?}");
                            // The scalar decoder may read a `=` that ends
                            // the units as padding: these never end the text.
                            match is_sextet_class(classes[byte as usize]) {
                                true => {
                                    assert_eq!(ours, scalar_units(&input, alphabet), "{label}")
                                }
                                false => assert_eq!(ours, None, "{label}"),
                            }
                        }
                    }
                }
            }
        });
    }

    /// Every length 0..=1024 in each alphabet, at every input alignment
    /// 0..64 (the output's moving with it) and every output alignment (the
    /// input's moving), into an output exactly as long as the units decode
    /// to, whose neighbouring bytes must stay as they were.
    #[test]
    fn every_length_and_alignment() {
        on_avx2("every_length_and_alignment", Rounds::Decode, || {
            let seed = 0x5EED_D002;
            println!("seed {seed:#x}");
            let mut rng = Rng(seed);
            let mut source = vec![0u8; 1024 + 64];
            let mut out = vec![0u8; 1024 + 192];
            for alphabet in ALPHABETS {
                for len in 0..=1024 {
                    let text = text_of(&mut rng, len, alphabet);
                    let want = scalar_units(&text, alphabet).expect("alphabet characters only");
                    for a in 0..64 {
                        for (in_at, out_at) in [(a, (7 * a + len) % 64), ((5 * a + len) % 64, a)] {
                            source[in_at..in_at + len].copy_from_slice(&text);
                            let guard = rng.next() as u8;
                            out.fill(guard);
                            let target = &mut out[out_at..out_at + want.len()];
                            let input = &source[in_at..in_at + len];
                            let written = decode_units(input, alphabet, as_output(target));
                            let label = format!("len {len} at {in_at}/{out_at} {alphabet:?}");
                            assert_eq!(written, Some(want.len()), "{label}");
                            assert_eq!(target, &want[..], "{label}");
                            // A store reaches at most 32 bytes past where it
                            // starts: the 64 bytes on each side.
                            let after = out_at + want.len();
                            assert!(
                                out[..out_at]
                                    .iter()
                                    .chain(&out[after..after + 64])
                                    .all(|&b| b == guard),
                                "wrote outside the output: {label}"
                            );
                        }
                    }
                }
            }
        });
    }

    /// The rounds use the upper halves of the YMM registers; the compiler
    /// clears them on the way out (`vzeroupper`), or every SSE instruction
    /// after the call would run slower (`simdutf.rs`, `clear_upper_state`).
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn leaves_the_upper_state_clear() {
        use crate::test_support::{upper_state_in_use, upper_state_still_clear};
        on_avx2("leaves_the_upper_state_clear", Rounds::Decode, || {
            // SAFETY: the CPU has AVX2, so AVX's `vzeroupper`.
            unsafe { std::arch::x86_64::_mm256_zeroupper() };
            let before = upper_state_in_use();
            let mut out = [0u8; 72];
            let written = decode_units(&[b'A'; 96], Alphabet::Standard, as_output(&mut out));
            assert_eq!(written, Some(72));
            upper_state_still_clear("avx2::decode::leaves_the_upper_state_clear", before);
        });
    }
}
