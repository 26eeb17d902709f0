//! The NIF: a rustler shim that converts terms, allocates outputs and
//! schedules `b64simd_core`'s jobs; the codec, its rules and charges are the core's.

mod atoms;
mod calls;
mod entry;
#[cfg(feature = "hooks")]
mod hooks;
mod options;
mod run;
mod stream;
mod term;

use b64simd_core::dispatch::{self, Refusal as OwnAvx2Refusal};
use b64simd_core::kernel::{self, Refusal};
use rustler::{Encoder as _, Env, Term};

/// The simdutf kernel this VM runs (`icelake`, `haswell`, ...): `b64simd:kernel/0`.
#[rustler::nif]
fn kernel() -> &'static str {
    kernel::active().unwrap_or("none")
}

/// `b64simd:encoders/0`: the encoders for calls and big calls, and where big calls start.
#[rustler::nif]
fn encoders() -> (&'static str, &'static str, usize) {
    let encoders = dispatch::active();
    (
        encoders.calls.name(),
        encoders.big_calls.name(),
        dispatch::BIG_CALL,
    )
}

/// Loads unless a variable forces a kernel or our own code this process cannot run. A
/// load callback only answers yes or no, so it sends the loader why, tagged with `tag`
/// (`b64simd_nif:load/0`'s fresh reference): a refused load leaves no module to ask,
/// and state kept in the process (a variable, a file) would outlive the load it explains.
fn load(env: Env, tag: Term) -> bool {
    options::init(env);
    match refusal(env) {
        None => true,
        Some(reason) => {
            // A failed send leaves b64simd_nif:load/0 the load's own text.
            let _ = env.send(&env.pid(), (tag, reason));
            false
        }
    }
}

/// Why this process cannot run the forced kernel or our own code, as `b64simd_messages`' reason.
fn refusal(env: Env) -> Option<Term> {
    match kernel::active() {
        Err(Refusal::Unsupported { kernel, supported }) => {
            return Some((atoms::forced_kernel_unsupported(), kernel, supported).encode(env))
        }
        Err(Refusal::Unknown { name, known }) => {
            return Some((atoms::unknown_kernel(), name, known).encode(env))
        }
        Ok(_) => {}
    }
    match dispatch::chosen().err()? {
        OwnAvx2Refusal::Unsupported { value } => {
            Some((atoms::own_avx2_unsupported(), value).encode(env))
        }
        OwnAvx2Refusal::Unknown { name, known } => {
            Some((atoms::unknown_own_avx2(), name, known.to_vec()).encode(env))
        }
    }
}

rustler::init!("b64simd_nif", load = load);
