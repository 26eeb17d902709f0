//! Encode: one-shot, after a stream's carry, and line-wrapped.

use crate::charge::{charge, TIMED_CALL_BYTES};
use crate::jobs::start_job;
use crate::term::HEAP_BINARY_MAX;
use crate::term::{alloc_binary, encode_options, joined_len, new_binary, shrink, system_limit};
use b64simd_core::budget::{self, Work};
use b64simd_core::codec;
use b64simd_core::job::{EncodeJob, Job};
use b64simd_core::options::EncodeOptions;
use b64simd_core::wrap::{self, LineBreak, Lines, WrapJob};
use rustler::{Binary, Encoder, Env, Error, NifResult, Term};
use std::time::Instant;

/// Encodes a binary. Small and medium inputs are encoded here and now; an
/// input above one timeslice's worth starts a sliced job (`{continue, Job}`).
#[inline(always)]
pub(crate) fn encode<'a>(env: Env<'a>, input: &'a [u8], flags: u32) -> NifResult<Term<'a>> {
    let opts = encode_options(flags)?;
    let out_len = codec::encoded_len(input.len(), opts.padding).ok_or_else(system_limit)?;
    if budget::is_sliced(Work::Encode, input.len()) {
        let output = alloc_binary(out_len)?;
        return start_job(env, EncodeJob::new(opts), output, input);
    }
    let started = (input.len() >= TIMED_CALL_BYTES).then(Instant::now);
    let result = encode_now(env, input, opts, out_len)?;
    charge(env, Work::Encode, input.len(), started);
    Ok(result)
}

/// `encode/2` of `carry` (at most 2 bytes) followed by `data`, without
/// joining them first: `b64simd_stream` copied every chunk whole to put
/// the 1-2 bytes carried from the last one in front. The group they
/// share is encoded from a 3-byte buffer, the rest of `data` in place
/// (sliced like `encode/2`, the job reading `data`).
#[rustler::nif]
fn encode_after<'a>(
    env: Env<'a>,
    carry: Binary<'a>,
    data: Binary<'a>,
    flags: u32,
) -> NifResult<Term<'a>> {
    let data = data.as_slice();
    if carry.is_empty() {
        return encode(env, data, flags);
    }
    let opts = encode_options(flags)?;
    if carry.len() > 2 {
        return Err(Error::BadArg);
    }
    let total = joined_len(&carry, data)?;
    let out_len = codec::encoded_len(total, opts.padding).ok_or_else(system_limit)?;
    let (group, _, taken) = shared_group(&carry, data);
    if total <= 3 {
        return encode_now(env, &group[..total], opts, out_len);
    }
    let rest = &data[taken..];
    let mut output = alloc_binary(out_len)?;
    codec::encode_into(&group, opts, &mut output.as_mut_slice()[..4]);
    if budget::is_sliced(Work::Encode, rest.len()) {
        let job = EncodeJob::resume(opts, taken, 4);
        return start_job(env, job, output, data);
    }
    let started = (rest.len() >= TIMED_CALL_BYTES).then(Instant::now);
    codec::encode_into(rest, opts, &mut output.as_mut_slice()[4..]);
    charge(env, Work::Encode, rest.len(), started);
    Ok(output.release(env).encode(env))
}

/// The 3-byte group a stream's carry (at most 2 bytes) shares with the
/// first bytes of `data`: the group, its length (less than 3 only at the
/// very end), and how many bytes of `data` it took.
fn shared_group(carry: &[u8], data: &[u8]) -> ([u8; 3], usize, usize) {
    let taken = (3 - carry.len()).min(data.len());
    let mut group = [0u8; 3];
    group[..carry.len()].copy_from_slice(carry);
    group[carry.len()..carry.len() + taken].copy_from_slice(&data[..taken]);
    (group, carry.len() + taken, taken)
}

/// The line options of `encode_wrapped/4`; a line length of 0 is badarg.
fn lines_of(line_length: usize, lf: bool) -> NifResult<Lines> {
    if line_length == 0 {
        return Err(Error::BadArg);
    }
    let line_break = if lf { LineBreak::Lf } else { LineBreak::CrLf };
    Ok(Lines {
        length: line_length,
        line_break,
    })
}

