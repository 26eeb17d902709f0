//! `b64simd_stream`'s decoder: its state between pieces is a `Carry` held
//! by Erlang as a binary, which these NIFs read and return renewed. Every
//! error comes back as `{error, Reason, Byte}`, the reason with its stream
//! offset and `Byte` the byte there (or `undefined`).

use crate::atoms;
use crate::charge::{charge_decode, TIMED_CALL_BYTES};
use crate::decode::decode_now;
use crate::jobs::{start_job, NifJob};
use crate::term::{alloc_binary, decode_options, joined_len, new_binary, reason_term, shrink};
use b64simd_core::budget::{self, Work};
use b64simd_core::carry::Carry;
use b64simd_core::codec;
use b64simd_core::exact::ExactJob;
use b64simd_core::job::{Job, Step};
use b64simd_core::options::DecodeOptions;
use b64simd_core::quanta::{self, QuantaJob, Start};
use b64simd_core::scalar::DecodeError;
use rustler::{Binary, Encoder, Env, Error, NifResult, OwnedBinary, Term};
use std::time::Instant;

/// What a call on a piece starts from: the options, the carry, and an
/// output buffer for the carry and the piece decoded.
fn start<'s>(
    state: &'s [u8],
    piece: &[u8],
    flags: u32,
) -> NifResult<(DecodeOptions, Carry<'s>, OwnedBinary)> {
    let opts = decode_options(flags)?;
    let carry = Carry::from_binary(state).ok_or(Error::BadArg)?;
    let total = joined_len(carry.bytes(), piece)?;
    let output = alloc_binary(codec::maximal_decoded_len(total))?;
    Ok((opts, carry, output))
}

/// `{Data, State}`: the data decoded, and the stream's next state, which
/// carries on the bytes at `kept` of the carry followed by `piece`.
fn data_and_state<'a>(
    env: Env<'a>,
    data: OwnedBinary,
    written: usize,
    carry: &Carry,
    piece: &[u8],
    kept: impl ExactSizeIterator<Item = usize> + Clone,
) -> Term<'a> {
    let (state, bytes) = new_binary(env, Carry::binary_len(kept.len()));
    carry.write_after(piece, kept, bytes);
    (shrink(data, written).release(env), state).encode(env)
}

/// The quick step's result once the first `consumed` bytes of the carry
/// and `piece` are decoded: `{Data, State}`, or `exact` when what is left
/// is too long to carry (`quanta::left_over`).
fn quick_result<'a>(
    env: Env<'a>,
    data: OwnedBinary,
    written: usize,
    carry: &Carry,
    piece: &[u8],
    consumed: usize,
) -> Term<'a> {
    match quanta::left_over(carry.bytes().len(), piece.len(), consumed) {
        Some(kept) => data_and_state(env, data, written, carry, piece, kept),
        None => atoms::exact().encode(env),
    }
}

/// A job's copy of the state it started from (the caller's binary does not
/// outlive the call), read again when the job ends.
fn reread(state: &[u8]) -> Carry<'_> {
    Carry::from_binary(state).expect("the state was read when the job started")
}

/// `{error, Reason, Byte}` for an error at an offset into `joined`, the
/// carry followed by a piece.
fn stream_error<'a>(env: Env<'a>, carry: &Carry, joined: &[u8], error: DecodeError) -> Term<'a> {
    let (error, byte) = carry.in_stream(joined, error);
    let byte = match byte {
        Some(byte) => byte.encode(env),
        None => atoms::undefined().encode(env),
    };
    (atoms::error(), reason_term(env, error), byte).encode(env)
}

