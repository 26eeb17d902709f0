//! Output binaries, `{error, Reason, Byte}` and `system_limit` as terms.

use crate::atoms;
use b64simd_core::error::DecodeError;
use rustler::sys::{
    enif_alloc_binary, enif_make_binary, enif_make_new_binary, enif_make_sub_binary,
    enif_realloc_binary, enif_release_binary, ErlNifBinary,
};
use rustler::{Encoder, Env, Error, Term};
use std::mem::MaybeUninit;

/// A new binary of `size` bytes (a heap binary up to 64) and its unwritten memory, to
/// fill before the call returns; rustler's `NewBinary` lends it as `&mut [u8]`, as if written.
pub(crate) fn new_binary<'a>(env: Env<'a>, size: usize) -> (Term<'a>, &'a mut [MaybeUninit<u8>]) {
    let mut term = MaybeUninit::<rustler::sys::ERL_NIF_TERM>::uninit();
    // SAFETY: erl_nif sets the term and returns the new binary's `size` writable bytes (or
    // aborts the VM), alive as long as `env`; as `MaybeUninit<u8>` they need no initialising.
    unsafe {
        let data = enif_make_new_binary(env.as_c_arg(), size, term.as_mut_ptr());
        let bytes = match size {
            0 => &mut [],
            _ => std::slice::from_raw_parts_mut(data.cast::<MaybeUninit<u8>>(), size),
        };
        (Term::new(env, term.assume_init()), bytes)
    }
}

/// A binary from `enif_alloc_binary`, no process's until handed to a term, released on drop
/// unless it was; rustler's `OwnedBinary` lends its memory as `&mut [u8]`, as if written.
pub(crate) struct ErtsBinary(ErlNifBinary);

// SAFETY: an allocated binary belongs to no process or environment, so any
// thread may write it, release it or hand it to an environment.
unsafe impl Send for ErtsBinary {}

impl ErtsBinary {
    /// `size` bytes, or `system_limit` if erl_nif cannot allocate them.
    pub(crate) fn new(size: usize) -> Result<ErtsBinary, Error> {
        let mut binary = MaybeUninit::<ErlNifBinary>::uninit();
        // SAFETY: enif_alloc_binary takes no environment and fills in `binary` if it returns true.
        unsafe {
            match enif_alloc_binary(size, binary.as_mut_ptr()) {
                0 => Err(system_limit()),
                _ => Ok(ErtsBinary(binary.assume_init())),
            }
        }
    }

    /// Its memory, which erl_nif has not initialised.
    pub(crate) fn memory(&mut self) -> &mut [MaybeUninit<u8>] {
        if self.0.size == 0 {
            return &mut [];
        }
        // SAFETY: an allocated binary owns `size` writable bytes at `data`
        // until it is released or handed over, which take it by value.
        unsafe { std::slice::from_raw_parts_mut(self.0.data.cast(), self.0.size) }
    }

    /// Its first `len` bytes (at most its size), which a job wrote, as a
    /// binary term of `env`: shrunk in place when shorter, never copied.
    pub(crate) fn into_term(self, env: Env, len: usize) -> Term {
        debug_assert!(len <= self.0.size, "no more than it holds");
        let mut binary = std::mem::ManuallyDrop::new(self);
        let raw = &mut binary.0;
        // SAFETY: `raw` is an allocated binary nothing else refers to, handed to `env` (the
        // running call's) by enif_make_binary and never released here (`ManuallyDrop`).
        unsafe {
            // Shrinking cannot fail in practice; if it does, the first `len` bytes as a sub-binary.
            let term = if len < raw.size && enif_realloc_binary(raw, len) == 0 {
                let whole = enif_make_binary(env.as_c_arg(), raw);
                enif_make_sub_binary(env.as_c_arg(), whole, 0, len)
            } else {
                enif_make_binary(env.as_c_arg(), raw)
            };
            Term::new(env, term)
        }
    }
}

impl Drop for ErtsBinary {
    fn drop(&mut self) {
        // SAFETY: allocated (`new`), released once, here (`into_term` hands it over undropped).
        unsafe { enif_release_binary(&mut self.0) }
    }
}

/// The error of an allocation erl_nif refused.
pub(crate) fn system_limit() -> Error {
    Error::RaiseAtom("system_limit")
}

/// `{error, Reason, Byte}` for an error at an offset into `input`.
pub(crate) fn failed_at<'a>(env: Env<'a>, input: &[u8], error: DecodeError) -> Term<'a> {
    let byte = error.offset().and_then(|at| input.get(at).copied());
    error_term(env, error, byte)
}

/// Every decode's `{error, Reason, Byte}`, `Byte` the byte at the offset or `undefined`.
pub(crate) fn error_term<'a>(env: Env<'a>, error: DecodeError, byte: Option<u8>) -> Term<'a> {
    let byte = match byte {
        Some(byte) => byte.encode(env),
        None => atoms::undefined().encode(env),
    };
    let reason = match error {
        DecodeError::MissingPadding => atoms::missing_padding().encode(env),
        DecodeError::InvalidCharacter(at) => (atoms::invalid_character(), at).encode(env),
        DecodeError::BadPadding(at) => (atoms::bad_padding(), at).encode(env),
        DecodeError::Incomplete(at) => (atoms::incomplete(), at).encode(env),
        DecodeError::NonCanonical(at) => (atoms::non_canonical(), at).encode(env),
    };
    (atoms::error(), reason, byte).encode(env)
}
