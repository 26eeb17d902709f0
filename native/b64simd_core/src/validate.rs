//! `is_valid`: the verdict of `try_decode` (same options, same rules) without
//! the output binary. Small inputs decode whole into a scratch buffer; larger
//! ones go through the decode engine (`DecodeJob`) with a sink that discards,
//! window by window into a scratch buffer that stays in cache.

use crate::engine::DecodeJob;
use crate::job::{Job, Step};
use crate::lines;
use crate::options::DecodeOptions;
use crate::scratch::with_scratch;

/// Scratch bytes for a one-shot check: 16 KiB of input per simdutf call,
/// and one block of the line path.
pub const SCRATCH: usize = 12 * 1024;
const _: () = assert!(SCRATCH >= lines::BLOCK_OUTPUT);

/// `is_valid`'s sliced job: the decode engine into a sink that discards
/// (`DecodeJob::discarding`); its output buffer is scratch, and `Done(_)`
/// means valid.
#[derive(Clone, Debug)]
pub struct ValidateJob(DecodeJob);

impl ValidateJob {
    pub fn new(opts: DecodeOptions) -> ValidateJob {
        ValidateJob(DecodeJob::discarding(opts))
    }
}

impl Job for ValidateJob {
    fn step(&mut self, input: &[u8], scratch: &mut [u8], max_input: usize) -> Step {
        self.0.step(input, scratch, max_input)
    }
}

/// The verdict for the whole of `input`, checked in one call.
pub fn is_valid(input: &[u8], opts: DecodeOptions) -> bool {
    // The verdict needs no offsets, so whitespace around the input can go.
    let (input, _) = crate::codec::trim_whitespace(input, opts);
    with_scratch(|scratch| is_valid_with(input, opts, &mut scratch[..SCRATCH]))
}

fn is_valid_with(input: &[u8], opts: DecodeOptions, scratch: &mut [u8]) -> bool {
    // An input that decodes into the scratch buffer is decoded whole.
    if crate::codec::decoded_len_bound(input) <= scratch.len() {
        return crate::codec::decode_into(input, opts, scratch).is_ok();
    }
    let mut job = ValidateJob::new(opts);
    job.run_to_end(input, scratch, usize::MAX).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::encoded_len;
    use crate::options::Alphabet;
    use crate::scalar::DecodeError;
    use crate::test_support::{decode_to_vec, Rng};

    fn sliced(
        input: &[u8],
        opts: DecodeOptions,
        scratch: usize,
        slice: usize,
    ) -> Result<(), DecodeError> {
        let mut scratch = vec![0u8; scratch];
        let mut job = ValidateJob::new(opts);
        job.run_to_end(input, &mut scratch, slice).map(|_| ())
    }

    /// The same verdict (and, for a sliced job, the same reason) as
    /// `try_decode` on mutated encodings, for every option and several
    /// scratch sizes and slicings.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn same_verdict_as_try_decode() {
        let seed = 0x5EED_0014;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        let specials = b"=\t\n\r \x0c\x0b-_+/\x00\xff.QA";
        for round in 0..3_000 {
            let len = (rng.next() % 400) as usize;
            let plain = rng.bytes(len);
            let padding = rng.next().is_multiple_of(2);
            let mut text = vec![0u8; encoded_len(len, padding).unwrap()];
            crate::codec::encode_into(
                &plain,
                crate::options::EncodeOptions {
                    alphabet: Alphabet::Standard,
                    padding,
                },
                &mut text,
            );
            for _ in 0..(rng.next() % 3) {
                let special = specials[(rng.next() as usize) % specials.len()];
                let at = (rng.next() as usize) % (text.len() + 1);
                text.insert(at, special);
            }
            for alphabet in [Alphabet::Standard, Alphabet::UrlSafe, Alphabet::Any] {
                for bits in 0..8 {
                    let opts = DecodeOptions {
                        alphabet,
                        padding_required: bits & 1 != 0,
                        reject_whitespace: bits & 2 != 0,
                        canonical: bits & 4 != 0,
                    };
                    let want = decode_to_vec(&text, opts).map(|_| ());
                    assert_eq!(
                        is_valid(&text, opts),
                        want.is_ok(),
                        "round {round} {opts:?}"
                    );
                    let scratch = [6, 9, 30, 300][(rng.next() % 4) as usize];
                    let slice = 1 + (rng.next() % 50) as usize;
                    assert_eq!(
                        sliced(&text, opts, scratch, slice),
                        want,
                        "round {round} scratch {scratch} slice {slice} {opts:?}"
                    );
                }
            }
        }
    }

    /// Line-wrapped text with a stray byte or none: the line path (one shot
    /// and sliced) gives `try_decode`'s verdict and reason.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn same_verdict_on_wrapped_text() {
        let seed = 0x5EED_0015;
        println!("seed {seed:#x}");
        let mut rng = Rng(seed);
        for round in 0..300 {
            let len = 300 + (rng.next() % 40_000) as usize;
            let mut text = vec![0u8; encoded_len(len, true).unwrap()];
            let plain = rng.bytes(len);
            crate::codec::encode_into(&plain, crate::options::EncodeOptions::DEFAULT, &mut text);
            let (length, line_break): (usize, &[u8]) = if rng.next().is_multiple_of(2) {
                (76, b"\r\n")
            } else {
                (64, b"\n")
            };
            let mut text = text.chunks(length).collect::<Vec<_>>().join(line_break);
            if rng.next().is_multiple_of(2) {
                let at = (rng.next() as usize) % text.len();
                text[at] = b"=!\n A"[(rng.next() % 5) as usize];
            }
            for opts in DecodeOptions::all() {
                let want = decode_to_vec(&text, opts).map(|_| ());
                assert_eq!(
                    is_valid(&text, opts),
                    want.is_ok(),
                    "round {round} {opts:?}"
                );
                let slice = [1, 5_000, 100_000][(rng.next() % 3) as usize];
                assert_eq!(
                    sliced(&text, opts, SCRATCH, slice),
                    want,
                    "round {round} slice {slice} {opts:?}"
                );
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn examples() {
        let strict = DecodeOptions::DEFAULT;
        assert!(is_valid(b"", strict));
        assert!(is_valid(b"QQ==", strict));
        assert!(is_valid(b" Q Q = = \n", strict));
        assert!(!is_valid(b"QQ", strict));
        assert!(!is_valid(b"QQ=", strict));
        assert!(!is_valid(b"Q", strict));
        assert!(!is_valid(b"QQ\x0c==", strict));
        assert!(!is_valid(b"QQ==QQ==", strict));
        let long: Vec<u8> = b"QUJD".repeat(20_000);
        assert!(is_valid(&long, strict));
        let mut bad = long.clone();
        bad[70_000] = b'-';
        assert!(!is_valid(&bad, strict));
    }
}
