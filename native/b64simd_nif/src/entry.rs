//! The entry points of the hot calls (`encode`, `decode`, `mime_decode`,
//! `is_valid`, each of arity 1 and 2, and those of Base16 and Base32),
//! registered without rustler's `#[nif]` wrapper, which collects the
//! arguments into a heap-allocated `Vec` on every call, a cost as large as
//! encoding a short input (`bench/README.md`). Each is a `rustler::Nif`, the
//! public record of one function that `rustler::init!` reads from the
//! `inventory` registry, as `#[nif]`'s are; what a call returns or raises is
//! made here from rustler's public `Error` and erl_nif's own calls.

use crate::calls::{
    base32_decode, base32_encode, base32_is_valid, decode, encode, hex_decode, hex_encode,
    hex_is_valid, is_valid, mime_decode,
};
use b64simd_core::options::{DEFAULT_FLAGS, HEX_DECODE_DEFAULT_FLAGS};
use rustler::types::atom::{self, Atom};
use rustler::{Encoder, Env, Error, Term};

macro_rules! entry {
    ($erl_name:literal, $arity:literal, $function:ident, $flags:ident) => {
        inventory::submit!(rustler::Nif {
            name: concat!($erl_name, "\0").as_ptr().cast::<std::ffi::c_char>(),
            arity: $arity,
            flags: 0,
            raw_func: {
                unsafe extern "C" fn raw(
                    nif_env: *mut rustler::sys::ErlNifEnv,
                    argc: std::ffi::c_int,
                    argv: *const rustler::sys::ERL_NIF_TERM,
                ) -> rustler::sys::ERL_NIF_TERM {
                    // SAFETY, for the calls below: the VM calls this with the
                    // call's environment and `argc` terms at `argv`, all valid
                    // until it returns; `argc` is checked before `argv` is read.
                    let lifetime = ();
                    let env = Env::new(&lifetime, nif_env);
                    if argc != $arity {
                        return rustler::sys::enif_make_badarg(nif_env);
                    }
                    let args = std::slice::from_raw_parts(argv, $arity);
                    let (Some(input), Some(flags)) =
                        (inspect_binary(env, args[0]), $flags(nif_env, args))
                    else {
                        return rustler::sys::enif_make_badarg(nif_env);
                    };
                    let input_term = Term::new(env, args[0]);
                    // The term comes back through `term` and an error
                    // through `error`, not inside the closure's Result,
                    // which the compiler built with byte-sized stores and
                    // read back whole (a stalled store forwarding).
                    let mut term = args[0]; // overwritten on success
                    let mut error = None;
                    let result =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match $function(
                            env, input_term, input, flags,
                        ) {
                            Ok(made) => term = made.as_c_arg(),
                            Err(failed) => error = Some(failed),
                        }));
                    match (result, error) {
                        (Ok(()), None) => term,
                        (Ok(()), Some(error)) => failure(env, error),
                        // As rustler's own functions: a panic raises `nif_panicked`.
                        (Err(_), _) => rustler::sys::enif_raise_exception(
                            nif_env,
                            atom::nif_panicked().as_c_arg(),
                        ),
                    }
                }
                raw
            },
        });
    };
}

/// What a call that failed with `error` returns or raises, as rustler makes
/// it for its own functions: `badarg`, an atom, `{error, Term}`, or an
/// exception.
///
/// # Safety
/// `env` is the running NIF call's environment.
#[cold]
unsafe fn failure(env: Env, error: Error) -> rustler::sys::ERL_NIF_TERM {
    let raise = |term: Term| rustler::sys::enif_raise_exception(env.as_c_arg(), term.as_c_arg());
    let atom = |name: &str| Atom::from_str(env, name).unwrap_or_else(|_| atom::badarg());
    match error {
        Error::BadArg => rustler::sys::enif_make_badarg(env.as_c_arg()),
        Error::Atom(name) => atom(name).encode(env).as_c_arg(),
        Error::RaiseAtom(name) => raise(atom(name).encode(env)),
        Error::RaiseTerm(reason) => raise(reason.encode(env)),
        Error::Term(reason) => (atom::error(), reason.encode(env)).encode(env).as_c_arg(),
    }
}

