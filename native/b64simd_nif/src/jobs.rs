//! Sliced jobs: a big input is worked on in slices of about 40 us, the
//! caller calling back in between (`{continue, Job}`), so that no call holds
//! a scheduler for long.

use crate::atoms;
use crate::term::{error_term, shrink};
use b64simd_core::budget;
use b64simd_core::engine::DecodeJob;
use b64simd_core::job::{EncodeJob, Job, Step};
use b64simd_core::mime::MimeJob;
use b64simd_core::scalar::DecodeError;
use b64simd_core::validate::ValidateJob;
use b64simd_core::wrap::WrapJob;
use rustler::{Binary, Encoder, Env, Error, NifResult, OwnedBinary, ResourceArc, Term};
use std::sync::Mutex;
use std::time::Instant;

/// A job as the NIF runs it: its steps (`Job`), and the terms its end
/// makes. By default the output binary, or `{error, Reason}`.
pub(crate) trait NifJob: Job + Send {
    /// The result once the job is done: `written` bytes of `output` are
    /// its output (`input` is the input it was given).
    fn finished<'a>(
        &self,
        env: Env<'a>,
        _input: &[u8],
        output: OwnedBinary,
        written: usize,
    ) -> Term<'a> {
        shrink(output, written).release(env).encode(env)
    }

    /// The result once the job has failed.
    fn failed<'a>(&self, env: Env<'a>, _input: &[u8], error: DecodeError) -> Term<'a> {
        error_term(env, error)
    }
}

impl NifJob for EncodeJob {}
impl NifJob for WrapJob {}
impl NifJob for DecodeJob {}
impl NifJob for MimeJob {}

/// Its output buffer is only scratch: the result is `true | false`.
impl NifJob for ValidateJob {
    fn finished<'a>(&self, env: Env<'a>, _: &[u8], _: OwnedBinary, _: usize) -> Term<'a> {
        true.encode(env)
    }

    fn failed<'a>(&self, env: Env<'a>, _input: &[u8], _error: DecodeError) -> Term<'a> {
        false.encode(env)
    }
}

struct JobState {
    job: Box<dyn NifJob>,
    /// `None` once the result has been handed to Erlang. (`OwnedBinary` is
    /// `Send`, and the job's mutex serialises every access to it.)
    output: Option<OwnedBinary>,
}

/// A job between two slices. If the caller dies mid-way, the resource is
/// garbage collected and the output buffer is released with it.
struct SlicedJob {
    state: Mutex<JobState>,
    /// Every slice must be given the input the job started with; a
    /// different length could only come from misuse of the private API,
    /// and would address the output out of bounds.
    input_len: usize,
}

#[rustler::resource_impl]
impl rustler::Resource for SlicedJob {}

/// Starts a sliced job: its first slice runs here, and only a job with
/// work left goes into a NIF resource (`{continue, Job}`). Most jobs
/// finish within their first slice and never allocate one.
pub(crate) fn start_job<'a>(
    env: Env<'a>,
    job: impl NifJob + 'static,
    output: OwnedBinary,
    input: &[u8],
) -> NifResult<Term<'a>> {
    let mut state = JobState {
        job: Box::new(job),
        output: Some(output),
    };
    match run_steps(env, &mut state, input)? {
        Some(result) => Ok(result),
        None => {
            let job = ResourceArc::new(SlicedJob {
                state: Mutex::new(state),
                input_len: input.len(),
            });
            Ok((atoms::continue_(), job).encode(env))
        }
    }
}

/// Continues a job started by `encode/2` or `decode/2`; `input` must be the
/// same binary (the Erlang layer guarantees it).
#[rustler::nif(name = "continue")]
fn continue_job<'a>(
    env: Env<'a>,
    job: ResourceArc<SlicedJob>,
    input: Binary<'a>,
) -> NifResult<Term<'a>> {
    run_slice(env, job, input.as_slice())
}

fn run_slice<'a>(env: Env<'a>, job: ResourceArc<SlicedJob>, input: &[u8]) -> NifResult<Term<'a>> {
    if input.len() != job.input_len {
        return Err(Error::BadArg);
    }
    let mut state = job.state.lock().map_err(|_| Error::BadArg)?;
    match run_steps(env, &mut state, input)? {
        Some(result) => Ok(result),
        None => Ok((atoms::continue_(), job.clone()).encode(env)),
    }
}

/// Runs one slice of a job: the result term once it is finished, `None`
/// while work is left.
fn run_steps<'a>(env: Env<'a>, state: &mut JobState, input: &[u8]) -> NifResult<Option<Term<'a>>> {
    let Some(output) = state.output.as_mut() else {
        return Err(Error::BadArg);
    };
    // A call runs steps of a fixed size until its time is up, so it lasts
    // one slice whatever the kernel's speed, and also when page faults
    // on fresh output memory (microseconds each in a VM) slow it down.
    // Tests force one step of a given size per call instead.
    let forced = budget::forced_slice_bytes();
    let step_bytes = forced.unwrap_or(budget::STEP_BYTES);
    let started = Instant::now();
    let step = loop {
        let step = state.job.step(input, output.as_mut_slice(), step_bytes);
        if forced.is_some() || step != Step::More || started.elapsed() >= budget::SLICE_TARGET {
            break step;
        }
    };
    rustler::schedule::consume_timeslice(env, budget::elapsed_percent(started.elapsed()));
    match step {
        Step::More => Ok(None),
        Step::Done(written) => {
            let Some(output) = state.output.take() else {
                return Err(Error::BadArg);
            };
            Ok(Some(state.job.finished(env, input, output, written)))
        }
        Step::Failed(error) => {
            state.output = None;
            Ok(Some(state.job.failed(env, input, error)))
        }
    }
}
