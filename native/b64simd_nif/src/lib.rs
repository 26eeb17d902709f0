//! The NIF: a thin rustler shim over `b64simd_core`. Term conversion,
//! output allocation, reductions charged, time-sliced jobs, and loading.

mod calibrate;
mod charge;
mod decode;
mod direct;
mod encode;
#[cfg(feature = "hooks")]
mod hooks;
mod jobs;
mod stream;
mod term;

use b64simd_core::kernel;
use rustler::{Env, Term};

mod atoms {
    rustler::atoms! {
        continue_ = "continue",
        error,
        exact,
        missing_padding,
        invalid_character,
        bad_padding,
        incomplete,
        non_canonical,
        system_limit,
        undefined,
    }
}

/// The simdutf kernel this VM runs (`icelake`, `haswell`, ...): `b64simd:kernel/0`.
#[rustler::nif]
fn kernel() -> &'static str {
    kernel::active().unwrap_or("none")
}

fn load(_env: Env, _info: Term) -> bool {
    match kernel::active() {
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