/// The one-shot encode, into an output of the exact size.
#[inline(always)]
fn encode_now<'a>(
    env: Env<'a>,
    input: &[u8],
    opts: EncodeOptions,
    out_len: usize,
) -> NifResult<Term<'a>> {
    if out_len <= HEAP_BINARY_MAX {
        let (term, output) = new_binary(env, out_len);
        codec::encode_into(input, opts, output);
        Ok(term)
    } else {
        let mut output = alloc_binary(out_len)?;
        codec::encode_into(input, opts, output.as_mut_slice());
        Ok(output.release(env).encode(env))
    }
}

/// For comparison only (the latency probe): the whole input in one call on
/// a dirty CPU scheduler, as b64veryfast does above 2 MiB.
#[cfg(feature = "hooks")]
#[rustler::nif(schedule = "DirtyCpu")]
fn encode_dirty<'a>(env: Env<'a>, input: Binary<'a>, flags: u32) -> NifResult<Term<'a>> {
    let opts = encode_options(flags)?;
    let out_len = codec::encoded_len(input.len(), opts.padding).ok_or_else(system_limit)?;
    encode_now(env, &input, opts, out_len)
}

/// Encodes a binary wrapped in lines of `line_length` characters, with LF
/// breaks if `lf`, else CRLF. Sliced like `encode/2`.
#[rustler::nif]
fn encode_wrapped<'a>(
    env: Env<'a>,
    input: Binary<'a>,
    flags: u32,
    line_length: usize,
    lf: bool,
) -> NifResult<Term<'a>> {
    let opts = encode_options(flags)?;
    let lines = lines_of(line_length, lf)?;
    let out_len = wrap::wrapped_len(input.len(), opts.padding, lines).ok_or_else(system_limit)?;
    let mut output = alloc_binary(out_len)?;
    let cost = wrap::slice_cost(lines);
    if budget::is_sliced(Work::Encode, input.len().saturating_mul(cost)) {
        return start_job(env, WrapJob::new(opts, lines), output, &input);
    }
    let started = (input.len() >= TIMED_CALL_BYTES).then(Instant::now);
    wrap::encode_wrapped_into(&input, opts, lines, output.as_mut_slice());
    charge(env, Work::Encode, input.len().saturating_mul(cost), started);
    Ok(output.release(env).encode(env))
}

/// For `b64simd_stream`: `encode_wrapped/4` of `carry` (at most 2 bytes)
/// followed by `data`, continuing a text whose last line holds `column`
/// characters, without joining the two: the stream copied every piece
/// whole, and encoded its last lines again to get the break between
/// pieces.
#[rustler::nif]
fn encode_wrapped_after<'a>(
    env: Env<'a>,
    carry: Binary<'a>,
    data: Binary<'a>,
    flags: u32,
    line_length: usize,
    lf: bool,
    column: usize,
) -> NifResult<Term<'a>> {
    let opts = encode_options(flags)?;
    let lines = lines_of(line_length, lf)?;
    if column > line_length || carry.len() > 2 {
        return Err(Error::BadArg);
    }
    let total = joined_len(&carry, &data)?;
    let out_len =
        wrap::wrapped_len_after(total, opts.padding, lines, column).ok_or_else(system_limit)?;
    let mut output = alloc_binary(out_len)?;
    let job = if carry.is_empty() {
        WrapJob::after(opts, lines, column)
    } else {
        let (group, len, taken) = shared_group(&carry, &data);
        let output = output.as_mut_slice();
        WrapJob::after_group(opts, lines, column, &group[..len], taken, output)
    };
    let cost = wrap::slice_cost(lines);
    if budget::is_sliced(Work::Encode, data.len().saturating_mul(cost)) {
        return start_job(env, job, output, &data);
    }
    // Inline, charged as encode_wrapped/4 charges a call of this size.
    let mut job = job;
    let started = (data.len() >= TIMED_CALL_BYTES).then(Instant::now);
    // A wrap job never fails; if one did, badarg rather than a wrong text.
    let written = job
        .run_to_end(&data, output.as_mut_slice(), usize::MAX)
        .map_err(|_| Error::BadArg)?;
    charge(env, Work::Encode, data.len().saturating_mul(cost), started);
    Ok(shrink(output, written).release(env).encode(env))
}
