//! `nif!` registers a NIF as `#[rustler::nif]` does but hands it its terms as an
//! array, not a `Vec` built per call (`bench/README.md`, "Small calls"). `returned`
//! makes `Err(BadArg)` the atom `badarg`, which Erlang raises with the caller's
//! arguments, and raises other errors and panics.

use crate::atoms;
use rustler::types::atom::{self, Atom};
use rustler::{Encoder, Env, Error, NifResult, Term};

/// Registers `name/arity`: `|env, [args]| body`, `|env, args| body` or `function(env, args)`.
macro_rules! nif {
    ($name:literal / $arity:literal, |$env:ident, [$($arg:ident),*]| $body:expr) => {
        $crate::entry::nif!($name / $arity, |$env, args| {
            let [$($arg),*] = args;
            $body
        });
    };
    ($name:literal / $arity:literal, |$env:ident, $args:ident| $body:expr) => {
        rustler::codegen_runtime::inventory::submit!(rustler::Nif {
            name: concat!($name, "\0").as_ptr().cast::<std::ffi::c_char>(),
            arity: $arity,
            flags: 0,
            raw_func: {
                unsafe extern "C" fn raw(
                    env: *mut rustler::sys::ErlNifEnv,
                    _argc: std::ffi::c_int,
                    argv: *const rustler::sys::ERL_NIF_TERM,
                ) -> rustler::sys::ERL_NIF_TERM {
                    let lifetime = ();
                    // SAFETY: the VM passes the call's environment, valid until this
                    // returns, and at `argv` as many of its terms as the registered arity.
                    let ($env, $args) = unsafe {
                        let env = rustler::Env::new(&lifetime, env);
                        let args: [rustler::Term; $arity] =
                            std::array::from_fn(|i| rustler::Term::new(env, *argv.add(i)));
                        (env, args)
                    };
                    $crate::entry::returned($env, || $body)
                }
                raw
            },
        });
    };
    ($name:literal / $arity:literal, $function:path) => {
        $crate::entry::nif!($name / $arity, |env, args| $function(env, args));
    };
}
pub(crate) use nif;

/// A call's term, rustler's or erl_nif's: the calls running a job return erl_nif's, as a
/// `NifResult<Term>` stalled store forwarding (`bench/README.md`, "Small calls").
pub(crate) trait Made {
    fn raw(self) -> rustler::sys::ERL_NIF_TERM;
}

impl Made for Term<'_> {
    fn raw(self) -> rustler::sys::ERL_NIF_TERM {
        self.as_c_arg()
    }
}

impl Made for rustler::sys::ERL_NIF_TERM {
    fn raw(self) -> rustler::sys::ERL_NIF_TERM {
        self
    }
}

/// The term a call's result is: see the module's doc.
pub(crate) fn returned<T: Made>(
    env: Env,
    call: impl FnOnce() -> NifResult<T>,
) -> rustler::sys::ERL_NIF_TERM {
    let raise = |reason: Term| {
        // SAFETY: `reason` is a term of `env`, the running call's, the call returns the exception.
        unsafe { rustler::sys::enif_raise_exception(env.as_c_arg(), reason.as_c_arg()) }
    };
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(call)) {
        Ok(Ok(term)) => term.raw(),
        Ok(Err(Error::BadArg)) => atoms::badarg().to_term(env).as_c_arg(),
        Ok(Err(Error::RaiseAtom(name))) => raise(
            Atom::from_str(env, name)
                .unwrap_or_else(|_| atom::badarg())
                .encode(env),
        ),
        Ok(Err(_)) => raise(atom::badarg().encode(env)),
        Err(_) => raise(atom::nif_panicked().encode(env)),
    }
}
