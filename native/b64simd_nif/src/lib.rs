//! The NIF: a thin rustler shim over `b64simd_core`. It converts terms,
//! allocates outputs and schedules the core's jobs; the codec, its rules and
//! what a call is charged are the core's.
//!
//! - `entry`, `calls`: the one-shot calls; `stream`: the streams' calls;
//! - `run`: a job run within one call or a slice at a time;
//! - `term`: binaries, errors, options; `enif`: the erl_nif calls of short
//!   calls, linked directly; `calibrate`: the kernel's speed at load;
//!   `hooks`: test and benchmark hooks (cargo feature `hooks` only).

mod calibrate;
mod calls;
mod enif;
mod entry;
#[cfg(feature = "hooks")]
mod hooks;
mod run;
mod stream;
mod term;

use b64simd_core::{encoder, kernel};
use rustler::{Env, Term};

mod atoms {
    rustler::atoms! {
        continue_ = "continue",
        error,
        ok,
        missing_padding,
        invalid_character,
        bad_padding,
        incomplete,
        non_canonical,
        undefined,
    }
}

/// The simdutf kernel this VM runs (`icelake`, `haswell`, ...): `b64simd:kernel/0`.
#[rustler::nif]
fn kernel() -> &'static str {
    kernel::active().unwrap_or("none")
}

/// The Base64 encoders this VM runs, for calls and for big calls, and
/// the input size from which a call is big: `b64simd:encoders/0`.
#[rustler::nif]
fn encoders() -> (&'static str, &'static str, usize) {
    let encoders = encoder::active();
    (
        encoders.calls.name(),
        encoders.big_calls.name(),
        encoder::BIG_CALL,
    )
}

fn load(_env: Env, _info: Term) -> bool {
    match kernel::active().and_then(|_| encoder::chosen()) {
        Ok(_) => {
            calibrate::calibrate();
            true
        }
        Err(message) => {
            eprintln!("b64simd: refusing to load: {message}");
            false
        }
    }
}

rustler::init!("b64simd_nif", load = load);
