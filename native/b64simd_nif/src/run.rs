//! Scheduling: a core job run to its end within the call when it fits one
//! (`engine::fits_one_call`), else a slice at a time, the caller calling
//! back in between (`{continue, Job}` and `continue/1`) so that no call holds
//! a scheduler for long. The job then lives in a NIF resource that owns
//! everything it works on: the job, its output buffer, and a copy of the
//! input term (for a binary, a new reference to it), so no caller can hand
//! it another input and a caller that dies mid-way leaks nothing.

use crate::atoms;
use crate::term::{error_term, new_binary, result_binary, system_limit, ErtsBinary, RawTerm};
use b64simd_core::engine;
use b64simd_core::error::DecodeError;
use b64simd_core::job::{Buffer, Job, Step};
use b64simd_core::output::{self, as_output, put};
use b64simd_core::scratch::with_scratch;
use rustler::env::{OwnedEnv, SavedTerm};
use rustler::{Binary, Encoder, Env, Error, NifResult, ResourceArc, Term};
use std::mem::MaybeUninit;
use std::sync::Mutex;

/// Outputs up to this size are built on the process heap
/// (`enif_make_new_binary` makes a heap binary below 64 bytes).
const HEAP_BINARY_MAX: usize = 64;

/// Validations of inputs up to this size decode into a buffer on the
/// stack, as reaching the thread's scratch is a noticeable part of a short
/// call (`bench/README.md`); no input decodes to more bytes than it has.
const SHORT_VALIDATION: usize = 64;

/// A job as the NIF runs it: its steps, and the terms its end makes.
pub(crate) trait NifJob: Job + Send + 'static {
    /// The result once the job is done: what it wrote, by default as a
    /// binary.
    #[inline(always)]
    fn done<'a>(&self, env: Env<'a>, _input: &[u8], written: Written<'_, 'a, '_>) -> RawTerm {
        written.binary(env)
    }

    /// The result once the job has failed: `{error, Reason, Byte}`, by
    /// default with the input's byte at the error's offset.
    fn failed(&self, env: Env, input: &[u8], error: DecodeError) -> RawTerm {
        failed_at(env, input, error)
    }
}

/// `{error, Reason, Byte}` for an error at an offset into `input`.
pub(crate) fn failed_at(env: Env, input: &[u8], error: DecodeError) -> RawTerm {
    let byte = error.offset().and_then(|at| input.get(at).copied());
    error_term(env, error, byte).as_c_arg()
}

/// A job's output buffer: a heap binary for a small output (made in place,
/// no copy), a binary allocated once, or scratch that is no result. Jobs
/// are handed it by reference, and an allocated binary lives where its
/// caller put it: moved, either was copied through memory in a way that
/// stalled store forwarding, a noticeable share of a short call.
pub(crate) enum Output<'a, 'b> {
    Heap(Term<'a>, &'a mut [MaybeUninit<u8>]),
    Allocated(&'b mut ErtsBinary),
    Scratch,
}

impl<'a, 'b> Output<'a, 'b> {
    /// `len` bytes: a heap binary, or `binary` allocated.
    #[inline(always)]
    fn new(env: Env<'a>, len: usize, binary: &'b mut ErtsBinary) -> NifResult<Output<'a, 'b>> {
        if len <= HEAP_BINARY_MAX {
            let (term, bytes) = new_binary(env, len);
            return Ok(Output::Heap(term, bytes));
        }
        if !binary.allocate(len) {
            return Err(system_limit());
        }
        Ok(Output::Allocated(binary))
    }

    fn bytes(&mut self) -> &mut [MaybeUninit<u8>] {
        match self {
            Output::Heap(_, bytes) => bytes,
            Output::Allocated(binary) => binary.as_mut_slice(),
            Output::Scratch => &mut [],
        }
    }

    /// Its first `len` bytes, a finished job's result: only what a job's
    /// `Done(len)` says it wrote.
    #[inline(always)]
    fn written(&mut self, len: usize) -> Written<'_, 'a, 'b> {
        Written { output: self, len }
    }

    /// The first `written` bytes as a binary of that size: a heap binary
    /// that came out shorter (its input held whitespace) is copied into an
    /// exact one, as a heap binary cannot shrink; any other is shrunk in
    /// place, never copied whole.
    /// Once: an owned binary is handed over to the term.
    #[inline(always)]
    fn take_binary(&mut self, env: Env<'a>, written: usize) -> RawTerm {
        match self {
            Output::Heap(term, bytes) if written == bytes.len() => term.as_c_arg(),
            Output::Heap(_, bytes) => {
                let (exact, copy) = new_binary(env, written);
                // SAFETY: a job wrote its first `written` bytes (`Written`
                // is made only of a finished job's `Done`).
                put(copy, unsafe { output::written(bytes, written) });
                exact.as_c_arg()
            }
            Output::Allocated(binary) => binary.hand_over(env, written),
            Output::Scratch => new_binary(env, 0).0.as_c_arg(),
        }
    }
}

/// What a finished job wrote: the first `len` bytes of its output.
pub(crate) struct Written<'o, 'a, 'b> {
    output: &'o mut Output<'a, 'b>,
    len: usize,
}

impl<'a> Written<'_, 'a, '_> {
    /// As a binary of its size (`Output::take_binary`).
    #[inline(always)]
    pub(crate) fn binary(self, env: Env<'a>) -> RawTerm {
        self.output.take_binary(env, self.len)
    }
}

