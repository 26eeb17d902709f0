//! The entry points of the hot calls (`encode`, `decode`, `mime_decode`,
//! `is_valid`, each of arity 1 and 2, those of Base16 and Base32, and the
//! streams'), registered without rustler's `#[nif]` wrapper, which collects
//! the arguments into a heap-allocated `Vec` on every call, a cost as large
//! as encoding a short input (`bench/README.md`). Each is a `rustler::Nif`,
//! the public record of one function that `rustler::init!` reads from the
//! `inventory` registry, as `#[nif]`'s are; what a call returns or raises is
//! made here from rustler's public `Error` and erl_nif's own calls. The
//! calls register their entry points beside themselves (`calls.rs`,
//! `stream.rs`), each named as its Rust function.

use rustler::types::atom::{self, Atom};
use rustler::{Encoder, Env, Error, NifResult, Term};

/// Registers `function/N`: `body` makes its result from the call's
/// environment, `env`, and its arguments, `args`, an array of its N raw
/// terms (so that a body reading another number of them does not compile).
/// `body` is an unsafe context, as the function is: each unsafe call in it
/// says why it holds. Without a body, `function(env, args)` takes its
/// arguments as terms (`on_terms`).
macro_rules! nif {
    ($function:ident, $arity:literal) => {
        $crate::entry::nif!($function, $arity, |env, args| {
            // SAFETY: `args` are the call's terms, of `env` (below).
            $crate::entry::on_terms(env, args, $function)
        });
    };
    ($function:ident, $arity:literal, |$env:ident, $args:ident| $body:expr) => {
        rustler::codegen_runtime::inventory::submit!(rustler::Nif {
            name: concat!(stringify!($function), "\0")
                .as_ptr()
                .cast::<std::ffi::c_char>(),
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
                    let $env = rustler::Env::new(&lifetime, nif_env);
                    if argc != $arity {
                        return rustler::sys::enif_make_badarg(nif_env);
                    }
                    let $args = &*argv.cast::<[rustler::sys::ERL_NIF_TERM; $arity]>();
                    $body
                }
                raw
            },
        });
    };
}
pub(crate) use nif;

/// Registers `function/2`, a call of `function(env, input_term, input,
/// flags)` on a binary with the flags its second argument is (an unsigned
/// 64-bit integer), and with `default` flags `function/1`, where they are
/// a constant folded through the function, so that neither reading nor
/// checking them is left. A bad argument raises `badarg` before anything
/// else is made; a good input's memory is asked for (`prefetch`) before
/// the call reads it.
macro_rules! entry {
    ($function:ident $(, $default:expr)?) => {
        $crate::entry::entry!(@nif $function, 2, $crate::entry::flags_argument);
        $($crate::entry::entry!(@nif $function, 1, |_, _| Some($default));)?
    };
    (@nif $function:ident, $arity:literal, $flags:expr) => {
        $crate::entry::nif!($function, $arity, |env, args| {
            // SAFETY: `args` are the call's terms, of `env` (`nif!`).
            let (Some(input), Some(flags)) =
                ($crate::entry::inspect_binary(env, args[0]), ($flags)(env, args))
            else {
                return rustler::sys::enif_make_badarg(env.as_c_arg());
            };
            $crate::entry::prefetch(input);
            let input_term = rustler::Term::new(env, args[0]);
            $crate::entry::guarded(env, args[0], || $function(env, input_term, input, flags))
        });
    };
}
pub(crate) use entry;

/// `function(env, args)`, the arguments as terms (`guarded`).
///
/// # Safety
/// `args` are terms of `env`, the running NIF call's environment.
#[inline(always)]
pub(crate) unsafe fn on_terms<'a, const N: usize>(
    env: Env<'a>,
    args: &[rustler::sys::ERL_NIF_TERM; N],
    function: impl FnOnce(Env<'a>, [Term<'a>; N]) -> NifResult<Term<'a>>,
) -> rustler::sys::ERL_NIF_TERM {
    let terms = std::array::from_fn(|i| Term::new(env, args[i]));
    guarded(env, args[0], || function(env, terms))
}

