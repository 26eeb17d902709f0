//! The NIF: a thin rustler shim over `b64simd_core`. It converts terms,
//! allocates outputs and schedules the core's jobs; the codec, its rules and
//! what a call is charged are the core's.
//!
//! - `calls`: the one-shot calls; `stream`: the streams' calls; each
//!   registered as `entry` says;
//! - `options`: option maps read into the core's options;
//! - `run`: a job run within one call or a slice at a time;
//! - `term`: output binaries and errors; `atoms`: the atoms they use;
//! - `hooks`: test and benchmark hooks (cargo feature `hooks` only).

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

/// The Base64 encoders this VM runs, for calls and for big calls, and
/// the input size from which a call is big: `b64simd:encoders/0`.
#[rustler::nif]
fn encoders() -> (&'static str, &'static str, usize) {
    let encoders = dispatch::active();
    (
        encoders.calls.name(),
        encoders.big_calls.name(),
        dispatch::BIG_CALL,
    )
}

/// Loads unless a variable forces a kernel or our own code this process
/// cannot run. A load callback can only answer yes or no (`erlang:load_nif/2`
/// then says "Library load-call unsuccessful"), but it runs in the process
/// that loads the library: so it sends that process why, as data, tagged
/// with the `load_info` term (a fresh reference `b64simd_nif:load/0`
/// waits for). Nothing else can carry it: a refused load leaves no module
/// to ask, and a value kept in the process (a variable, a file) would
/// outlive the load it explains.
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

/// Why this process cannot run the forced kernel or our own code, as the
/// reason `b64simd_messages` says in words, or None.
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