/// Runs `job` over `input` (the bytes of `input_term`) into the buffer it
/// asks for: its result, or `{continue, Job}`. Its data is a new binary;
/// its scratch, within a call, this thread's (or the stack's, for a short
/// input), else its own.
#[inline(always)]
pub(crate) fn run<'a, J: NifJob>(
    env: Env<'a>,
    mut job: J,
    input_term: Term<'a>,
    input: &[u8],
) -> NifResult<Term<'a>> {
    let buffer = job.buffer(input).ok_or_else(system_limit)?;
    let len = buffer.size();
    if !engine::fits_one_call(&job, input.len()) {
        return start(env, Box::new(job), input_term, input, result_binary(len)?);
    }
    // Made before the job runs and never moved after: a move copied it
    // with vector stores that its length, read right after, waited on.
    let mut binary = ErtsBinary::unallocated();
    let mut output = match buffer {
        Buffer::Data(_) => Output::new(env, len, &mut binary)?,
        Buffer::Scratch(_) => Output::Scratch,
    };
    let (result, percent) = match buffer {
        Buffer::Data(_) => engine::run_call(&mut job, input, output.bytes()),
        Buffer::Scratch(_) if input.len() <= SHORT_VALIDATION => {
            let mut scratch = [MaybeUninit::new(0); SHORT_VALIDATION];
            let scratch = &mut scratch[..len.min(SHORT_VALIDATION)];
            engine::run_call(&mut job, input, scratch)
        }
        Buffer::Scratch(_) => with_scratch(|scratch| {
            engine::run_call(&mut job, input, as_output(&mut scratch[..len]))
        }),
    };
    charge(env, percent);
    let term = match result {
        Ok(len) => job.done(env, input, output.written(len)),
        Err(error) => job.failed(env, input, error),
    };
    // SAFETY: made in `env` by the job's `done` or `failed`.
    Ok(unsafe { Term::new(env, term) })
}

/// Charges the caller `percent` of a timeslice (`enif_consume_timeslice`).
#[inline(always)]
pub(crate) fn charge(env: Env, percent: i32) {
    if percent > 0 {
        rustler::schedule::consume_timeslice(env, percent);
    }
}

/// A job between two slices, with all it works on.
struct Running {
    job: Box<dyn NifJob>,
    output: ErtsBinary,
    /// The input term, copied into an environment of the job's own.
    input_env: OwnedEnv,
    input: SavedTerm,
}

/// The resource behind `{continue, Job}`: `None` once the job has ended,
/// and while a slice of it runs.
struct SlicedJob(Mutex<Option<Running>>);

#[rustler::resource_impl]
impl rustler::Resource for SlicedJob {}

/// Runs a job's first slice here; only a job with work left goes into a
/// resource (`{continue, Job}`).
fn start<'a>(
    env: Env<'a>,
    mut job: Box<dyn NifJob>,
    input_term: Term<'a>,
    input: &[u8],
    mut output: ErtsBinary,
) -> NifResult<Term<'a>> {
    let (step, percent) = engine::run_slice(job.as_mut(), input, output.as_mut_slice());
    charge(env, percent);
    if step != Step::More {
        // SAFETY: made in `env` by `end`.
        return Ok(unsafe { Term::new(env, end(env, job.as_ref(), input, &mut output, step)) });
    }
    let input_env = OwnedEnv::new();
    let running = Running {
        job,
        output,
        input: input_env.save(input_term),
        input_env,
    };
    let resource = ResourceArc::new(SlicedJob(Mutex::new(Some(running))));
    Ok((atoms::continue_(), resource).encode(env))
}

/// The term a job's last step makes.
fn end<'a>(
    env: Env<'a>,
    job: &dyn NifJob,
    input: &[u8],
    output: &mut ErtsBinary,
    step: Step,
) -> RawTerm {
    match step {
        Step::Done(len) => job.done(env, input, Output::Allocated(output).written(len)),
        Step::Failed(error) => job.failed(env, input, error),
        Step::More => atoms::continue_().encode(env).as_c_arg(),
    }
}

/// The next slice of a job: its result, or `{continue, Job}` again.
/// `badarg` for a job that has ended, and for one another process is
/// running a slice of right now: the job is taken out of its resource for
/// the slice, so that no scheduler thread ever waits on another's.
#[rustler::nif(name = "continue")]
fn continue_job(env: Env, resource: ResourceArc<SlicedJob>) -> NifResult<Term> {
    let taken = resource.0.lock().map_err(|_| Error::BadArg)?.take();
    let Some(mut running) = taken else {
        return Err(Error::BadArg);
    };
    let Running {
        job,
        output,
        input_env,
        input,
    } = &mut running;
    let result = input_env.run(|owned| -> NifResult<Option<RawTerm>> {
        let bytes: Binary = input.load(owned).decode()?;
        let (step, percent) =
            engine::run_slice(job.as_mut(), bytes.as_slice(), output.as_mut_slice());
        charge(env, percent);
        if step == Step::More {
            return Ok(None);
        }
        Ok(Some(end(env, job.as_ref(), bytes.as_slice(), output, step)))
    })?;
    match result {
        // SAFETY: made in `env` by `end`.
        Some(term) => Ok(unsafe { Term::new(env, term) }),
        None => {
            *resource.0.lock().map_err(|_| Error::BadArg)? = Some(running);
            Ok((atoms::continue_(), resource.clone()).encode(env))
        }
    }
}
