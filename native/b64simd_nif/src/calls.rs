//! The one-shot calls: the core's job for the options, run by `run`. Arity 1 takes the
//! defaults, arity 2 an option map (Base16: its letter case); bad terms give `badarg`.

use crate::entry::nif;
use crate::options::{case_flags, flags};
use crate::run::{run, Input, NifJob};
use b64simd_core::base32::{Base32DecodeJob, Base32EncodeJob};
use b64simd_core::decode::mime::MimeJob;
use b64simd_core::decode::DecodeJob;
use b64simd_core::encode::wrap::WrapJob;
use b64simd_core::encode::EncodeJob;
use b64simd_core::error::DecodeError;
use b64simd_core::hex::{HexDecodeJob, HexEncodeJob};
use b64simd_core::options::{
    Base32DecodeOptions, Base32EncodeOptions, DecodeOptions, EncodeOptions, HexDecodeOptions,
    HexEncodeOptions, Kind, DEFAULT_FLAGS, HEX_DECODE_DEFAULT_FLAGS, HEX_ENCODE_DEFAULT_FLAGS,
};
use rustler::sys::ERL_NIF_TERM as RawTerm;
use rustler::{Encoder, Env, Error, NifResult, Term};

impl NifJob for EncodeJob {}
impl NifJob for WrapJob {}
impl NifJob for MimeJob {}
impl NifJob for HexEncodeJob {}
impl NifJob for Base32EncodeJob {}

/// A decode's result is its data; a validation's (into scratch) its verdict.
macro_rules! data_or_verdict {
    ($($job:ty),*) => {$(
        impl NifJob for $job {
            fn done<'a>(&self, env: Env<'a>, _: &[u8], data: Option<Term<'a>>) -> Term<'a> {
                match (self.validates(), data) {
                    (false, Some(data)) => data,
                    _ => true.encode(env),
                }
            }

            fn failed<'a>(&self, env: Env<'a>, input: &[u8], error: DecodeError) -> Term<'a> {
                match self.validates() {
                    true => false.encode(env),
                    false => crate::term::failed_at(env, input, error),
                }
            }
        }
    )*};
}

data_or_verdict!(DecodeJob, HexDecodeJob, Base32DecodeJob);

/// Registers `name/1` on the default flags and `name/2` on those `read(kind)` gives.
macro_rules! with_options {
    ($name:literal, $function:ident, $default:expr, $read:ident($kind:expr) $(, $extra:expr)?) => {
        nif!($name / 1, |env, [input]| $function(env, input, $default $(, $extra)?));
        nif!($name / 2, |env, [input, options]| {
            $function(env, input, $read($kind, options)? $(, $extra)?)
        });
    };
}

/// Options that `flags` give: `badarg` for bits the kind does not take.
fn of<T>(options: Option<T>) -> NifResult<T> {
    options.ok_or(Error::BadArg)
}

fn encode<'a>(env: Env<'a>, input: Term<'a>, flags: u64) -> NifResult<RawTerm> {
    let input = Input::of(input)?;
    match of(EncodeOptions::from_flags(flags))? {
        (opts, None) => run(env, EncodeJob::new(opts), input),
        (opts, Some(lines)) => run(env, WrapJob::new(opts, lines), input),
    }
}

with_options!("encode", encode, DEFAULT_FLAGS, flags(Kind::Encode));

fn decode<'a>(env: Env<'a>, input: Term<'a>, flags: u64) -> NifResult<RawTerm> {
    let input = Input::of(input)?;
    let opts = of(DecodeOptions::from_flags(flags, Kind::Decode))?;
    run(env, DecodeJob::new(input.bytes, opts), input)
}

with_options!("decode", decode, DEFAULT_FLAGS, flags(Kind::Decode));

/// Whether `decode` with these flags would accept the binary (into scratch only).
fn is_valid<'a>(env: Env<'a>, input: Term<'a>, flags: u64) -> NifResult<RawTerm> {
    let input = Input::of(input)?;
    let opts = of(DecodeOptions::from_flags(flags, Kind::Decode))?;
    run(env, DecodeJob::validating(input.bytes, opts), input)
}

with_options!("is_valid", is_valid, DEFAULT_FLAGS, flags(Kind::Decode));

/// OTP's `mime_decode`: every byte outside the alphabet skipped.
fn mime_decode<'a>(env: Env<'a>, input: Term<'a>, flags: u64) -> NifResult<RawTerm> {
    let input = Input::of(input)?;
    let opts = of(DecodeOptions::from_flags(flags, Kind::Mime))?;
    run(env, MimeJob::new(input.bytes, opts), input)
}

with_options!("mime_decode", mime_decode, DEFAULT_FLAGS, flags(Kind::Mime));

fn hex_encode<'a>(env: Env<'a>, input: Term<'a>, flags: u64) -> NifResult<RawTerm> {
    let opts = of(HexEncodeOptions::from_flags(flags))?;
    run(env, HexEncodeJob::new(opts), Input::of(input)?)
}

with_options!(
    "hex_encode",
    hex_encode,
    HEX_ENCODE_DEFAULT_FLAGS,
    case_flags(Kind::HexEncode)
);

/// Base16 decode, or with `validate` its verdict.
fn hex_decode<'a>(env: Env<'a>, input: Term<'a>, flags: u64, validate: bool) -> NifResult<RawTerm> {
    let opts = of(HexDecodeOptions::from_flags(flags))?;
    let job = match validate {
        true => HexDecodeJob::validating(opts),
        false => HexDecodeJob::new(opts),
    };
    run(env, job, Input::of(input)?)
}

with_options!(
    "hex_decode",
    hex_decode,
    HEX_DECODE_DEFAULT_FLAGS,
    case_flags(Kind::HexDecode),
    false
);
with_options!(
    "hex_is_valid",
    hex_decode,
    HEX_DECODE_DEFAULT_FLAGS,
    case_flags(Kind::HexDecode),
    true
);

nif!("base32_encode" / 2, |env, [input, options]| {
    let opts = of(Base32EncodeOptions::from_flags(flags(
        Kind::Base32Encode,
        options,
    )?))?;
    run(env, Base32EncodeJob::new(opts), Input::of(input)?)
});

/// Base32 decode, or with `validate` its verdict.
fn base32_decode<'a>(
    env: Env<'a>,
    input: Term<'a>,
    options: Term<'a>,
    validate: bool,
) -> NifResult<RawTerm> {
    let flags = flags(Kind::Base32Decode, options)?;
    let opts = of(Base32DecodeOptions::from_flags(flags))?;
    let input = Input::of(input)?;
    let job = match validate {
        true => Base32DecodeJob::validating(input.bytes, opts),
        false => Base32DecodeJob::new(input.bytes, opts),
    };
    run(env, job, input)
}

nif!("base32_decode" / 2, |env, [input, options]| {
    base32_decode(env, input, options, false)
});
nif!("base32_is_valid" / 2, |env, [input, options]| {
    base32_decode(env, input, options, true)
});
