//! Options as the Erlang layer hands them over: parsed once in `b64simd.erl`
//! and packed into one small integer, so the NIF never walks a map.
//!
//! Bit layout (keep in sync with `encode_flags/1` and `decode_flags/1` in
//! `src/b64simd.erl`):
//!
//! | bits | encode                     | decode                              |
//! |------|----------------------------|-------------------------------------|
//! | 0-1  | mode: 0 standard, 1 url    | mode: 0 standard, 1 url, 2 any      |
//! | 2    | padding                    | padding required                    |
//! | 3    | -                          | whitespace rejected                 |
//! | 4    | -                          | canonical (RFC 4648 section 3.5)    |

/// Which 64-character alphabet: RFC 4648 section 4 (`+/`) or section 5 (`-_`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alphabet {
    Standard,
    UrlSafe,
    /// Decode only: both alphabets, mixed freely.
    Any,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncodeOptions {
    pub alphabet: Alphabet,
    pub padding: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeOptions {
    pub alphabet: Alphabet,
    /// true: `=` padding is required (OTP 26+ default). false: optional, but
    /// when present it must be complete and in the right place.
    pub padding_required: bool,
    /// true: `\t \n \r` and space are invalid characters instead of skipped.
    pub reject_whitespace: bool,
    /// true: the unused low bits of the last character must be zero.
    pub canonical: bool,
}

const MODE_MASK: u32 = 0b11;
const PADDING: u32 = 1 << 2;
const REJECT_WHITESPACE: u32 = 1 << 3;
const CANONICAL: u32 = 1 << 4;
const ALL_FLAGS: u32 = MODE_MASK | PADDING | REJECT_WHITESPACE | CANONICAL;
/// The options of the NIFs of arity 1 (`encode/1`, `decode/1`,
/// `mime_decode/1`, `is_valid/1`): the standard alphabet, padding written
/// and required; `?DEFAULT_FLAGS` in `b64simd_flags.hrl`.
pub const DEFAULT_FLAGS: u32 = PADDING;

impl EncodeOptions {
    pub const DEFAULT: EncodeOptions = EncodeOptions {
        alphabet: Alphabet::Standard,
        padding: true,
    };

    pub fn from_flags(flags: u32) -> Option<EncodeOptions> {
        if flags & !(MODE_MASK | PADDING) != 0 {
            return None;
        }
        let alphabet = match flags & MODE_MASK {
            0 => Alphabet::Standard,
            1 => Alphabet::UrlSafe,
            _ => return None,
        };
        Some(EncodeOptions {
            alphabet,
            padding: flags & PADDING != 0,
        })
    }
}

impl DecodeOptions {
    pub const DEFAULT: DecodeOptions = DecodeOptions {
        alphabet: Alphabet::Standard,
        padding_required: true,
        reject_whitespace: false,
        canonical: false,
    };

    pub fn from_flags(flags: u32) -> Option<DecodeOptions> {
        if flags & !ALL_FLAGS != 0 {
            return None;
        }
        let alphabet = match flags & MODE_MASK {
            0 => Alphabet::Standard,
            1 => Alphabet::UrlSafe,
            2 => Alphabet::Any,
            _ => return None,
        };
        Some(DecodeOptions {
            alphabet,
            padding_required: flags & PADDING != 0,
            reject_whitespace: flags & REJECT_WHITESPACE != 0,
            canonical: flags & CANONICAL != 0,
        })
    }
}

impl DecodeOptions {
    /// Every combination of the decode options (24), for exhaustive tests
    /// and the fuzzer.
    pub fn all() -> Vec<DecodeOptions> {
        let mut all = Vec::with_capacity(24);
        for alphabet in [Alphabet::Standard, Alphabet::UrlSafe, Alphabet::Any] {
            for padding_required in [true, false] {
                for reject_whitespace in [true, false] {
                    for canonical in [true, false] {
                        all.push(DecodeOptions {
                            alphabet,
                            padding_required,
                            reject_whitespace,
                            canonical,
                        });
                    }
                }
            }
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_flags_round_trip() {
        assert_eq!(
            EncodeOptions::from_flags(DEFAULT_FLAGS),
            Some(EncodeOptions::DEFAULT)
        );
        assert_eq!(
            DecodeOptions::from_flags(DEFAULT_FLAGS),
            Some(DecodeOptions::DEFAULT)
        );
    }

    #[test]
    fn unknown_bits_and_modes_are_refused() {
        assert_eq!(EncodeOptions::from_flags(2), None);
        assert_eq!(EncodeOptions::from_flags(1 << 3), None);
        assert_eq!(DecodeOptions::from_flags(3), None);
        assert_eq!(DecodeOptions::from_flags(1 << 5), None);
    }
}
