//! Decode: one-shot, OTP's `mime_decode`, and `is_valid`.

use crate::charge::{charge, charge_decode, TIMED_CALL_BYTES};
use crate::jobs::start_job;
use crate::term::HEAP_BINARY_MAX;
use crate::term::{alloc_binary, decode_options, error_term, new_binary, shrink};
use b64simd_core::budget::{self, Work};
use b64simd_core::codec;
use b64simd_core::engine::DecodeJob;
use b64simd_core::mime::{self, MimeJob};
use b64simd_core::options::DecodeOptions;
use b64simd_core::scalar::DecodeError;
use b64simd_core::validate::{self, ValidateJob};
#[cfg(feature = "hooks")]
use rustler::Binary;
use rustler::{Encoder, Env, Error, NifResult, Term};
use std::time::Instant;

/// Decodes a binary: the decoded binary, `{error, Reason}`, or for a big
/// input `{continue, Job}`.
#[inline(always)]
pub(crate) fn decode<'a>(env: Env<'a>, input: &'a [u8], flags: u32) -> NifResult<Term<'a>> {
    let opts = decode_options(flags)?;
    if budget::is_sliced(Work::Decode, input.len()) {
        let output = alloc_binary(codec::decoded_len_bound(input))?;
        return start_job(env, DecodeJob::new(opts), output, input);
    }
    let started = (input.len() >= TIMED_CALL_BYTES).then(Instant::now);
    let (result, held_whitespace) = decode_now(env, input, opts, |e| error_term(env, e))?;
    charge_decode(env, input.len(), held_whitespace, started);
    Ok(result)
}

/// A one-shot decode (`decode` writes into the buffer it is given, which
/// holds `max_len` bytes) as a term: a small result straight into a heap
/// binary, a big one into a binary of `max_len` shrunk in place.
/// `max_len` is exact unless the input holds whitespace; a heap binary
/// cannot shrink, so then the written part is copied into a new one.
/// Also says whether it did hold whitespace (wrote less than `max_len`).
/// An error is the term `error_term` makes of it.
#[inline(always)]
fn decode_to_term<'a>(
    env: Env<'a>,
    max_len: usize,
    decode: impl FnOnce(&mut [u8]) -> Result<usize, DecodeError>,
    error_term: impl FnOnce(DecodeError) -> Term<'a>,
) -> NifResult<(Term<'a>, bool)> {
    if max_len <= HEAP_BINARY_MAX {
        let (term, output) = new_binary(env, max_len);
        Ok(match decode(output) {
            Ok(written) if written == max_len => (term, false),
            Ok(written) => {
                let (exact, bytes) = new_binary(env, written);
                bytes.copy_from_slice(&output[..written]);
                (exact, true)
            }
            Err(error) => (error_term(error), false),
        })
    } else {
        let mut output = alloc_binary(max_len)?;
        Ok(match decode(output.as_mut_slice()) {
            Ok(written) => {
                let short = written < max_len;
                (shrink(output, written).release(env).encode(env), short)
            }
            Err(error) => (error_term(error), false),
        })
    }
}

/// The one-shot decode, and whether the input held whitespace inside
/// (whitespace around it is trimmed first: `codec::trim_whitespace`). An
/// error is the term `error_term` makes of it.
#[inline(always)]
pub(crate) fn decode_now<'a>(
    env: Env<'a>,
    input: &[u8],
    opts: DecodeOptions,
    error_term: impl FnOnce(DecodeError) -> Term<'a>,
) -> NifResult<(Term<'a>, bool)> {
    let (trimmed, cut) = codec::trim_whitespace(input, opts);
    decode_to_term(
        env,
        codec::decoded_len_bound(trimmed),
        |output| codec::decode_into(trimmed, opts, output).map_err(|error| error.shifted(cut)),
        error_term,
    )
}

/// For comparison only: `decode/2` in one call on a dirty CPU scheduler.
#[cfg(feature = "hooks")]
#[rustler::nif(schedule = "DirtyCpu")]
fn decode_dirty<'a>(env: Env<'a>, input: Binary<'a>, flags: u32) -> NifResult<Term<'a>> {
    let opts = decode_options(flags)?;
    Ok(decode_now(env, &input, opts, |e| error_term(env, e))?.0)
}

/// OTP's `mime_decode`: every byte outside the alphabet skipped. Only the
/// mode and padding flags apply. Sliced like `decode/2`.
pub(crate) fn mime_decode<'a>(env: Env<'a>, input: &'a [u8], flags: u32) -> NifResult<Term<'a>> {
    let opts = decode_options(flags)?;
    if opts.reject_whitespace || opts.canonical {
        return Err(Error::BadArg);
    }
    let max_len = codec::maximal_decoded_len(input.len());
    let cost = mime::SLICE_COST;
    if budget::is_sliced(Work::Decode, input.len().saturating_mul(cost)) {
        let output = alloc_binary(max_len)?;
        return start_job(env, MimeJob::new(opts), output, input);
    }
    let started = (input.len() >= TIMED_CALL_BYTES).then(Instant::now);
    let (result, _) = decode_to_term(
        env,
        max_len,
        |output| mime::mime_decode_into(input, opts, output),
        |error| error_term(env, error),
    )?;
    charge(env, Work::Decode, input.len().saturating_mul(cost), started);
    Ok(result)
}

/// Whether `try_decode/2` with these flags would accept the binary,
/// decoding into a small scratch buffer only: `true`, `false`, or for a
/// big input `{continue, Job}` (the job's output is that scratch).
pub(crate) fn is_valid<'a>(env: Env<'a>, input: &'a [u8], flags: u32) -> NifResult<Term<'a>> {
    let opts = decode_options(flags)?;
    if budget::is_sliced(Work::Decode, input.len()) {
        let scratch = alloc_binary(validate::SCRATCH)?;
        return start_job(env, ValidateJob::new(opts), scratch, input);
    }
    let started = (input.len() >= TIMED_CALL_BYTES).then(Instant::now);
    let valid = validate::is_valid(input, opts);
    charge(env, Work::Decode, input.len(), started);
    Ok(valid.encode(env))
}
