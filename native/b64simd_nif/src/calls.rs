//! The one-shot calls: `encode`, `decode`, `mime_decode` and `is_valid`,
//! and their Base16 and Base32 counterparts, each the core's job for its
//! options, run by `run`, and their entry points (`entry`).

use crate::entry::entry;
use crate::run::{failed_at, run, NifJob, Written};
use crate::term::{decode_options, encode_options, options, RawTerm};
use b64simd_core::base32::{Base32DecodeJob, Base32EncodeJob};
use b64simd_core::decode::mime::MimeJob;
use b64simd_core::decode::DecodeJob;
use b64simd_core::encode::wrap::WrapJob;
use b64simd_core::encode::EncodeJob;
use b64simd_core::error::DecodeError;
use b64simd_core::hex::{HexDecodeJob, HexEncodeJob};
use b64simd_core::options::{
    Base32DecodeOptions, Base32EncodeOptions, EncodeOptions, HexDecodeOptions, HexEncodeOptions,
    Kind, Lines, DEFAULT_FLAGS, HEX_DECODE_DEFAULT_FLAGS, HEX_ENCODE_DEFAULT_FLAGS,
};
use rustler::{Encoder, Env, NifResult, Term};

impl NifJob for EncodeJob {}
impl NifJob for WrapJob {}
impl NifJob for MimeJob {}
impl NifJob for HexEncodeJob {}
impl NifJob for Base32EncodeJob {}

/// Encodes a binary, plain or wrapped as the flags say.
#[inline(always)]
pub(crate) fn encode<'a>(
    env: Env<'a>,
    term: Term<'a>,
    input: &[u8],
    flags: u64,
) -> NifResult<Term<'a>> {
    let (opts, lines) = encode_options(flags)?;
    match lines {
        None => run(env, EncodeJob::new(opts), term, input),
        Some(lines) => wrap(env, opts, lines, term, input),
    }
}

/// Encodes a binary in lines. Out of line: inlined beside the plain
/// encode, it made every encode with options slower.
#[inline(never)]
fn wrap<'a>(
    env: Env<'a>,
    opts: EncodeOptions,
    lines: Lines,
    term: Term<'a>,
    input: &[u8],
) -> NifResult<Term<'a>> {
    run(env, WrapJob::new(opts, lines), term, input)
}

entry!(encode, DEFAULT_FLAGS);

/// The one-shot calls whose job is made from the input and the flags alone:
/// each is `run` of that job, so the shape is written once, with its entry
/// points (`name/1` where the call has default flags, `= DEFAULT`).
macro_rules! one_shot {
    ($(
        $(#[$attr:meta])*
        $name:ident($input:ident, $flags:ident $(= $default:expr)?) => $job:expr;
    )*) => {$(
        $(#[$attr])*
        pub(crate) fn $name<'a>(
            env: Env<'a>,
            term: Term<'a>,
            $input: &[u8],
            $flags: u64,
        ) -> NifResult<Term<'a>> {
            run(env, $job, term, $input)
        }
        entry!($name $(, $default)?);
    )*};
}

one_shot! {
    /// Decodes a binary: the data, or `{error, Reason, Byte}`.
    #[inline(always)]
    decode(input, flags = DEFAULT_FLAGS) =>
        DecodeJob::new(input, decode_options(flags, Kind::Decode)?);

    /// OTP's `mime_decode`: every byte outside the alphabet skipped.
    mime_decode(input, flags = DEFAULT_FLAGS) =>
        MimeJob::new(input, decode_options(flags, Kind::Mime)?);

    /// Whether `decode` with these flags would accept the binary, decoding
    /// into scratch only: `true` or `false`. Inlined into its entry points,
    /// as `decode` is: out of line, a 4 KiB validation measured slower
    /// (`bench/README.md`, "Before and after").
    #[inline(always)]
    is_valid(input, flags = DEFAULT_FLAGS) =>
        DecodeJob::validating(input, decode_options(flags, Kind::Decode)?);

    /// Base16: a binary as hex digits of the flags' case.
    #[inline(always)]
    hex_encode(input, flags = HEX_ENCODE_DEFAULT_FLAGS) =>
        HexEncodeJob::new(options(HexEncodeOptions::from_flags(flags))?);

    /// Base16 decode: the data, or `{error, Reason, Byte}`.
    #[inline(always)]
    hex_decode(input, flags = HEX_DECODE_DEFAULT_FLAGS) =>
        HexDecodeJob::new(options(HexDecodeOptions::from_flags(flags))?);

    /// Whether `hex_decode` would accept the binary: writes nothing.
    #[inline(always)]
    hex_is_valid(input, flags = HEX_DECODE_DEFAULT_FLAGS) =>
        HexDecodeJob::validating(options(HexDecodeOptions::from_flags(flags))?);

    /// Base32, either alphabet, either case, padded or not.
    base32_encode(input, flags) =>
        Base32EncodeJob::new(options(Base32EncodeOptions::from_flags(flags))?);

    /// Base32 decode: the data, or `{error, Reason, Byte}`.
    base32_decode(input, flags) =>
        Base32DecodeJob::new(input, options(Base32DecodeOptions::from_flags(flags))?);

    /// Whether `base32_decode` would accept the binary, decoding into scratch.
    base32_is_valid(input, flags) =>
        Base32DecodeJob::validating(input, options(Base32DecodeOptions::from_flags(flags))?);
}

/// A decode's result is its data; a validation's (whose output is only
/// scratch) its verdict.
macro_rules! data_or_verdict {
    ($($job:ty),*) => {$(
        impl NifJob for $job {
            #[inline(always)]
            fn done<'a>(&self, env: Env<'a>, _: &[u8], written: Written<'_, 'a, '_>) -> RawTerm {
                match self.validates() {
                    true => true.encode(env).as_c_arg(),
                    false => written.binary(env),
                }
            }

            fn failed(&self, env: Env, input: &[u8], error: DecodeError) -> RawTerm {
                match self.validates() {
                    true => false.encode(env).as_c_arg(),
                    false => failed_at(env, input, error),
                }
            }
        }
    )*};
}

data_or_verdict!(DecodeJob, HexDecodeJob, Base32DecodeJob);