/// What `call` makes, run as rustler runs a function: its term, the
/// exception its `Error` stands for, or `nif_panicked` if it panicked.
///
/// # Safety
/// `env` is the running NIF call's environment and `placeholder` a term of
/// it (what `term` holds until the call has made its own).
#[inline(always)]
pub(crate) unsafe fn guarded<'a>(
    env: Env<'a>,
    placeholder: rustler::sys::ERL_NIF_TERM,
    call: impl FnOnce() -> NifResult<Term<'a>>,
) -> rustler::sys::ERL_NIF_TERM {
    // The term comes back through `term` and an error through `error`, not
    // inside the closure's Result, which the compiler built with byte-sized
    // stores and read back whole (a stalled store forwarding).
    let mut term = placeholder; // overwritten on success
    let mut error = None;
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match call() {
        Ok(made) => term = made.as_c_arg(),
        Err(failed) => error = Some(failed),
    }));
    // The common case asks only whether `error` is set: moved, it was read
    // in wider loads than its one store had made (a stalled store forward).
    if result.is_ok() && error.is_none() {
        return term;
    }
    match (result, error) {
        (Ok(()), Some(error)) => failure(env, error),
        (Ok(()), None) => term,
        // As rustler's own functions: a panic raises `nif_panicked`.
        (Err(_), _) => {
            rustler::sys::enif_raise_exception(env.as_c_arg(), atom::nif_panicked().as_c_arg())
        }
    }
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
#[inline(always)]
pub(crate) unsafe fn inspect_binary<'a>(
    env: Env<'a>,
    term: rustler::sys::ERL_NIF_TERM,
) -> Option<&'a [u8]> {
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

/// The bytes of a binary term (`inspect_binary`).
#[inline(always)]
pub(crate) fn binary_of<'a>(term: Term<'a>) -> Option<&'a [u8]> {
    // SAFETY: a `Term<'a>` is a term of its environment, valid for 'a.
    unsafe { inspect_binary(term.get_env(), term.as_c_arg()) }
}

/// An unsigned 64-bit integer term's value (`enif_get_uint64`).
#[inline(always)]
pub(crate) fn u64_of(term: Term) -> Option<u64> {
    let mut value: u64 = 0;
    // SAFETY: a `Term` is a term of its environment; erl_nif writes `value`
    // only, and only when it returns non-zero.
    let got = unsafe {
        crate::enif::enif_get_uint64(term.get_env().as_c_arg(), term.as_c_arg(), &mut value)
    };
    (got != 0).then_some(value)
}

/// NAME/2's option flags: its second argument (`u64_of`).
///
/// # Safety
/// `args` are terms of `env`, the running NIF call's environment.
#[inline(always)]
pub(crate) unsafe fn flags_argument(
    env: Env,
    args: &[rustler::sys::ERL_NIF_TERM; 2],
) -> Option<u64> {
    u64_of(Term::new(env, args[1]))
}

/// Asks the memory for every line of an input up to `PREFETCH_MAX` bytes
/// (and its last) at once, before anything reads it: the many-small-binaries
/// workloads read inputs that left the caches, and the lines then came one
/// miss after another as the call read them (`bench/README.md`, "The
/// workload's inputs, asked for at once"). A prefetch changes no result.
#[inline(always)]
pub(crate) fn prefetch(input: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let ahead = input.len().min(PREFETCH_MAX);
        for at in (0..ahead).step_by(64) {
            // SAFETY: a prefetch is a hint that neither reads memory a
            // program can observe nor faults, and `at` is within `input`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(input.as_ptr().add(at).cast()) };
        }
        if let Some(last) = input.last() {
            // SAFETY: as above, a hint for the line of the input's last byte.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(last).cast()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = input;
}

/// The inputs `prefetch` asks for whole: the small calls' sizes (the
/// per-size benchmark's largest); longer reads are the hardware
/// prefetcher's.
#[cfg(target_arch = "x86_64")]
const PREFETCH_MAX: usize = 4096;
