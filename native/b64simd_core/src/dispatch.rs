//! Which code encodes, and decodes short text: b64simd's own AVX2 code
//! (`avx2/`) where simdutf would run its haswell kernel, simdutf's
//! elsewhere; and on any CPU with AVX2, unless simdutf's scalar kernel is
//! forced (no SIMD anywhere), our encoder with streaming stores for calls of
//! `BIG_CALL` bytes and more, whose output no cache holds (simdutf's icelake
//! encoder is slowest there: `bench/README.md`, "Kernels").
//!
//! `B64SIMD_OWN_AVX2`, read once, overrides: `never` (simdutf's only), `always` (ours on any
//! AVX2 CPU) or `auto`/empty; the NIF refuses to load on a value it cannot follow.

use crate::avx2::{self, Stores};
use crate::options::{EncodeOptions, LineBreak, Lines};
use crate::{kernel, lengths, simdutf};
use std::mem::MaybeUninit;
use std::sync::OnceLock;

pub const FORCE_VARIABLE: &str = "B64SIMD_OWN_AVX2";

/// Calls of this much input or more write around the caches, where an encoder can.
pub const BIG_CALL: usize = 16 << 20;

/// An encoder of plain calls (`encode_piece`) or of lines (`line_encoder`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoder {
    /// b64simd's own, `avx2/encode.rs`.
    Avx2,
    /// simdutf's, of the kernel simdutf runs.
    Simdutf,
}

/// The encoders of a process: one for big calls, one for the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoders {
    pub calls: Encoder,
    pub big_calls: Encoder,
}

impl Encoder {
    pub fn name(self) -> &'static str {
        match self {
            Encoder::Avx2 => "avx2",
            Encoder::Simdutf => "simdutf",
        }
    }
}

