//! Terms and binaries: new binaries for results, `{error, Reason, Byte}`,
//! the option flags, and the `system_limit` a failed allocation raises.

use crate::atoms;
use crate::enif::{
    enif_alloc_binary, enif_make_binary, enif_make_sub_binary, enif_realloc_binary,
    enif_release_binary,
};
use b64simd_core::error::DecodeError;
use b64simd_core::options::{DecodeOptions, EncodeOptions, Kind, Lines};
use rustler::sys::ErlNifBinary;
use rustler::{Encoder, Env, Error, NifResult, Term};
use std::mem::MaybeUninit;

/// A term as erl_nif has it, which the hot calls pass around instead of
/// rustler's `Term`: that holds its environment's kind in a byte, and
/// moved through memory it was copied in whole words that waited on that
/// byte's store (a stalled store forward, a noticeable share of a call).
pub(crate) type RawTerm = rustler::sys::ERL_NIF_TERM;

/// A new binary of `size` bytes (a heap binary up to 64) and its memory,
/// not yet written, to be filled before the call returns. `enif_make_new_binary` is
/// called directly: rustler's `NewBinary` comes back through memory in a
/// way that stalls store forwarding, a noticeable share of a short call.
#[inline(always)]
pub(crate) fn new_binary<'a>(env: Env<'a>, size: usize) -> (Term<'a>, &'a mut [MaybeUninit<u8>]) {
    let mut term = std::mem::MaybeUninit::<rustler::sys::ERL_NIF_TERM>::uninit();
    // SAFETY: erl_nif sets the term and returns `size` writable bytes (or
    // aborts the VM when out of memory), which belong to the new binary
    // and live as long as the calling environment.
    unsafe {
        let data = crate::enif::enif_make_new_binary(env.as_c_arg(), size, term.as_mut_ptr());
        let term = term.assume_init();
        let bytes = if size == 0 {
            &mut []
        } else {
            std::slice::from_raw_parts_mut(data.cast::<MaybeUninit<u8>>(), size)
        };
        (Term::new(env, term), bytes)
    }
}

/// A binary allocated for a result, through erl_nif's own functions where
/// the library links them (`enif`), and released on drop unless it became
/// a term. Allocated in place (`allocate`), as the hot
/// calls' output is: moved after erl_nif had filled it in, it was copied
/// in pieces that stalled store forwarding, a noticeable share of a call.
pub(crate) struct ErtsBinary(ErlNifBinary);

// SAFETY: an allocated binary belongs to no process or environment, so any
// thread may write it, release it or hand it to an environment.
unsafe impl Send for ErtsBinary {}

impl ErtsBinary {
    /// No binary yet (`allocate` makes one).
    pub(crate) fn unallocated() -> ErtsBinary {
        // SAFETY: an `ErlNifBinary` is integers and raw pointers, all of
        // which may be zero; a null `data` means no binary.
        ErtsBinary(unsafe { std::mem::MaybeUninit::zeroed().assume_init() })
    }

    /// `size` bytes, or `None` if erl_nif cannot allocate them.
    pub(crate) fn new(size: usize) -> Option<ErtsBinary> {
        let mut binary = ErtsBinary::unallocated();
        binary.allocate(size).then_some(binary)
    }

    /// Allocates `size` bytes in place of none; false if erl_nif cannot.
    #[inline(always)]
    pub(crate) fn allocate(&mut self, size: usize) -> bool {
        debug_assert!(self.0.data.is_null(), "allocated once");
        // SAFETY: enif_alloc_binary takes no environment, so no process's
        // state is touched from this thread; it fills in `self.0` (its
        // size, data and ref_bin) when it returns true.
        let allocated = unsafe { enif_alloc_binary(size, &mut self.0) != 0 };
        if !allocated {
            // What erl_nif leaves in a binary it could not allocate is not
            // documented: unallocated is a null `data`, so nothing is released.
            self.0.data = std::ptr::null_mut();
        }
        allocated
    }

