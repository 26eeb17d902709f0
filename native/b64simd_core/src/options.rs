//! A call's options: each kind's names and values (`LAYOUT`, for the NIF and
//! Erlang's messages) and their flags, one integer `from_flags` reads and streams keep.

/// Which 64-character alphabet: RFC 4648 section 4 (`+/`) or section 5 (`-_`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alphabet {
    Standard,
    UrlSafe,
    /// Decode only: both alphabets, mixed freely.
    Any,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineBreak {
    /// `\r\n`, as RFC 2045 requires for MIME.
    CrLf,
    /// `\n`, as PEM files use (RFC 7468).
    Lf,
}

impl LineBreak {
    pub fn bytes(self) -> &'static [u8] {
        match self {
            LineBreak::CrLf => b"\r\n",
            LineBreak::Lf => b"\n",
        }
    }
}

/// Wrapped output: `length` (at least 1) characters a line, `line_break` between lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lines {
    pub length: usize,
    pub line_break: LineBreak,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncodeOptions {
    pub alphabet: Alphabet,
    pub padding: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeOptions {
    pub alphabet: Alphabet,
    /// true: `=` required (OTP 26+); false: optional, but complete if present.
    pub padding_required: bool,
    /// true: `\t \n \r` and space are invalid characters instead of skipped.
    pub reject_whitespace: bool,
    /// true: the last character's unused bits must be zero (RFC 4648 3.5).
    pub canonical: bool,
}

/// The kinds of call. A new kind goes last, and into `Kind::ALL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Encode,
    Decode,
    /// OTP's `mime_decode`: mode and padding only.
    Mime,
    /// Base16 (OTP's `binary:encode_hex/2`, Elixir's `Base.encode16/2`).
    HexEncode,
    /// Base16 decode and validation.
    HexDecode,
    /// Base32, either alphabet (Elixir's `Base.encode32/2`).
    Base32Encode,
    /// Base32 decode and validation.
    Base32Decode,
}

/// The letters Base16 and Base32 write (upper or lower) or take (or mixed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LetterCase {
    Upper,
    Lower,
    /// Decode only.
    Mixed,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HexEncodeOptions {
    /// `Upper` or `Lower`.
    pub case: LetterCase,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HexDecodeOptions {
    pub case: LetterCase,
}

/// Which 32-character alphabet: RFC 4648 section 6 (`A-Z2-7`) or 7 (`0-9A-V`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base32Alphabet {
    Standard,
    Hex,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Base32EncodeOptions {
    pub alphabet: Base32Alphabet,
    /// `Upper` or `Lower`.
    pub case: LetterCase,
    pub padding: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Base32DecodeOptions {
    pub alphabet: Base32Alphabet,
    pub case: LetterCase,
    /// true: `=` required (Elixir's `padding: true`); false: optional, but complete if present.
    pub padding_required: bool,
}

const MODE: u64 = 0b11;
const PADDING: u64 = 1 << 2;
const REJECT_WHITESPACE: u64 = 1 << 3;
const CANONICAL: u64 = 1 << 4;
const LINE_FEED: u64 = 1 << 5;
const LINE_LENGTH_SHIFT: u32 = 8;
const CASE: u64 = 0b11;
const LOWER: u64 = 1;
const MIXED: u64 = 2;
const BASE32_HEX: u64 = 1 << 3;

#[cfg(any(test, feature = "testing"))]
mod to_flags;

impl Kind {
    /// Every kind, in the order of their values, as Erlang's table lists them.
    pub const ALL: [Kind; 7] = [
        Kind::Encode,
        Kind::Decode,
        Kind::Mime,
        Kind::HexEncode,
        Kind::HexDecode,
        Kind::Base32Encode,
        Kind::Base32Decode,
    ];

    pub const COUNT: usize = Kind::ALL.len();

    /// The kind's name in Erlang (`b64simd_options:kind()`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Encode => "encode",
            Kind::Decode => "decode",
            Kind::Mime => "mime",
            Kind::HexEncode => "hex_encode",
            Kind::HexDecode => "hex_decode",
            Kind::Base32Encode => "base32_encode",
            Kind::Base32Decode => "base32_decode",
        }
    }
}