/// The bytes of a binary term, read in place (`enif_inspect_binary`),
/// borrowed for the life of `env`: a term's bytes live as long as the
/// environment of the call that received it.
///
/// # Safety
/// `term` is a term of `env`, the running NIF call's environment.
unsafe fn inspect_binary<'a>(env: Env<'a>, term: rustler::sys::ERL_NIF_TERM) -> Option<&'a [u8]> {
    let mut binary = std::mem::MaybeUninit::<rustler::sys::ErlNifBinary>::uninit();
    if crate::enif::enif_inspect_binary(env.as_c_arg(), term, binary.as_mut_ptr()) == 0 {
        return None;
    }
    let binary = binary.assume_init();
    if binary.size == 0 {
        return Some(&[]);
    }
    Some(std::slice::from_raw_parts(binary.data, binary.size))
}

/// NAME/2's option flags: its second argument, an unsigned 64-bit integer.
///
/// # Safety
/// As `inspect_binary`, for every term of `args`.
#[inline(always)]
unsafe fn flags_argument(
    env: *mut rustler::sys::ErlNifEnv,
    args: &[rustler::sys::ERL_NIF_TERM],
) -> Option<u64> {
    let mut flags: u64 = 0;
    (crate::enif::enif_get_uint64(env, args[1], &mut flags) != 0).then_some(flags)
}

/// NAME/1's: the default options, a constant the compiler folds through the
/// function it calls, so that neither reading nor checking flags is left.
///
/// # Safety
/// Reads nothing; `unsafe` only to share `flags_argument`'s signature.
#[inline(always)]
unsafe fn default_flags(
    _env: *mut rustler::sys::ErlNifEnv,
    _args: &[rustler::sys::ERL_NIF_TERM],
) -> Option<u64> {
    Some(DEFAULT_FLAGS)
}

/// `hex_encode/1`'s: uppercase, OTP's `binary:encode_hex/1`.
///
/// # Safety
/// As `default_flags`.
#[inline(always)]
unsafe fn hex_encode_flags(
    _env: *mut rustler::sys::ErlNifEnv,
    _args: &[rustler::sys::ERL_NIF_TERM],
) -> Option<u64> {
    Some(0)
}

/// `hex_decode/1`'s and `hex_is_valid/1`'s: both cases, OTP's
/// `binary:decode_hex/1`.
///
/// # Safety
/// As `default_flags`.
#[inline(always)]
unsafe fn hex_decode_flags(
    _env: *mut rustler::sys::ErlNifEnv,
    _args: &[rustler::sys::ERL_NIF_TERM],
) -> Option<u64> {
    Some(HEX_DECODE_DEFAULT_FLAGS)
}

entry!("encode", 1, encode, default_flags);
entry!("encode", 2, encode, flags_argument);
entry!("decode", 1, decode, default_flags);
entry!("decode", 2, decode, flags_argument);
entry!("mime_decode", 1, mime_decode, default_flags);
entry!("mime_decode", 2, mime_decode, flags_argument);
entry!("is_valid", 1, is_valid, default_flags);
entry!("is_valid", 2, is_valid, flags_argument);
entry!("hex_encode", 1, hex_encode, hex_encode_flags);
entry!("hex_encode", 2, hex_encode, flags_argument);
entry!("hex_decode", 1, hex_decode, hex_decode_flags);
entry!("hex_decode", 2, hex_decode, flags_argument);
entry!("hex_is_valid", 1, hex_is_valid, hex_decode_flags);
entry!("hex_is_valid", 2, hex_is_valid, flags_argument);
entry!("base32_encode", 2, base32_encode, flags_argument);
entry!("base32_decode", 2, base32_decode, flags_argument);
entry!("base32_is_valid", 2, base32_is_valid, flags_argument);
