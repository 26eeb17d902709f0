//! Test and benchmark hooks, compiled only with the `hooks` feature.

use crate::options::flags;
use crate::term::{error_term, new_binary, system_limit};
use b64simd_core::budget;
use b64simd_core::decode::DecodeJob;
use b64simd_core::encode::EncodeJob;
use b64simd_core::job::Job;
use b64simd_core::kernel;
use b64simd_core::options::{DecodeOptions, EncodeOptions, Kind};
use b64simd_core::output::{self, put};
use rustler::{Atom, Binary, Env, Error, NifResult, Term};
use std::collections::HashMap;

/// The kernels this CPU runs, best first (the tests run once per kernel, each in a fresh VM).
#[rustler::nif]
fn supported_kernels() -> Vec<&'static str> {
    kernel::supported()
}

/// Forces inputs above `bytes` into slices of `bytes`; 0 restores the table's slicing.
#[rustler::nif]
fn set_slice_bytes(bytes: usize) -> Atom {
    budget::force_slice_bytes(bytes);
    rustler::types::atom::ok()
}

/// The charge table as read here: `{TimesliceNs, UnchargedNs, #{Work => PsPerByte}}`.
#[rustler::nif]
fn charges(env: Env) -> NifResult<(u64, u64, HashMap<Atom, u64>)> {
    let rates = budget::ALL_WORK
        .into_iter()
        .map(|work| Ok((Atom::from_str(env, work.name())?, budget::ps_per_byte(work))))
        .collect::<NifResult<_>>()?;
    Ok((
        budget::TIMESLICE.as_nanos() as u64,
        budget::UNCHARGED_NS,
        rates,
    ))
}

/// For comparison only: `encode/2` in one call on a dirty CPU scheduler, as b64veryfast does.
#[rustler::nif(schedule = "DirtyCpu")]
fn encode_dirty<'a>(env: Env<'a>, input: Binary<'a>, options: Term<'a>) -> NifResult<Term<'a>> {
    let (opts, _) =
        EncodeOptions::from_flags(flags(Kind::Encode, options)?).ok_or(Error::BadArg)?;
    let mut job = EncodeJob::new(opts);
    let len = job.buffer(&input).ok_or_else(system_limit)?.size();
    let (term, output) = new_binary(env, len);
    let _ = job.run_to_end(&input, output, usize::MAX);
    Ok(term)
}

/// For comparison only: `decode/2` in one call on a dirty CPU scheduler.
#[rustler::nif(schedule = "DirtyCpu")]
fn decode_dirty<'a>(env: Env<'a>, input: Binary<'a>, options: Term<'a>) -> NifResult<Term<'a>> {
    let opts = DecodeOptions::from_flags(flags(Kind::Decode, options)?, Kind::Decode);
    let mut job = DecodeJob::new(&input, opts.ok_or(Error::BadArg)?);
    let len = job.buffer(&input).ok_or_else(system_limit)?.size();
    let (term, output) = new_binary(env, len);
    Ok(match job.run_to_end(&input, output, usize::MAX) {
        Ok(written) if written == output.len() => term,
        Ok(written) => {
            let (exact, bytes) = new_binary(env, written);
            // SAFETY: the job wrote the first `written` bytes (its `Ok`).
            put(bytes, unsafe { output::written(output, written) });
            exact
        }
        Err(error) => error_term(env, error, None),
    })
}