/// A kind's option, and each value's name and bits (none for the line length).
pub type OptionBits = (Kind, &'static str, &'static [(&'static str, u64)]);

/// Every kind's options and their values' flag bits, in the order messages
/// list them; the line length is the integer from bit 8 up (`line_length_flags`).
#[rustfmt::skip]
pub const LAYOUT: [OptionBits; 18] = [
    (Kind::Encode, "mode", &[("standard", 0), ("urlsafe", 1)]),
    (Kind::Encode, "padding", &[("true", PADDING), ("false", 0)]),
    (Kind::Encode, "line_length", &[]),
    (Kind::Encode, "line_break", &[("crlf", 0), ("lf", LINE_FEED)]),
    (Kind::Decode, "mode", &[("standard", 0), ("urlsafe", 1), ("any", 2)]),
    (Kind::Decode, "padding", &[("true", PADDING), ("false", 0)]),
    (Kind::Decode, "whitespace", &[("skip", 0), ("reject", REJECT_WHITESPACE)]),
    (Kind::Decode, "canonical", &[("false", 0), ("true", CANONICAL)]),
    (Kind::Mime, "mode", &[("standard", 0), ("urlsafe", 1), ("any", 2)]),
    (Kind::Mime, "padding", &[("true", PADDING), ("false", 0)]),
    // `letter_case` (Erlang reserves `case`) and one set of values for Base16 and
    // Base32; Base16 also takes OTP's `binary:encode_hex/2` words.
    (Kind::HexEncode, "letter_case",
     &[("upper", 0), ("lower", LOWER), ("uppercase", 0), ("lowercase", LOWER)]),
    (Kind::HexDecode, "letter_case",
     &[("upper", 0), ("lower", LOWER), ("mixed", MIXED), ("uppercase", 0), ("lowercase", LOWER)]),
    (Kind::Base32Encode, "alphabet", &[("standard", 0), ("hex", BASE32_HEX)]),
    (Kind::Base32Encode, "letter_case", &[("upper", 0), ("lower", LOWER)]),
    (Kind::Base32Encode, "padding", &[("true", PADDING), ("false", 0)]),
    (Kind::Base32Decode, "alphabet", &[("standard", 0), ("hex", BASE32_HEX)]),
    (Kind::Base32Decode, "letter_case", &[("upper", 0), ("lower", LOWER), ("mixed", MIXED)]),
    (Kind::Base32Decode, "padding", &[("true", PADDING), ("false", 0)]),
];

/// The options of `hex_encode/1`: uppercase, as OTP's `binary:encode_hex/1`.
pub const HEX_ENCODE_DEFAULT_FLAGS: u64 = 0;

/// The options of `hex_decode/1` and `hex_is_valid/1`: both cases, as OTP's.
pub const HEX_DECODE_DEFAULT_FLAGS: u64 = MIXED;

/// The options of every kind's arity-1 NIFs: standard alphabet, padding written and required.
pub const DEFAULT_FLAGS: u64 = PADDING;

/// The flags of an empty option map: padding, where the kind takes it.
pub fn unset_flags(kind: Kind) -> u64 {
    KIND_BITS[kind as usize] & PADDING
}

/// The flags of a line length (`None` for 0), capped at a length no output reaches.
pub fn line_length_flags(length: u64) -> Option<u64> {
    const LONGEST: u64 = 1 << 48;
    (length > 0).then_some(length.min(LONGEST) << LINE_LENGTH_SHIFT)
}

/// Every bit each kind's options can set (but the line length), by `Kind`.
const KIND_BITS: [u64; Kind::COUNT] = {
    let mut bits = [0; Kind::COUNT];
    let mut row = 0;
    while row < LAYOUT.len() {
        let (kind, _, values) = LAYOUT[row];
        let mut value = 0;
        while value < values.len() {
            bits[kind as usize] |= values[value].1;
            value += 1;
        }
        row += 1;
    }
    bits
};

/// The alphabet of a mode field, if `kind` takes that mode.
fn alphabet(flags: u64, kind: Kind) -> Option<Alphabet> {
    match flags & MODE {
        0 => Some(Alphabet::Standard),
        1 => Some(Alphabet::UrlSafe),
        2 if kind != Kind::Encode => Some(Alphabet::Any),
        _ => None,
    }
}

/// The case field, if `flags` hold no bit `kind` does not take (mixed: decode only).
fn letter_case(flags: u64, kind: Kind) -> Option<LetterCase> {
    only(flags, kind)?;
    match flags & CASE {
        0 => Some(LetterCase::Upper),
        LOWER => Some(LetterCase::Lower),
        MIXED if matches!(kind, Kind::HexDecode | Kind::Base32Decode) => Some(LetterCase::Mixed),
        _ => None,
    }
}

/// The flags of `kind` with no bit it does not take.
fn only(flags: u64, kind: Kind) -> Option<u64> {
    (flags & !KIND_BITS[kind as usize] == 0).then_some(flags)
}

fn base32_alphabet(flags: u64) -> Base32Alphabet {
    match flags & BASE32_HEX {
        0 => Base32Alphabet::Standard,
        _ => Base32Alphabet::Hex,
    }
}

impl HexEncodeOptions {
    pub const DEFAULT: HexEncodeOptions = HexEncodeOptions {
        case: LetterCase::Upper,
    };

    pub fn from_flags(flags: u64) -> Option<HexEncodeOptions> {
        let case = letter_case(flags, Kind::HexEncode)?;
        Some(HexEncodeOptions { case })
    }
}

impl HexDecodeOptions {
    pub const DEFAULT: HexDecodeOptions = HexDecodeOptions {
        case: LetterCase::Mixed,
    };

    pub fn from_flags(flags: u64) -> Option<HexDecodeOptions> {
        let case = letter_case(flags, Kind::HexDecode)?;
        Some(HexDecodeOptions { case })
    }
}

impl Base32EncodeOptions {
    pub const DEFAULT: Base32EncodeOptions = Base32EncodeOptions {
        alphabet: Base32Alphabet::Standard,
        case: LetterCase::Upper,
        padding: true,
    };

    pub fn from_flags(flags: u64) -> Option<Base32EncodeOptions> {
        Some(Base32EncodeOptions {
            alphabet: base32_alphabet(flags),
            case: letter_case(flags, Kind::Base32Encode)?,
            padding: flags & PADDING != 0,
        })
    }
}

impl Base32DecodeOptions {
    pub const DEFAULT: Base32DecodeOptions = Base32DecodeOptions {
        alphabet: Base32Alphabet::Standard,
        case: LetterCase::Upper,
        padding_required: true,
    };

    pub fn from_flags(flags: u64) -> Option<Base32DecodeOptions> {
        Some(Base32DecodeOptions {
            alphabet: base32_alphabet(flags),
            case: letter_case(flags, Kind::Base32Decode)?,
            padding_required: flags & PADDING != 0,
        })
    }
}

impl EncodeOptions {
    pub const DEFAULT: EncodeOptions = EncodeOptions {
        alphabet: Alphabet::Standard,
        padding: true,
    };

    /// The options and, for wrapped output, the lines; `None` for bits encode does not take.
    pub fn from_flags(flags: u64) -> Option<(EncodeOptions, Option<Lines>)> {
        let length = usize::try_from(flags >> LINE_LENGTH_SHIFT).ok()?;
        let flags = flags & ((1 << LINE_LENGTH_SHIFT) - 1);
        only(flags, Kind::Encode)?;
        let opts = EncodeOptions {
            alphabet: alphabet(flags, Kind::Encode)?,
            padding: flags & PADDING != 0,
        };
        let line_break = match flags & LINE_FEED {
            0 => LineBreak::CrLf,
            _ => LineBreak::Lf,
        };
        let lines = (length > 0).then_some(Lines { length, line_break });
        Some((opts, lines))
    }
}

impl DecodeOptions {
    pub const DEFAULT: DecodeOptions = DecodeOptions {
        alphabet: Alphabet::Standard,
        padding_required: true,
        reject_whitespace: false,
        canonical: false,
    };

    /// A decode's or `mime_decode`'s options; `None` for bits `kind` does not take.
    pub fn from_flags(flags: u64, kind: Kind) -> Option<DecodeOptions> {
        debug_assert!(matches!(kind, Kind::Decode | Kind::Mime));
        only(flags, kind)?;
        Some(DecodeOptions {
            alphabet: alphabet(flags, kind)?,
            padding_required: flags & PADDING != 0,
            reject_whitespace: flags & REJECT_WHITESPACE != 0,
            canonical: flags & CANONICAL != 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table indexed by kind has a place for each:
    /// `ALL` holds every kind at its index, the last one included (a new
    /// kind goes last, and this test names it).
    #[test]
    fn each_kind_is_at_its_index() {
        for (i, kind) in Kind::ALL.into_iter().enumerate() {
            assert_eq!(kind as usize, i, "{kind:?}");
        }
        assert_eq!(Kind::COUNT, Kind::Base32Decode as usize + 1);
    }

    #[test]
    fn no_option_is_padding_where_a_kind_takes_it() {
        let padded = [
            Kind::Encode,
            Kind::Decode,
            Kind::Mime,
            Kind::Base32Encode,
            Kind::Base32Decode,
        ];
        for kind in Kind::ALL {
            let expected = if padded.contains(&kind) { PADDING } else { 0 };
            assert_eq!(unset_flags(kind), expected, "{kind:?}");
        }
        assert_eq!(unset_flags(Kind::Decode), DEFAULT_FLAGS);
    }

    #[test]
    fn line_lengths_are_positive_and_the_longest_is_no_limit() {
        assert_eq!(line_length_flags(0), None);
        assert_eq!(line_length_flags(76), Some(76 << LINE_LENGTH_SHIFT));
        assert_eq!(line_length_flags(u64::MAX), line_length_flags(1 << 48));
        let (_, lines) = EncodeOptions::from_flags(line_length_flags(u64::MAX).unwrap()).unwrap();
        assert_eq!(lines.unwrap().length, 1 << 48);
    }

    #[test]
    fn default_flags_are_the_default_options() {
        assert_eq!(
            EncodeOptions::from_flags(DEFAULT_FLAGS),
            Some((EncodeOptions::DEFAULT, None))
        );
        for kind in [Kind::Decode, Kind::Mime] {
            assert_eq!(
                DecodeOptions::from_flags(DEFAULT_FLAGS, kind),
                Some(DecodeOptions::DEFAULT)
            );
        }
    }

    #[test]
    fn each_kind_takes_only_its_bits() {
        assert_eq!(EncodeOptions::from_flags(2), None, "mode any");
        assert_eq!(EncodeOptions::from_flags(REJECT_WHITESPACE), None);
        assert_eq!(DecodeOptions::from_flags(3, Kind::Decode), None);
        assert_eq!(DecodeOptions::from_flags(LINE_FEED, Kind::Decode), None);
        assert_eq!(DecodeOptions::from_flags(1 << 8, Kind::Decode), None);
        assert_eq!(DecodeOptions::from_flags(CANONICAL, Kind::Mime), None);
        assert_eq!(
            DecodeOptions::from_flags(REJECT_WHITESPACE, Kind::Mime),
            None
        );
    }

    #[test]
    fn to_flags_is_what_from_flags_reads() {
        assert_eq!(DecodeOptions::all().len(), 24);
        assert_eq!(Base32DecodeOptions::all().len(), 12);
        for opts in DecodeOptions::all() {
            assert_eq!(
                DecodeOptions::from_flags(opts.to_flags(), Kind::Decode),
                Some(opts)
            );
        }
        let lines = Some(Lines {
            length: 76,
            line_break: LineBreak::Lf,
        });
        for alphabet in [Alphabet::Standard, Alphabet::UrlSafe] {
            for padding in [true, false] {
                let opts = EncodeOptions { alphabet, padding };
                for lines in [None, lines] {
                    let flags = opts.to_flags(lines);
                    assert_eq!(EncodeOptions::from_flags(flags), Some((opts, lines)));
                }
            }
        }
    }

    #[test]
    fn base16_and_base32_flags_round_trip() {
        for case in [LetterCase::Upper, LetterCase::Lower] {
            let opts = HexEncodeOptions { case };
            assert_eq!(HexEncodeOptions::from_flags(opts.to_flags()), Some(opts));
        }
        for case in [LetterCase::Upper, LetterCase::Lower, LetterCase::Mixed] {
            let opts = HexDecodeOptions { case };
            assert_eq!(HexDecodeOptions::from_flags(opts.to_flags()), Some(opts));
        }
        for opts in Base32DecodeOptions::all() {
            assert_eq!(Base32DecodeOptions::from_flags(opts.to_flags()), Some(opts));
            if opts.case != LetterCase::Mixed {
                let encode = Base32EncodeOptions {
                    alphabet: opts.alphabet,
                    case: opts.case,
                    padding: opts.padding_required,
                };
                assert_eq!(
                    Base32EncodeOptions::from_flags(encode.to_flags()),
                    Some(encode)
                );
            }
        }
        assert_eq!(
            HexEncodeOptions::from_flags(HEX_ENCODE_DEFAULT_FLAGS),
            Some(HexEncodeOptions::DEFAULT)
        );
        assert_eq!(
            HexDecodeOptions::from_flags(HEX_DECODE_DEFAULT_FLAGS),
            Some(HexDecodeOptions::DEFAULT)
        );
        assert_eq!(
            Base32EncodeOptions::from_flags(DEFAULT_FLAGS),
            Some(Base32EncodeOptions::DEFAULT)
        );
        assert_eq!(
            Base32DecodeOptions::from_flags(DEFAULT_FLAGS),
            Some(Base32DecodeOptions::DEFAULT)
        );
    }

    #[test]
    fn base16_and_base32_take_only_their_bits() {
        assert_eq!(
            HexEncodeOptions::from_flags(MIXED),
            None,
            "encode is never mixed"
        );
        assert_eq!(HexEncodeOptions::from_flags(PADDING), None);
        assert_eq!(HexDecodeOptions::from_flags(3), None);
        assert_eq!(HexDecodeOptions::from_flags(BASE32_HEX), None);
        assert_eq!(Base32EncodeOptions::from_flags(MIXED), None);
        assert_eq!(Base32DecodeOptions::from_flags(3), None);
        assert_eq!(Base32DecodeOptions::from_flags(CANONICAL), None);
        assert_eq!(Base32DecodeOptions::from_flags(1 << 8), None);
    }

    #[test]
    fn line_options_ride_above_the_flags() {
        let pem = 64 << LINE_LENGTH_SHIFT | LINE_FEED | PADDING;
        let lines = Lines {
            length: 64,
            line_break: LineBreak::Lf,
        };
        assert_eq!(
            EncodeOptions::from_flags(pem),
            Some((EncodeOptions::DEFAULT, Some(lines)))
        );
        let (_, lines) = EncodeOptions::from_flags(76 << LINE_LENGTH_SHIFT).unwrap();
        assert_eq!(lines.unwrap().line_break, LineBreak::CrLf);
    }
}
