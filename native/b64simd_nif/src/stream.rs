//! `b64simd_stream`'s NIFs: a state is a binary the core writes and Erlang only passes along.

use crate::entry::nif;
use crate::options::flags;
use crate::run::{run, Input, NifJob};
use crate::term::{error_term, new_binary, system_limit};
use b64simd_core::error::DecodeError;
use b64simd_core::options::Kind;
use b64simd_core::stream::decode::{Carry, DecodeEnd, DecodePiece};
use b64simd_core::stream::encode::{EncodePiece, EncodeStream};
use rustler::{Encoder, Env, Error, NifResult, Term};

/// A state `read` reads from a binary term; `badarg` for anything else.
fn state_of<S>(term: Term, read: impl FnOnce(&[u8]) -> Option<S>) -> NifResult<S> {
    read(Input::of(term)?.bytes).ok_or(Error::BadArg)
}

/// The empty binary a stream's end works on.
fn nothing(env: Env) -> NifResult<Input> {
    Input::of(new_binary(env, 0).0)
}

nif!("encode_stream_init" / 1, |env, [options]| {
    let stream = EncodeStream::new(flags(Kind::Encode, options)?).ok_or(Error::BadArg)?;
    let (state, memory) = new_binary(env, stream.state_len());
    stream.write_state(memory);
    Ok(state)
});

/// `{Base64, State}`, or at the stream's end the Base64 alone.
impl NifJob for EncodePiece {
    fn done<'a>(&self, env: Env<'a>, _: &[u8], data: Option<Term<'a>>) -> Term<'a> {
        let base64 = data.unwrap_or_else(|| new_binary(env, 0).0);
        let Some(next) = self.next() else {
            return base64;
        };
        let (state, memory) = new_binary(env, next.state_len());
        next.write_state(memory);
        (base64, state).encode(env)
    }
}

// `{Base64, State}` for the carry's and `piece`'s whole groups, or `{continue, Job}`.
nif!("encode_stream" / 2, |env, [state, piece]| {
    let stream = state_of(state, EncodeStream::from_state)?;
    let piece = Input::of(piece)?;
    let job = stream.piece(piece.bytes).ok_or_else(system_limit)?;
    run(env, job, piece)
});

nif!("encode_stream_end" / 1, |env, [state]| {
    let stream = state_of(state, EncodeStream::from_state)?;
    run(env, stream.end(), nothing(env)?)
});

nif!("decode_stream_init" / 1, |env, [options]| {
    let carry = Carry::new(flags(Kind::Decode, options)?).ok_or(Error::BadArg)?;
    let (state, memory) = new_binary(env, Carry::binary_len(0));
    carry.write_after(&[], 0..0, memory);
    Ok(state)
});

/// `{Data, State}`; an error is at its offset in the stream, with the byte there.
impl NifJob for DecodePiece {
    fn done<'a>(&self, env: Env<'a>, piece: &[u8], data: Option<Term<'a>>) -> Term<'a> {
        let data = data.unwrap_or_else(|| new_binary(env, 0).0);
        let (state, memory) = new_binary(env, self.next_state_len());
        self.write_next_state(piece, memory);
        (data, state).encode(env)
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

// `{Data, State}` for the carry's and `piece`'s whole quanta, an error, or `{continue, Job}`.
nif!("decode_stream" / 2, |env, [state, piece]| {
    let carry = state_of(state, Carry::from_binary)?;
    let piece = Input::of(piece)?;
    run(env, DecodePiece::new(&carry, piece.bytes), piece)
});

// The data a decoding stream carries at its end, or `{error, Reason, Byte}`.
nif!("decode_stream_end" / 1, |env, [state]| {
    let carry = state_of(state, Carry::from_binary)?;
    run(env, DecodeEnd::new(&carry), nothing(env)?)
});