    /// Its memory, which erl_nif has not initialised.
    pub(crate) fn as_mut_slice(&mut self) -> &mut [MaybeUninit<u8>] {
        if self.0.data.is_null() || self.0.size == 0 {
            return &mut [];
        }
        // SAFETY: an allocated binary owns `size` writable bytes at `data`
        // until it is released, which only `drop` and `hand_over` do; as
        // `MaybeUninit<u8>` they need not be initialised.
        unsafe { std::slice::from_raw_parts_mut(self.0.data.cast(), self.0.size) }
    }

    /// Its first `len` bytes (at most its size) as a binary term of `env`,
    /// which takes it over: shrunk in place when shorter, never copied. It
    /// is unallocated after; an unallocated one gives an empty binary.
    #[inline(always)]
    pub(crate) fn hand_over(&mut self, env: Env, len: usize) -> RawTerm {
        if self.0.data.is_null() {
            return new_binary(env, 0).0.as_c_arg();
        }
        debug_assert!(len <= self.0.size, "no more than it holds");
        let raw = &mut self.0;
        // SAFETY: `raw` is an allocated binary that nothing else refers to,
        // handed over to `env` by enif_make_binary (and marked unallocated
        // below, so never released here); `env` is the running call's
        // environment.
        let term = unsafe {
            // Shrinking cannot fail in practice; if it did, the result is
            // the first `len` bytes of the whole, as a sub-binary.
            if len < raw.size && enif_realloc_binary(raw, len) == 0 {
                let whole = enif_make_binary(env.as_c_arg(), raw);
                enif_make_sub_binary(env.as_c_arg(), whole, 0, len)
            } else {
                enif_make_binary(env.as_c_arg(), raw)
            }
        };
        raw.data = std::ptr::null_mut();
        term
    }
}

impl Drop for ErtsBinary {
    fn drop(&mut self) {
        if !self.0.data.is_null() {
            // SAFETY: allocated (`allocate`) and released once, here
            // (`hand_over` hands it over instead and unallocates it).
            unsafe { enif_release_binary(&mut self.0) }
        }
    }
}

/// A binary of `size` bytes for a result, or `system_limit` raised.
pub(crate) fn result_binary(size: usize) -> NifResult<ErtsBinary> {
    ErtsBinary::new(size).ok_or_else(system_limit)
}

/// Lazily, for `ok_or_else`: an eager `ok_or(Error::..)` builds and
/// drops an `Error` on every successful call.
pub(crate) fn system_limit() -> Error {
    Error::RaiseAtom("system_limit")
}

/// `{error, Reason, Byte}`: every decode's error, `Byte` the byte at the
/// reason's offset (or `undefined`), which the message shows.
pub(crate) fn error_term<'a>(env: Env<'a>, error: DecodeError, byte: Option<u8>) -> Term<'a> {
    let byte = match byte {
        Some(byte) => byte.encode(env),
        None => atoms::undefined().encode(env),
    };
    (atoms::error(), reason_term(env, error), byte).encode(env)
}

/// `{Kind, Offset}`, or `missing_padding`.
pub(crate) fn reason_term<'a>(env: Env<'a>, error: DecodeError) -> Term<'a> {
    match error {
        DecodeError::MissingPadding => atoms::missing_padding().encode(env),
        DecodeError::InvalidCharacter(at) => (atoms::invalid_character(), at).encode(env),
        DecodeError::BadPadding(at) => (atoms::bad_padding(), at).encode(env),
        DecodeError::Incomplete(at) => (atoms::incomplete(), at).encode(env),
        DecodeError::NonCanonical(at) => (atoms::non_canonical(), at).encode(env),
    }
}

#[inline(always)]
pub(crate) fn encode_options(flags: u64) -> NifResult<(EncodeOptions, Option<Lines>)> {
    EncodeOptions::from_flags(flags).ok_or_else(|| Error::BadArg)
}

#[inline(always)]
pub(crate) fn decode_options(flags: u64, kind: Kind) -> NifResult<DecodeOptions> {
    DecodeOptions::from_flags(flags, kind).ok_or_else(|| Error::BadArg)
}

/// Options a NIF's flags gave, or `badarg` for flags its kind does not take.
#[inline(always)]
pub(crate) fn options<T>(options: Option<T>) -> NifResult<T> {
    options.ok_or(Error::BadArg)
}
