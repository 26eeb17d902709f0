//! The independent implementation: the `base64` crate, one GeneralPurpose
//! engine per alphabet, padding mode and trailing-bits setting, with our
//! decision rules applied explicitly before its engines see the input:
//!
//! - whitespace => skip: OTP's set (`\t \n \r` and space) is stripped first;
//!   every other byte (`\f` and `\v` included) goes to the engine, which
//!   rejects it; whitespace => reject: nothing is stripped.
//! - mode => any: `-` and `_` become `+` and `/`, then the standard alphabet.
//! - padding => true: canonical padding required (`RequireCanonical`).
//!   padding => false: optional, but padding that is present must be
//!   complete, so `RequireCanonical` if the input holds a `=` and
//!   `RequireNone` otherwise (the crate's `Indifferent` would accept `QQ=`).
//! - canonical => true: `with_decode_allow_trailing_bits(false)`.

use b64simd_core::options::{Alphabet, DecodeOptions, EncodeOptions};
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::{alphabet, Engine};

pub struct Reference {
    /// Indexed by `engine_index`.
    decoders: Vec<GeneralPurpose>,
    /// Indexed by `[url_safe][padding]`.
    encoders: [[GeneralPurpose; 2]; 2],
}

fn engine_index(url_safe: bool, padding_present: bool, canonical: bool) -> usize {
    usize::from(url_safe) * 4 + usize::from(padding_present) * 2 + usize::from(canonical)
}

fn base64_alphabet(url_safe: bool) -> &'static alphabet::Alphabet {
    if url_safe {
        &alphabet::URL_SAFE
    } else {
        &alphabet::STANDARD
    }
}

impl Reference {
    pub fn new() -> Reference {
        let mut decoders = Vec::with_capacity(8);
        for url_safe in [false, true] {
            for padding_present in [false, true] {
                for canonical in [false, true] {
                    debug_assert_eq!(
                        decoders.len(),
                        engine_index(url_safe, padding_present, canonical)
                    );
                    let padding_mode = if padding_present {
                        DecodePaddingMode::RequireCanonical
                    } else {
                        DecodePaddingMode::RequireNone
                    };
                    let config = GeneralPurposeConfig::new()
                        .with_decode_padding_mode(padding_mode)
                        .with_decode_allow_trailing_bits(!canonical);
                    decoders.push(GeneralPurpose::new(base64_alphabet(url_safe), config));
                }
            }
        }
        let encoder = |url_safe: bool, padding: bool| {
            let config = GeneralPurposeConfig::new().with_encode_padding(padding);
            GeneralPurpose::new(base64_alphabet(url_safe), config)
        };
        Reference {
            decoders,
            encoders: [
                [encoder(false, false), encoder(false, true)],
                [encoder(true, false), encoder(true, true)],
            ],
        }
    }

    pub fn encode(&self, plain: &[u8], opts: EncodeOptions) -> Vec<u8> {
        let url_safe = opts.alphabet == Alphabet::UrlSafe;
        self.encoders[usize::from(url_safe)][usize::from(opts.padding)]
            .encode(plain)
            .into_bytes()
    }

    /// The decoded bytes, or `None` when our rules reject `text`.
    pub fn decode(&self, text: &[u8], opts: DecodeOptions) -> Option<Vec<u8>> {
        let mut input: Vec<u8> = if opts.reject_whitespace {
            text.to_vec()
        } else {
            text.iter()
                .copied()
                .filter(|b| !matches!(b, b'\t' | b'\n' | b'\r' | b' '))
                .collect()
        };
        if opts.alphabet == Alphabet::Any {
            for byte in input.iter_mut() {
                *byte = match *byte {
                    b'-' => b'+',
                    b'_' => b'/',
                    other => other,
                };
            }
        }
        let padding_present = opts.padding_required || input.contains(&b'=');
        let url_safe = opts.alphabet == Alphabet::UrlSafe;
        self.decoders[engine_index(url_safe, padding_present, opts.canonical)]
            .decode(&input)
            .ok()
    }
}
