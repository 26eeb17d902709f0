//! Terms and binaries: new binaries for results, `{error, Reason, Byte}`,
//! the option flags, and the `system_limit` a failed allocation raises.

use crate::atoms;
use b64simd_core::error::DecodeError;
use b64simd_core::options::{DecodeOptions, EncodeOptions, Kind, Lines};
use rustler::{Encoder, Env, Error, NifResult, OwnedBinary, Term};

/// A new binary of `size` bytes (a heap binary up to 64) and its bytes,
/// to be filled before the call returns. `enif_make_new_binary` is
/// called directly: rustler's `NewBinary` comes back through memory in a
/// way that stalls store forwarding, a noticeable share of a short call.
#[inline(always)]
pub(crate) fn new_binary<'a>(env: Env<'a>, size: usize) -> (Term<'a>, &'a mut [u8]) {
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
            std::slice::from_raw_parts_mut(data, size)
        };
        (Term::new(env, term), bytes)
    }
}

/// `enif_alloc_binary`, but a failed allocation raises `system_limit`
/// (rustler's `OwnedBinary::new` returns `None` in 0.37 and aborts the VM
/// in 0.39).
pub(crate) fn alloc_binary(size: usize) -> NifResult<OwnedBinary> {
    let mut raw = std::mem::MaybeUninit::<rustler::sys::ErlNifBinary>::uninit();
    // SAFETY: enif_alloc_binary initialises `raw` when it returns true.
    let ok = unsafe { rustler::sys::enif_alloc_binary(size, raw.as_mut_ptr()) } != 0;
    if !ok {
        return Err(Error::RaiseAtom("system_limit"));
    }
    // SAFETY: allocated above; OwnedBinary releases it on drop.
    Ok(unsafe { OwnedBinary::from_raw(raw.assume_init()) })
}

/// Gives back the unused tail of a decode buffer in place (whitespace made the
/// maximal estimate too big); never a second full-size copy.
pub(crate) fn shrink(mut output: OwnedBinary, written: usize) -> OwnedBinary {
    if written < output.len() {
        // Shrinking realloc cannot fail in practice; if it did, the binary
        // keeps its size and we fall back to the copying variant.
        output.realloc_or_copy(written);
    }
    output
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
