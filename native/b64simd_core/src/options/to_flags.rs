//! The way back from options to flags, and every combination of a kind's
//! options: what the tests and the fuzzer write calls with, never a call
//! itself (compiled for tests and under the `testing` feature only).

use super::*;

fn bit(set: bool, bit: u64) -> u64 {
    if set {
        bit
    } else {
        0
    }
}

fn mode_bits(alphabet: Alphabet) -> u64 {
    match alphabet {
        Alphabet::Standard => 0,
        Alphabet::UrlSafe => 1,
        Alphabet::Any => 2,
    }
}

fn case_bits(case: LetterCase) -> u64 {
    match case {
        LetterCase::Upper => 0,
        LetterCase::Lower => LOWER,
        LetterCase::Mixed => MIXED,
    }
}

fn base32_alphabet_bits(alphabet: Base32Alphabet) -> u64 {
    bit(alphabet == Base32Alphabet::Hex, BASE32_HEX)
}

impl EncodeOptions {
    /// The flags `from_flags` reads these options and lines from.
    pub fn to_flags(self, lines: Option<Lines>) -> u64 {
        let line_bits = match lines {
            None => 0,
            Some(Lines { length, line_break }) => {
                (length as u64) << LINE_LENGTH_SHIFT | bit(line_break == LineBreak::Lf, LINE_FEED)
            }
        };
        mode_bits(self.alphabet) | bit(self.padding, PADDING) | line_bits
    }
}

impl DecodeOptions {
    /// The flags `from_flags` reads these options from.
    pub fn to_flags(self) -> u64 {
        mode_bits(self.alphabet)
            | bit(self.padding_required, PADDING)
            | bit(self.reject_whitespace, REJECT_WHITESPACE)
            | bit(self.canonical, CANONICAL)
    }

    /// Every combination of the decode options (24).
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

impl HexEncodeOptions {
    pub fn to_flags(self) -> u64 {
        case_bits(self.case)
    }
}

impl HexDecodeOptions {
    pub fn to_flags(self) -> u64 {
        case_bits(self.case)
    }
}

impl Base32EncodeOptions {
    pub fn to_flags(self) -> u64 {
        base32_alphabet_bits(self.alphabet) | case_bits(self.case) | bit(self.padding, PADDING)
    }
}

impl Base32DecodeOptions {
    pub fn to_flags(self) -> u64 {
        base32_alphabet_bits(self.alphabet)
            | case_bits(self.case)
            | bit(self.padding_required, PADDING)
    }

    /// Every combination of the decode options (18).
    pub fn all() -> Vec<Base32DecodeOptions> {
        let mut all = Vec::with_capacity(18);
        for alphabet in [Base32Alphabet::Standard, Base32Alphabet::Hex] {
            for case in [LetterCase::Upper, LetterCase::Lower, LetterCase::Mixed] {
                for padding_required in [true, false] {
                    all.push(Base32DecodeOptions {
                        alphabet,
                        case,
                        padding_required,
                    });
                }
            }
        }
        all
    }
}
