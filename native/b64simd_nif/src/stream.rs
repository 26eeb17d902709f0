//! `b64simd_stream`'s NIFs: a piece, or the end, of an encoding or a
//! decoding stream. A stream's state is either its options' flags (a new
//! stream) or the bytes the last call wrote; the core reads and writes
//! them, Erlang only passes them along.

use crate::entry::{binary_of, nif, u64_of};
use crate::run::{run, NifJob, Written};
use crate::term::{error_term, new_binary, system_limit, RawTerm};
use b64simd_core::error::DecodeError;
use b64simd_core::stream::decode::{Carry, DecodeEnd, DecodePiece};
use b64simd_core::stream::encode::{EncodePiece, EncodeStream};
use rustler::{Encoder, Env, Error, NifResult, Term};

/// A stream's state term: flags, or state bytes.
#[inline(always)]
fn state_of<S>(
    term: Term,
    new: impl FnOnce(u64) -> Option<S>,
    read: impl FnOnce(&[u8]) -> Option<S>,
) -> NifResult<S> {
    let state = match u64_of(term) {
        Some(flags) => new(flags),
        None => read(binary_of(term).ok_or(Error::BadArg)?),
    };
    state.ok_or(Error::BadArg)
}

/// `{Base64, State}`, or at the stream's end the Base64 alone.
impl NifJob for EncodePiece {
    fn done<'a>(&self, env: Env<'a>, _: &[u8], written: Written<'_, 'a, '_>) -> RawTerm {
        let base64 = written.binary(env);
        let Some(next) = self.next() else {
            return base64;
        };
        let (state, bytes) = new_binary(env, next.state_len());
        next.write_state(bytes);
        // SAFETY: made in `env` by `written.binary`.
        (unsafe { Term::new(env, base64) }, state)
            .encode(env)
            .as_c_arg()
    }
}

/// The Base64 of the whole groups of the carry and `piece`, and the
/// stream's next state: `{Base64, State}`, or `{continue, Job}`.
fn encode_stream<'a>(env: Env<'a>, [state, piece]: [Term<'a>; 2]) -> NifResult<Term<'a>> {
    let stream = state_of(state, EncodeStream::new, EncodeStream::from_state)?;
    let bytes = binary_of(piece).ok_or(Error::BadArg)?;
    let job = stream.piece(bytes).ok_or_else(system_limit)?;
    run(env, job, piece, bytes)
}

nif!(encode_stream, 2);

/// The end of an encoding stream: the Base64 of what it carries.
fn encode_stream_end<'a>(env: Env<'a>, [state]: [Term<'a>; 1]) -> NifResult<Term<'a>> {
    let stream = state_of(state, EncodeStream::new, EncodeStream::from_state)?;
    let nothing = new_binary(env, 0).0;
    run(env, stream.end(), nothing, &[])
}

nif!(encode_stream_end, 1);

/// `{Data, State}`; an error is the stream's, at its stream offset, with
/// the byte there.
impl NifJob for DecodePiece {
    fn done<'a>(&self, env: Env<'a>, piece: &[u8], written: Written<'_, 'a, '_>) -> RawTerm {
        let (state, bytes) = new_binary(env, self.next_state_len());
        self.write_next_state(piece, bytes);
        // SAFETY: made in `env` by `written.binary`.
        let data = unsafe { Term::new(env, written.binary(env)) };
        (data, state).encode(env).as_c_arg()
    }

    fn failed(&self, env: Env, _: &[u8], error: DecodeError) -> RawTerm {
        error_term(env, error, self.error_byte()).as_c_arg()
    }
}

impl NifJob for DecodeEnd {
    fn failed(&self, env: Env, _: &[u8], error: DecodeError) -> RawTerm {
        error_term(env, error, self.error_byte()).as_c_arg()
    }
}

/// The data of the whole quanta of the carry and `piece`, and the stream's
/// next state: `{Data, State}`, `{error, Reason, Byte}`, or `{continue, Job}`.
fn decode_stream<'a>(env: Env<'a>, [state, piece]: [Term<'a>; 2]) -> NifResult<Term<'a>> {
    let carry = state_of(state, Carry::new, Carry::from_binary)?;
    let bytes = binary_of(piece).ok_or(Error::BadArg)?;
    run(env, DecodePiece::new(&carry, bytes), piece, bytes)
}

nif!(decode_stream, 2);

/// The end of a decoding stream: the data of what it carries, or
/// `{error, Reason, Byte}`.
fn decode_stream_end<'a>(env: Env<'a>, [state]: [Term<'a>; 1]) -> NifResult<Term<'a>> {
    let carry = state_of(state, Carry::new, Carry::from_binary)?;
    let nothing = new_binary(env, 0).0;
    run(env, DecodeEnd::new(&carry), nothing, &[])
}

nif!(decode_stream_end, 1);
