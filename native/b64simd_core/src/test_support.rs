//! Shared by the unit tests: a deterministic generator, so every failure
//! reproduces from the seed the test prints (xorshift64*), the reference
//! encodings, the decodes the other paths are held to, and the skips of
//! tests that need what a CPU or a run may lack (`skipped`).

use crate::decode::DecodeJob;
use crate::error::DecodeError;
use crate::job::Job;
use crate::lengths::maximal_decoded_len;
use crate::options::{Alphabet, DecodeOptions, EncodeOptions, Lines};
use crate::output::as_output;
use crate::reached::{calls_with_rounds, Rounds};
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

/// Fails unless `encode` writes RFC 4648 section 10's encodings, and
/// Base64url's two characters of its own without padding.
pub fn follows_rfc4648(encode: impl Fn(&[u8], EncodeOptions) -> Vec<u8>) {
    for (plain, encoded) in RFC4648_VECTORS {
        assert_eq!(encode(plain, EncodeOptions::DEFAULT), encoded);
    }
    let url = EncodeOptions {
        alphabet: Alphabet::UrlSafe,
        padding: false,
    };
    assert_eq!(encode(&[0xFB, 0xFF], url), b"-_8");
}

/// `plain` encoded by the plain definition (RFC 4648 sections 4 and 5), a
/// group of 3 bytes at a time: the reference text of the decode, wrap and
/// stream tests, never one of the encoders they test (`encoder`, `simd`,
/// `avx2`). Held to RFC 4648's vectors and to data-encoding's Base64 below.
pub fn reference_encode(plain: &[u8], opts: EncodeOptions) -> Vec<u8> {
    let characters: &[u8; 64] = match opts.alphabet {
        Alphabet::Standard => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
        Alphabet::UrlSafe => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
        Alphabet::Any => panic!("Alphabet::Any decodes only"),
    };
    let mut text = Vec::with_capacity(plain.len().div_ceil(3) * 4);
    for group in plain.chunks(3) {
        // The group's bits from the top of 24, zero-filled (section 3.5).
        let bits = group.iter().enumerate().fold(0u32, |bits, (i, &byte)| {
            bits | u32::from(byte) << (16 - 8 * i)
        });
        let sextets = group.len() + 1;
        text.extend((0..sextets).map(|i| characters[(bits >> (18 - 6 * i) & 63) as usize]));
        if opts.padding {
            text.extend(std::iter::repeat(b'=').take(4 - sextets));
        }
    }
    text
}