/// Why `B64SIMD_OWN_AVX2`'s choice cannot run, as data for `b64simd_messages` to word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `always` on a CPU without AVX2.
    Unsupported { value: &'static str },
    /// A value it does not take, and the values it takes.
    Unknown {
        name: String,
        known: [&'static str; 3],
    },
}

pub const KNOWN: [&str; 3] = ["auto", "always", "never"];

/// The encoders this process runs, or why the choice asked for cannot run.
pub fn chosen() -> Result<Encoders, Refusal> {
    choose(
        std::env::var(FORCE_VARIABLE).ok().as_deref(),
        kernel::active().ok(),
        avx2::available(),
    )
}

fn choose(forced: Option<&str>, kernel: Option<&str>, avx2: bool) -> Result<Encoders, Refusal> {
    let (ours, simdutf) = (Encoder::Avx2, Encoder::Simdutf);
    let forced = forced.filter(|name| !name.is_empty() && *name != "auto");
    let (calls, big_calls) = match forced {
        None if avx2 && kernel == Some("haswell") => (ours, ours),
        None if avx2 && kernel != Some("fallback") => (simdutf, ours),
        None | Some("never") => (simdutf, simdutf),
        Some("always") if avx2 => (ours, ours),
        Some("always") => return Err(Refusal::Unsupported { value: "always" }),
        Some(other) => {
            return Err(Refusal::Unknown {
                name: other.to_owned(),
                known: KNOWN,
            })
        }
    };
    Ok(Encoders { calls, big_calls })
}

/// The encoders every encode runs, `chosen()` on first use; a choice that
/// cannot run (the NIF then refused to load) falls back to simdutf's.
#[inline]
pub fn active() -> Encoders {
    static ACTIVE: OnceLock<Encoders> = OnceLock::new();
    *ACTIVE.get_or_init(|| {
        chosen().unwrap_or(Encoders {
            calls: Encoder::Simdutf,
            big_calls: Encoder::Simdutf,
        })
    })
}

/// Encodes `piece` of a `call_len`-byte call with that call's encoder into
/// `output`, exactly `encoded_len(piece.len(), opts.padding)` bytes; returns that.
#[inline]
pub fn encode_piece(
    piece: &[u8],
    opts: EncodeOptions,
    output: &mut [MaybeUninit<u8>],
    call_len: usize,
) -> usize {
    let encoders = active();
    let (encoder, stores) = if call_len >= BIG_CALL {
        (encoders.big_calls, Stores::Streaming)
    } else {
        (encoders.calls, Stores::Cached)
    };
    match encoder {
        Encoder::Avx2 => avx2::avx2_encode_into(piece, opts, output, stores),
        Encoder::Simdutf => simdutf::simdutf_encode_into(piece, opts, output),
    }
}

/// The encoder that writes these lines of a `call_len`-byte call straight into the
/// output, breaks included, if one takes them: ours where it takes such calls, big ones
/// too, as copying lines out of simdutf's blocks is far slower (ours stores through the
/// caches: streaming was no faster); else simdutf's, for LF breaks and lines of 4+.
pub fn line_encoder(lines: Lines, call_len: usize) -> Option<Encoder> {
    let encoders = active();
    let encoder = if call_len >= BIG_CALL {
        encoders.big_calls
    } else {
        encoders.calls
    };
    if encoder == Encoder::Avx2 && avx2::takes_lines(lines) {
        Some(Encoder::Avx2)
    } else if lines.line_break == LineBreak::Lf && lines.length >= 4 {
        Some(Encoder::Simdutf)
    } else {
        None
    }
}

/// Encodes `input` in `lines` with `encoder` (as `line_encoder` chose it) at
/// the start of `output`, a break between two lines, none after the last;
/// returns the bytes written. Panics, rather than overflow, if `output` is short.
pub fn encode_lines_with(
    encoder: Encoder,
    input: &[u8],
    opts: EncodeOptions,
    lines: Lines,
    output: &mut [MaybeUninit<u8>],
) -> usize {
    match encoder {
        Encoder::Avx2 => {
            let len = lengths::wrapped_len(input.len(), opts.padding, lines, 0)
                .expect("a piece's encoding fits");
            avx2::avx2_encode_lines_into(input, opts, lines, &mut output[..len])
        }
        Encoder::Simdutf => simdutf::simdutf_encode_lines_into(input, opts, lines.length, output),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoders(calls: Encoder, big_calls: Encoder) -> Result<Encoders, Refusal> {
        Ok(Encoders { calls, big_calls })
    }

    #[test]
    fn ours_where_simdutf_runs_haswell_and_for_big_calls() {
        let (ours, simdutf) = (Encoder::Avx2, Encoder::Simdutf);
        assert_eq!(choose(None, Some("haswell"), true), encoders(ours, ours));
        assert_eq!(
            choose(Some("auto"), Some("haswell"), true),
            encoders(ours, ours)
        );
        assert_eq!(choose(None, Some("icelake"), true), encoders(simdutf, ours));
        assert_eq!(
            choose(None, Some("westmere"), false),
            encoders(simdutf, simdutf)
        );
        // The scalar kernel forced: no SIMD, ours included.
        assert_eq!(
            choose(None, Some("fallback"), true),
            encoders(simdutf, simdutf)
        );
        assert_eq!(
            choose(None, Some("arm64"), false),
            encoders(simdutf, simdutf)
        );
    }

    #[test]
    fn the_variable_chooses_either() {
        let (ours, simdutf) = (Encoder::Avx2, Encoder::Simdutf);
        let haswell = Some("haswell");
        assert_eq!(
            choose(Some("never"), haswell, true),
            encoders(simdutf, simdutf)
        );
        assert_eq!(
            choose(Some("always"), Some("icelake"), true),
            encoders(ours, ours)
        );
        assert_eq!(
            choose(Some("always"), Some("westmere"), true),
            encoders(ours, ours)
        );
        assert_eq!(
            choose(Some("always"), Some("fallback"), true),
            encoders(ours, ours)
        );
        assert_eq!(
            choose(Some("always"), Some("westmere"), false),
            Err(Refusal::Unsupported { value: "always" })
        );
        assert_eq!(
            choose(Some("ALWAYS"), haswell, true),
            Err(Refusal::Unknown {
                name: "ALWAYS".into(),
                known: KNOWN
            })
        );
    }

    /// MIME's lines (which simdutf's line encoder does not take) get ours
    /// wherever our encoder takes calls of their size, big or not.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn lines_take_ours_where_calls_of_their_size_do() {
        let mime = Lines {
            length: 76,
            line_break: LineBreak::CrLf,
        };
        let ours = |encoder| (encoder == Encoder::Avx2).then_some(Encoder::Avx2);
        let encoders = active();
        assert_eq!(line_encoder(mime, BIG_CALL - 1), ours(encoders.calls));
        assert_eq!(line_encoder(mime, BIG_CALL), ours(encoders.big_calls));
    }

    /// The process's encoders are the ones its environment asks for: the
    /// scripts run the tests once per kernel and choice and print which.
    #[test]
    #[cfg_attr(miri, ignore = "calls simdutf (C++), which Miri cannot run")]
    fn the_running_encoders_are_chosen() {
        let encoders = chosen().expect("the environment names a usable encoder");
        println!(
            "encoders: {} for calls, {} for big calls",
            encoders.calls.name(),
            encoders.big_calls.name()
        );
        assert_eq!(active(), encoders);
    }
}