/// The stream's quick step: the whole quanta at the start of the carry
/// followed by `piece`, decoded without joining the two: `{Data, State}`;
/// `exact` for anything unusual (the stream then takes its exact way); or
/// for a big piece `{continue, Job}`.
#[rustler::nif]
fn decode_quanta<'a>(
    env: Env<'a>,
    state: Binary<'a>,
    piece: Binary<'a>,
    flags: u32,
) -> NifResult<Term<'a>> {
    let (opts, carry, mut output) = start(&state, &piece, flags)?;
    let slice = budget::slice_bytes(Work::Decode);
    let job = match quanta::start(carry.bytes(), &piece, opts, output.as_mut_slice(), slice) {
        None => return Ok(atoms::exact().encode(env)),
        Some(Start::Finished(done)) => {
            let consumed = done.consumed;
            return Ok(quick_result(
                env,
                output,
                done.written,
                &carry,
                &piece,
                consumed,
            ));
        }
        Some(Start::Job(job)) => job,
    };
    if piece.len() > slice {
        let state = state.as_slice().to_vec();
        return start_job(env, StreamQuanta { job, state }, output, &piece);
    }
    // Inline, charged as decode/2 charges a call of this size.
    let mut job = job;
    let started = (piece.len() >= TIMED_CALL_BYTES).then(Instant::now);
    let Ok(written) = job.run_to_end(&piece, output.as_mut_slice(), usize::MAX) else {
        return Ok(atoms::exact().encode(env));
    };
    let held_whitespace = written != job.consumed() / 4 * 3;
    charge_decode(env, piece.len(), held_whitespace, started);
    Ok(quick_result(
        env,
        output,
        written,
        &carry,
        &piece,
        job.consumed(),
    ))
}

/// The quick step's job over a big piece.
struct StreamQuanta {
    job: QuantaJob,
    state: Vec<u8>,
}

impl Job for StreamQuanta {
    fn step(&mut self, piece: &[u8], output: &mut [u8], max_input: usize) -> Step {
        self.job.step(piece, output, max_input)
    }
}

impl NifJob for StreamQuanta {
    fn finished<'a>(
        &self,
        env: Env<'a>,
        piece: &[u8],
        output: OwnedBinary,
        written: usize,
    ) -> Term<'a> {
        let carry = reread(&self.state);
        quick_result(env, output, written, &carry, piece, self.job.consumed())
    }

    fn failed<'a>(&self, env: Env<'a>, _piece: &[u8], _error: DecodeError) -> Term<'a> {
        atoms::exact().encode(env)
    }
}

/// The stream's exact way, for the carry and `piece` joined, as `ExactJob`
/// decodes them: `{Data, State}`, `{error, Reason, Byte}`, or for a big
/// piece `{continue, Job}`.
#[rustler::nif]
fn decode_exact<'a>(
    env: Env<'a>,
    state: Binary<'a>,
    piece: Binary<'a>,
    flags: u32,
) -> NifResult<Term<'a>> {
    let (opts, carry, output) = start(&state, &piece, flags)?;
    let joined = [carry.bytes(), &piece].concat();
    let job = StreamExact {
        job: ExactJob::new(opts),
        state: state.as_slice().to_vec(),
        joined,
    };
    start_job(env, job, output, &piece)
}

/// The exact way's job: it reads its own copy of the carry and the piece
/// joined, and is given the piece alone on every step.
struct StreamExact {
    job: ExactJob,
    state: Vec<u8>,
    joined: Vec<u8>,
}

impl Job for StreamExact {
    fn step(&mut self, _piece: &[u8], output: &mut [u8], max_input: usize) -> Step {
        self.job.step(&self.joined, output, max_input)
    }
}

impl NifJob for StreamExact {
    fn finished<'a>(
        &self,
        env: Env<'a>,
        piece: &[u8],
        output: OwnedBinary,
        written: usize,
    ) -> Term<'a> {
        let carry = reread(&self.state);
        let kept = self.job.kept().iter().copied();
        data_and_state(env, output, written, &carry, piece, kept)
    }

    fn failed<'a>(&self, env: Env<'a>, _piece: &[u8], error: DecodeError) -> Term<'a> {
        stream_error(env, &reread(&self.state), &self.joined, error)
    }
}

/// The end of the stream: what the carry decodes to under the stream's own
/// options, or `{error, Reason, Byte}`.
#[rustler::nif]
fn decode_final<'a>(env: Env<'a>, state: Binary<'a>, flags: u32) -> NifResult<Term<'a>> {
    let opts = decode_options(flags)?;
    let carry = Carry::from_binary(&state).ok_or(Error::BadArg)?;
    // decode/2's one-shot decode (a carry's few bytes into a heap binary),
    // its error given the stream's offset.
    let (data, _) = decode_now(env, carry.bytes(), opts, |error| {
        stream_error(env, &carry, carry.bytes(), error)
    })?;
    Ok(data)
}
