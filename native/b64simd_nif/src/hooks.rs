//! Hooks for the tests and the benchmark, compiled only with the `hooks`
//! feature: the kernels this CPU runs, the charge table, the switch that
//! forces tiny slices, the options' layout, and whole calls on a dirty
//! scheduler for the latency probe's comparison.

use crate::term::{decode_options, encode_options, error_term, new_binary, system_limit};
use b64simd_core::budget;
use b64simd_core::decode::DecodeJob;
use b64simd_core::encode::EncodeJob;
use b64simd_core::job::Job;
use b64simd_core::kernel;
use b64simd_core::options::{Kind, LAYOUT};
use b64simd_core::output::{self, put};
use rustler::{Atom, Binary, Encoder, Env, NifResult, Term};
use std::collections::HashMap;

/// The kernels this CPU can run, best first: the test script runs the
/// suites once per kernel, each in a fresh VM.
#[rustler::nif]
fn supported_kernels() -> Vec<&'static str> {
    kernel::supported()
}

/// Forces every input above `bytes` to be sliced, a step of `bytes` per
/// slice; 0 restores the table's slicing.
#[rustler::nif]
fn set_slice_bytes(bytes: usize) -> Atom {
    budget::force_slice_bytes(bytes);
    rustler::types::atom::ok()
}

/// The charge table as this process reads it: `{TimesliceNs, UnchargedNs,
/// #{Work => PsPerByte}}`, each kind of work's rate on the class of kernel
/// it runs on here.
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

/// The options each kind of call takes and each value's flag bits
/// (`options::LAYOUT`): `#{Kind => #{Key => #{Value => Bits}}}`, so that a
/// test holds Erlang's option table against it.
#[rustler::nif]
fn flag_layout(env: Env) -> Term {
    let mut kinds: HashMap<&str, HashMap<&str, HashMap<&str, u64>>> = HashMap::new();
    for (kind, key, values) in LAYOUT {
        let kind = kind.name();
        let values = values.iter().copied().collect();
        kinds.entry(kind).or_default().insert(key, values);
    }
    let atom = |name: &str| Atom::from_str(env, name).map(|a| a.encode(env));
    let map = |pairs: Vec<(Term, Term)>| Term::map_from_pairs(env, &pairs).ok();
    let layout = kinds.into_iter().map(|(kind, keys)| {
        let keys = keys.into_iter().map(|(key, values)| {
            let values = values
                .into_iter()
                .map(|(value, bits)| Some((atom(value).ok()?, bits.encode(env))))
                .collect::<Option<Vec<_>>>()?;
            Some((atom(key).ok()?, map(values)?))
        });
        Some((atom(kind).ok()?, map(keys.collect::<Option<Vec<_>>>()?)?))
    });
    match layout.collect::<Option<Vec<_>>>().and_then(map) {
        Some(term) => term,
        None => rustler::types::atom::error().encode(env),
    }
}

/// For comparison only: `encode/2` in one call on a dirty CPU scheduler, as
/// b64veryfast does above 2 MiB.
#[rustler::nif(schedule = "DirtyCpu")]
fn encode_dirty<'a>(env: Env<'a>, input: Binary<'a>, flags: u64) -> NifResult<Term<'a>> {
    let (opts, _) = encode_options(flags)?;
    let mut job = EncodeJob::new(opts);
    let len = job.buffer(&input).ok_or_else(system_limit)?.size();
    let (term, output) = new_binary(env, len);
    let _ = job.run_to_end(&input, output, usize::MAX);
    Ok(term)
}

/// For comparison only: `decode/2` in one call on a dirty CPU scheduler.
#[rustler::nif(schedule = "DirtyCpu")]
fn decode_dirty<'a>(env: Env<'a>, input: Binary<'a>, flags: u64) -> NifResult<Term<'a>> {
    let mut job = DecodeJob::new(&input, decode_options(flags, Kind::Decode)?);
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
