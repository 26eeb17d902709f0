//! The way back from options to flags, and every combination of a kind's
//! options: what the tests and the fuzzer write calls with, never a call
//! itself (compiled for tests and under the `testing` feature only). Both
//! are read off `from_flags` over every combination of the bits a kind
//! takes, so that the bit layout is written once.

use super::*;

/// Every combination of the bits `kind` takes.
fn every_flags(kind: Kind) -> impl Iterator<Item = u64> {
    let bits = KIND_BITS[kind as usize];
    (0..=bits).filter(move |flags| flags & !bits == 0)
}

/// The flags of `kind` that `read` reads `options` from.
fn flags_of<T: PartialEq>(kind: Kind, options: T, read: impl Fn(u64) -> Option<T>) -> u64 {
    every_flags(kind)
        .find(|&flags| read(flags).as_ref() == Some(&options))
        .expect("options that some flags of their kind give")
}

impl EncodeOptions {
    /// The flags `from_flags` reads these options and lines from.
    pub fn to_flags(self, lines: Option<Lines>) -> u64 {
        let length = lines.map_or(0, |lines| (lines.length as u64) << LINE_LENGTH_SHIFT);
        let read = |flags| EncodeOptions::from_flags(flags | length);
        length | flags_of(Kind::Encode, (self, lines), read)
    }
}

impl DecodeOptions {
    /// The flags `from_flags` reads these options from.
    pub fn to_flags(self) -> u64 {
        flags_of(Kind::Decode, self, |flags| {
            DecodeOptions::from_flags(flags, Kind::Decode)
        })
    }

    /// Every combination of the decode options (24).
    pub fn all() -> Vec<DecodeOptions> {
        every_flags(Kind::Decode)
            .filter_map(|flags| DecodeOptions::from_flags(flags, Kind::Decode))
            .collect()
    }
}

impl HexEncodeOptions {
    pub fn to_flags(self) -> u64 {
        flags_of(Kind::HexEncode, self, HexEncodeOptions::from_flags)
    }
}

impl HexDecodeOptions {
    pub fn to_flags(self) -> u64 {
        flags_of(Kind::HexDecode, self, HexDecodeOptions::from_flags)
    }
}

impl Base32EncodeOptions {
    pub fn to_flags(self) -> u64 {
        flags_of(Kind::Base32Encode, self, Base32EncodeOptions::from_flags)
    }
}

impl Base32DecodeOptions {
    pub fn to_flags(self) -> u64 {
        flags_of(Kind::Base32Decode, self, Base32DecodeOptions::from_flags)
    }

    /// Every combination of the decode options (12).
    pub fn all() -> Vec<Base32DecodeOptions> {
        every_flags(Kind::Base32Decode)
            .filter_map(Base32DecodeOptions::from_flags)
            .collect()
    }
}
