//! The options of a call, and the one integer they cross the NIF boundary
//! as. Erlang parses an option map once (`b64simd_options.erl`) into that
//! integer; `LAYOUT` is this side of the contract, and a test asks the NIF
//! for it and compares it with Erlang's table.
//!
//! | bits  | encode                         | decode                   | mime_decode     |
//! |-------|--------------------------------|--------------------------|-----------------|
//! | 0-1   | mode: 0 standard, 1 urlsafe    | as encode, 2 any         | as decode       |
//! | 2     | padding                        | padding required         | padding required|
//! | 3     | -                              | whitespace rejected      | -               |
//! | 4     | -                              | canonical                | -               |
//! | 5     | line break LF (else CRLF)      | -                        | -               |
//! | 8-63  | line length (0: no wrapping)   | -                        | -               |

/// Which 64-character alphabet: RFC 4648 section 4 (`+/`) or section 5 (`-_`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alphabet {
    Standard,
    UrlSafe,
    /// Decode only: both alphabets, mixed freely.
    Any,
}

/// The break between two lines of wrapped output.
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

/// Wrapped output: `length` characters a line (at least 1), `line_break`
/// between two lines, never after the last.
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
    /// true: `=` padding is required (OTP 26+). false: optional, but when
    /// present it must be complete and in the right place.
    pub padding_required: bool,
    /// true: `\t \n \r` and space are invalid characters instead of skipped.
    pub reject_whitespace: bool,
    /// true: the unused low bits of the last character must be zero (RFC
    /// 4648 section 3.5).
    pub canonical: bool,
}

/// The kinds of call, each with the options it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Encode,
    Decode,
    /// OTP's `mime_decode`: mode and padding only.
    Mime,
}

const MODE: u64 = 0b11;
const PADDING: u64 = 1 << 2;
const REJECT_WHITESPACE: u64 = 1 << 3;
const CANONICAL: u64 = 1 << 4;
const LINE_FEED: u64 = 1 << 5;
const LINE_LENGTH_SHIFT: u32 = 8;

/// An option a kind of call takes: its name, and each value's name and bits.
pub type OptionBits = (Kind, &'static str, &'static [(&'static str, u64)]);

/// Each kind of call, each option it takes as flag bits, and each value's
/// bits. The line length is not a flag: it is the integer above bit 8.
pub const LAYOUT: [OptionBits; 9] = [
    (Kind::Encode, "mode", &[("standard", 0), ("urlsafe", 1)]),
    (Kind::Encode, "padding", &[("true", PADDING), ("false", 0)]),
    (
        Kind::Encode,
        "line_break",
        &[("crlf", 0), ("lf", LINE_FEED)],
    ),
    (
        Kind::Decode,
        "mode",
        &[("standard", 0), ("urlsafe", 1), ("any", 2)],
    ),
    (Kind::Decode, "padding", &[("true", PADDING), ("false", 0)]),
    (
        Kind::Decode,
        "whitespace",
        &[("skip", 0), ("reject", REJECT_WHITESPACE)],
    ),
    (
        Kind::Decode,
        "canonical",
        &[("false", 0), ("true", CANONICAL)],
    ),
    (
        Kind::Mime,
        "mode",
        &[("standard", 0), ("urlsafe", 1), ("any", 2)],
    ),
    (Kind::Mime, "padding", &[("true", PADDING), ("false", 0)]),
];

/// The options of the NIFs of arity 1: the standard alphabet, padding
/// written and required; the same integer for every kind.
pub const DEFAULT_FLAGS: u64 = PADDING;

/// Every bit a kind's options can set (the line length aside).
const fn bits_of(kind: Kind) -> u64 {
    let mut bits = 0;
    let mut i = 0;
    while i < LAYOUT.len() {
        if LAYOUT[i].0 as u8 == kind as u8 {
            let mut v = 0;
            while v < LAYOUT[i].2.len() {
                bits |= LAYOUT[i].2[v].1;
                v += 1;
            }
        }
        i += 1;
    }
    bits
}

/// The alphabet of a mode field, if `kind` takes that mode.
fn alphabet(flags: u64, kind: Kind) -> Option<Alphabet> {
    match flags & MODE {
        0 => Some(Alphabet::Standard),
        1 => Some(Alphabet::UrlSafe),
        2 if kind != Kind::Encode => Some(Alphabet::Any),
        _ => None,
    }
}

impl EncodeOptions {
    pub const DEFAULT: EncodeOptions = EncodeOptions {
        alphabet: Alphabet::Standard,
        padding: true,
    };

    /// The options and, for wrapped output, the lines; `None` for bits
    /// encode does not take.
    pub fn from_flags(flags: u64) -> Option<(EncodeOptions, Option<Lines>)> {
        const ALLOWED: u64 = bits_of(Kind::Encode);
        let length = usize::try_from(flags >> LINE_LENGTH_SHIFT).ok()?;
        let flags = flags & ((1 << LINE_LENGTH_SHIFT) - 1);
        if flags & !ALLOWED != 0 {
            return None;
        }
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

    /// The flags `from_flags` reads these options and lines from.
    pub fn to_flags(self, lines: Option<Lines>) -> u64 {
        let line_bits = match lines {
            None => 0,
            Some(Lines { length, line_break }) => {
                let lf = if line_break == LineBreak::Lf {
                    LINE_FEED
                } else {
                    0
                };
                (length as u64) << LINE_LENGTH_SHIFT | lf
            }
        };
        mode_bits(self.alphabet) | if self.padding { PADDING } else { 0 } | line_bits
    }
}

fn mode_bits(alphabet: Alphabet) -> u64 {
    match alphabet {
        Alphabet::Standard => 0,
        Alphabet::UrlSafe => 1,
        Alphabet::Any => 2,
    }
}

impl DecodeOptions {
    pub const DEFAULT: DecodeOptions = DecodeOptions {
        alphabet: Alphabet::Standard,
        padding_required: true,
        reject_whitespace: false,
        canonical: false,
    };

    /// The options of a decode or a `mime_decode` (`kind`); `None` for
    /// bits that kind does not take.
    pub fn from_flags(flags: u64, kind: Kind) -> Option<DecodeOptions> {
        const DECODE: u64 = bits_of(Kind::Decode);
        const MIME: u64 = bits_of(Kind::Mime);
        let allowed = if kind == Kind::Mime { MIME } else { DECODE };
        if flags & !allowed != 0 {
            return None;
        }
        Some(DecodeOptions {
            alphabet: alphabet(flags, kind)?,
            padding_required: flags & PADDING != 0,
            reject_whitespace: flags & REJECT_WHITESPACE != 0,
            canonical: flags & CANONICAL != 0,
        })
    }

    /// The flags `from_flags` reads these options from.
    pub fn to_flags(self) -> u64 {
        let bit = |set: bool, bit: u64| if set { bit } else { 0 };
        mode_bits(self.alphabet)
            | bit(self.padding_required, PADDING)
            | bit(self.reject_whitespace, REJECT_WHITESPACE)
            | bit(self.canonical, CANONICAL)
    }

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