/// The obvious definition of wrapping: the reference encoding, cut into
/// lines, joined by the break.
pub fn reference_wrapped(plain: &[u8], opts: EncodeOptions, lines: Lines) -> Vec<u8> {
    reference_encode(plain, opts)
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

/// After a call that began with the upper state clear as far as `before`
/// says (read right after `vzeroupper`): it is clear still, or the test
/// `name` says why it cannot tell.
#[cfg(target_arch = "x86_64")]
pub fn upper_state_still_clear(name: &str, before: Option<bool>) {
    match before {
        Some(false) => assert_eq!(upper_state_in_use(), Some(false), "{name}"),
        Some(true) => skipped(
            name,
            Needs::Xinuse,
            "XINUSE says in use right after vzeroupper",
        ),
        None => skipped(name, Needs::Xinuse, "XINUSE unknown here"),
    }
}

/// What a test needs of the CPU or of the run, where it cannot run
/// without it (`skipped`).
#[derive(Clone, Copy, Debug)]
pub enum Needs {
    /// A CPU, not Miri, which runs neither SIMD intrinsics nor C++.
    NotMiri,
    /// AVX2.
    Avx2,
    /// XINUSE, read with `xgetbv(1)`: XSAVE and its `xgetbv1`.
    Xinuse,
    /// simdutf's haswell kernel, which `scripts/test.sh` forces in turn.
    HaswellKernel,
}

impl Needs {
    /// Whether this run has it, as something other than the test's own
    /// check says: Linux's /proc/cpuinfo for the CPU (cpuid, which the
    /// tests ask, is what could be wrong), the environment for the kernel.
    /// Only an x86-64 build can have the x86 features: under qemu-user an
    /// arm64 build reads the x86 host's /proc/cpuinfo.
    fn met(self) -> Option<String> {
        let flags = || -> Vec<String> {
            let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
            cpuinfo
                .lines()
                .find(|line| line.starts_with("flags"))
                .map(|line| line.split_whitespace().map(str::to_owned).collect())
                .unwrap_or_default()
        };
        let listed = |wanted: &[&str]| {
            if !cfg!(target_arch = "x86_64") {
                return None;
            }
            let flags = flags();
            wanted
                .iter()
                .all(|flag| flags.iter().any(|f| f == flag))
                .then(|| format!("/proc/cpuinfo lists {}", wanted.join(" and ")))
        };
        match self {
            Needs::NotMiri => None,
            Needs::Avx2 => listed(&["avx2"]),
            Needs::Xinuse => listed(&["xsave", "xgetbv1"]),
            Needs::HaswellKernel => {
                let forced = std::env::var(crate::kernel::FORCE_VARIABLE).ok();
                (forced.as_deref() == Some("haswell"))
                    .then(|| format!("{}=haswell", crate::kernel::FORCE_VARIABLE))
            }
        }
    }
}

/// A test that returns without testing says so, on a line of its own
/// straight to stderr (past the test harness's capture, so that `cargo
/// test --quiet` shows it), and fails where this run has what it needs:
/// a skip is a reason only where the CPU or the run lacks it.
pub fn skipped(name: &str, needs: Needs, why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "\nb64simd_core: SKIPPED {name}: {why}");
    if let Some(evidence) = needs.met() {
        panic!("{name} was skipped ({why}), yet this run has {needs:?}: {evidence}");
    }
}

/// Runs `test` of our AVX2 code, and fails unless it reached these
/// `rounds`; says why it cannot run where it cannot (`skipped`).
pub fn on_avx2(name: &str, rounds: Rounds, test: impl FnOnce()) {
    if cfg!(miri) {
        return skipped(
            name,
            Needs::NotMiri,
            "Miri cannot run SIMD intrinsics (AddressSanitizer runs this code: make sanitize)",
        );
    }
    if !crate::avx2::available() {
        let why = if cfg!(target_arch = "x86_64") {
            "this CPU has no AVX2"
        } else {
            "AVX2 is x86-64's, and this build is not"
        };
        return skipped(name, Needs::Avx2, why);
    }
    let before = calls_with_rounds(rounds);
    test();
    assert!(
        calls_with_rounds(rounds) > before,
        "{name} never reached the AVX2 {rounds:?} rounds"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_follows_rfc4648_section10() {
        follows_rfc4648(reference_encode);
    }

    /// Every length to 300, and a few longer, under both alphabets and
    /// paddings: data-encoding's Base64 (the Base32 code's dependency, no
    /// encoder of ours) writes the same.
    #[test]
    fn the_reference_agrees_with_data_encoding() {
        let seed = 0x5EED_0020;
        println!("seed {seed:#x}");
        let plain = Rng(seed).bytes(4099);
        for (alphabet, padding, theirs) in [
            (Alphabet::Standard, true, &data_encoding::BASE64),
            (Alphabet::Standard, false, &data_encoding::BASE64_NOPAD),
            (Alphabet::UrlSafe, true, &data_encoding::BASE64URL),
            (Alphabet::UrlSafe, false, &data_encoding::BASE64URL_NOPAD),
        ] {
            let opts = EncodeOptions { alphabet, padding };
            for len in (0..=300).chain([4096, 4097, 4098, 4099]) {
                let input = &plain[..len];
                assert_eq!(
                    reference_encode(input, opts),
                    theirs.encode(input).into_bytes(),
                    "len {len} {opts:?}"
                );
            }
        }
    }
}
