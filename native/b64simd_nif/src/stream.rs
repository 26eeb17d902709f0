//! `b64simd_stream`'s NIFs: a piece, or the end, of an encoding or a
//! decoding stream. A stream's state is either its options' flags (a new
//! stream) or the bytes the last call wrote; the core reads and writes
//! them, Erlang only passes them along.

use crate::run::{run, NifJob, Written};
use crate::term::{error_term, new_binary, system_limit};
use b64simd_core::error::DecodeError;
use b64simd_core::stream::decode::{Carry, DecodeEnd, DecodePiece};
use b64simd_core::stream::encode::{EncodePiece, EncodeStream};
use rustler::{Binary, Encoder, Env, Error, NifResult, Term};

/// A stream's state term: flags, or state bytes.
fn state_of<'a, S>(
    term: Term<'a>,
    new: impl FnOnce(u64) -> Option<S>,
    read: impl FnOnce(&[u8]) -> Option<S>,
) -> NifResult<S> {
    let state = match term.decode::<u64>() {
        Ok(flags) => new(flags),
        Err(_) => read(term.decode::<Binary>()?.as_slice()),
    };
    state.ok_or(Error::BadArg)
}

/// `{Base64, State}`, or at the stream's end the Base64 alone.
impl NifJob for EncodePiece {
    fn done<'a>(&self, env: Env<'a>, _: &[u8], written: Written<'_, 'a>) -> Term<'a> {
        let base64 = written.binary(env);
        let Some(next) = self.next() else {
            return base64;
        };
        let (state, bytes) = new_binary(env, next.state_len());
        next.write_state(bytes);
        (base64, state).encode(env)
    }
}

/// The Base64 of the whole groups of the carry and `piece`, and the
/// stream's next state: `{Base64, State}`, or `{continue, Job}`.
#[rustler::nif]
fn encode_stream<'a>(env: Env<'a>, state: Term<'a>, piece: Binary<'a>) -> NifResult<Term<'a>> {
    let stream = state_of(state, EncodeStream::new, EncodeStream::from_state)?;
    let job = stream.piece(&piece).ok_or_else(system_limit)?;
    run(env, job, piece.to_term(env), &piece)
}

/// The end of an encoding stream: the Base64 of what it carries.
#[rustler::nif]
fn encode_stream_end<'a>(env: Env<'a>, state: Term<'a>) -> NifResult<Term<'a>> {
    let stream = state_of(state, EncodeStream::new, EncodeStream::from_state)?;
    let nothing = new_binary(env, 0).0;
    run(env, stream.end(), nothing, &[])
}

/// `{Data, State}`; an error is the stream's, at its stream offset, with
/// the byte there.
impl NifJob for DecodePiece {
    fn done<'a>(&self, env: Env<'a>, piece: &[u8], written: Written<'_, 'a>) -> Term<'a> {
        let (state, bytes) = new_binary(env, self.next_state_len());
        self.write_next_state(piece, bytes);
        (written.binary(env), state).encode(env)
    }

    fn failed<'a>(&self, env: Env<'a>, _: &[u8], error: DecodeError) -> Term<'a> {
        error_term(env, error, self.error_byte())
    }
}

impl NifJob for DecodeEnd {
    fn failed<'a>(&self, env: Env<'a>, _: &[u8], error: DecodeError) -> Term<'a> {
        error_term(env, error, self.error_byte())
    }
}

/// The data of the whole quanta of the carry and `piece`, and the stream's
/// next state: `{Data, State}`, `{error, Reason, Byte}`, or `{continue, Job}`.
#[rustler::nif]
fn decode_stream<'a>(env: Env<'a>, state: Term<'a>, piece: Binary<'a>) -> NifResult<Term<'a>> {
    let carry = state_of(state, Carry::new, Carry::from_binary)?;
    let job = DecodePiece::new(&carry, &piece);
    run(env, job, piece.to_term(env), &piece)
}

/// The end of a decoding stream: the data of what it carries, or
/// `{error, Reason, Byte}`.
#[rustler::nif]
fn decode_stream_end<'a>(env: Env<'a>, state: Term<'a>) -> NifResult<Term<'a>> {
    let carry = state_of(state, Carry::new, Carry::from_binary)?;
    let nothing = new_binary(env, 0).0;
    run(env, DecodeEnd::new(&carry), nothing, &[])
}
