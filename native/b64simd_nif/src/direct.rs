//! The hot entry points (`encode`, `decode`, `mime_decode`, `is_valid`,
//! each of arity 1 and 2), registered without rustler's `#[nif]` wrapper.

use crate::decode::{decode, is_valid, mime_decode};
use crate::encode::encode;
use b64simd_core::options::DEFAULT_FLAGS;
use rustler::{Env, NifResult, Term};

/// rustler's `#[nif]` wrapper collects the arguments into a heap-allocated
/// `Vec` on every call, which costs more than encoding 32 bytes, so the hot
/// entry points are registered directly. Measured against `#[rustler::nif]`
/// wrappers of the same functions (bench/b64simd_floor.erl, three
/// alternating runs, medians; a C NIF that reads its input and allocates
/// the result: 27.3 ns either way): at 32 B `encode/1` 40.6 against
/// 79.9 ns, `decode/1` 60.2 against 84.5 ns. The macro uses rustler's
/// `codegen_runtime`, which is not a stable API: hence rustler's exact pin.
macro_rules! direct_nif {
    ($erl_name:literal, $arity:literal, $function:ident, $flags:ident) => {
        rustler::codegen_runtime::inventory::submit!(rustler::Nif {
            name: concat!($erl_name, "\0").as_ptr() as *const rustler::codegen_runtime::c_char,
            arity: $arity,
            flags: 0,
            raw_func: {
                unsafe extern "C" fn raw(
                    nif_env: *mut rustler::sys::ErlNifEnv,
                    argc: rustler::codegen_runtime::c_int,
                    argv: *const rustler::sys::ErlNifTerm,
                ) -> rustler::sys::ErlNifTerm {
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
                    // The term comes back through `term`, not inside the
                    // closure's Result: the compiler built that Result
                    // with byte-sized stores and read it back whole, a
                    // failed store forwarding that perf put at 7% of a
                    // 64-byte decode.
                    let mut term = args[0]; // overwritten on success
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        $function(env, input, flags).map(|made| term = made.as_c_arg())
                    }));
                    match result {
                        Ok(Ok(())) => term,
                        Ok(Err(error)) => {
                            let failed: NifResult<Term> = Err(error);
                            rustler::codegen_runtime::handle_nif_result(Ok(failed), env).apply(env)
                        }
                        Err(panic) => {
                            let failed: std::thread::Result<NifResult<Term>> = Err(panic);
                            rustler::codegen_runtime::handle_nif_result(failed, env).apply(env)
                        }
                    }
                }
                raw
            },
        });
    };
}

/// The bytes of a binary term, read in place (`enif_inspect_binary`),
/// borrowed for the life of `env`: a term's bytes live as long as the
/// environment of the call that received it.
///
/// # Safety
/// `term` is a term of `env`, the running NIF call's environment.
unsafe fn inspect_binary<'a>(env: Env<'a>, term: rustler::sys::ErlNifTerm) -> Option<&'a [u8]> {
    let mut binary = std::mem::MaybeUninit::<rustler::sys::ErlNifBinary>::uninit();
    if rustler::sys::enif_inspect_binary(env.as_c_arg(), term, binary.as_mut_ptr()) == 0 {
        return None;
    }
    let binary = binary.assume_init();
    if binary.size == 0 {
        return Some(&[]);
    }
    Some(std::slice::from_raw_parts(binary.data, binary.size))
}

/// NAME/2's option flags: its second argument.
///
/// # Safety
/// As `inspect_binary`, for every term of `args`.
#[inline(always)]
unsafe fn flags_argument(
    env: *mut rustler::sys::ErlNifEnv,
    args: &[rustler::sys::ErlNifTerm],
) -> Option<u32> {
    let mut flags: rustler::sys::c_uint = 0;
    (rustler::sys::enif_get_uint(env, args[1], &mut flags) != 0).then_some(flags)
}

/// NAME/1's: the default options, a constant the compiler folds through
/// the function it calls, so neither reading nor checking flags is left
/// (a 32-byte `encode/1` 41.5-42.6 -> 35.8-36.2 ns, `decode/1` 52.1-55.2
/// -> 48.7-49.3 ns, `make bench`'s floor harness, three alternating runs).
///
/// # Safety
/// Reads nothing; `unsafe` only to share `flags_argument`'s signature.
#[inline(always)]
unsafe fn default_flags(
    _env: *mut rustler::sys::ErlNifEnv,
    _args: &[rustler::sys::ErlNifTerm],
) -> Option<u32> {
    Some(DEFAULT_FLAGS)
}

direct_nif!("encode", 1, encode, default_flags);
direct_nif!("encode", 2, encode, flags_argument);
direct_nif!("decode", 1, decode, default_flags);
direct_nif!("decode", 2, decode, flags_argument);
direct_nif!("mime_decode", 1, mime_decode, default_flags);
direct_nif!("mime_decode", 2, mime_decode, flags_argument);
direct_nif!("is_valid", 1, is_valid, default_flags);
direct_nif!("is_valid", 2, is_valid, flags_argument);
