//! A call's job, run to its end in the call when it fits one (`engine::fits_one_call`),
//! else a slice at a time, the caller calling back (`{continue, Job}`, `continue/1`), so
//! no call holds a scheduler long. A sliced job's resource owns the job, its output and a
//! copy of the input term: no caller can swap the input, and a dying caller leaks nothing.

use crate::atoms;
use crate::entry::nif;
use crate::term::{failed_at, new_binary, system_limit, ErtsBinary};
use b64simd_core::engine;
use b64simd_core::error::DecodeError;
use b64simd_core::job::{Buffer, Job, Step};
use b64simd_core::output::{self, as_output, put};
use b64simd_core::scratch::with_scratch;
use rustler::env::{OwnedEnv, SavedTerm};
use rustler::sys::ERL_NIF_TERM as RawTerm;
use rustler::{Binary, Encoder, Env, Error, NifResult, ResourceArc, Term};
use std::mem::MaybeUninit;
use std::sync::Mutex;

/// Outputs up to this size are heap binaries, made in place (`enif_make_new_binary`).
const HEAP_BINARY_MAX: usize = 64;

/// Validations of inputs up to this size decode on the stack (no input decodes larger).
const SHORT_VALIDATION: usize = 64;

/// A job as the NIF runs it: its steps, and the terms its end makes.
pub(crate) trait NifJob: Job + Send + 'static {
    /// The result once done: by default `data`, the binary it wrote (`None` for scratch).
    fn done<'a>(&self, env: Env<'a>, _input: &[u8], data: Option<Term<'a>>) -> Term<'a> {
        data.unwrap_or_else(|| new_binary(env, 0).0)
    }

    /// The result once failed: by default `failed_at`'s `{error, Reason, Byte}`.
    fn failed<'a>(&self, env: Env<'a>, input: &[u8], error: DecodeError) -> Term<'a> {
        failed_at(env, input, error)
    }
}

/// A call's input: its term and its bytes, read in place, alive as long as the call's
/// environment. Not rustler's `Binary`, whose `NifResult` stalled store forwarding (`entry::Made`).
#[derive(Clone, Copy)]
pub(crate) struct Input<'a> {
    term: RawTerm,
    pub(crate) bytes: &'a [u8],
}

impl<'a> Input<'a> {
    /// The binary `term`, else `badarg`; always inlined, as `b64simd_core::job` says.
    #[inline(always)]
    pub(crate) fn of(term: Term<'a>) -> NifResult<Input<'a>> {
        let mut binary = MaybeUninit::<rustler::sys::ErlNifBinary>::uninit();
        // SAFETY: `term` is of the running call's environment; erl_nif fills in `binary`
        // when it returns non-zero, and its bytes then live as long as that environment.
        unsafe {
            let env = term.get_env().as_c_arg();
            if rustler::sys::enif_inspect_binary(env, term.as_c_arg(), binary.as_mut_ptr()) == 0 {
                return Err(Error::BadArg);
            }
            let binary = binary.assume_init();
            let bytes = match binary.size {
                0 => &[],
                size => std::slice::from_raw_parts(binary.data, size),
            };
            Ok(Input {
                term: term.as_c_arg(),
                bytes,
            })
        }
    }
}

/// A call's output: a heap binary made in place for a small one, else one allocated.
enum Output<'a> {
    Heap(Term<'a>, &'a mut [MaybeUninit<u8>]),
    Allocated(ErtsBinary),
}

impl<'a> Output<'a> {
    fn new(env: Env<'a>, len: usize) -> NifResult<Output<'a>> {
        if len <= HEAP_BINARY_MAX {
            let (term, memory) = new_binary(env, len);
            return Ok(Output::Heap(term, memory));
        }
        ErtsBinary::new(len).map(Output::Allocated)
    }

    fn memory(&mut self) -> &mut [MaybeUninit<u8>] {
        match self {
            Output::Heap(_, memory) => memory,
            Output::Allocated(binary) => binary.memory(),
        }
    }

    /// Its first `len` bytes, which the job wrote, as a binary: a shorter heap binary (its
    /// input held whitespace) is copied, as it cannot shrink; an allocated one shrinks in place.
    fn into_term(self, env: Env<'a>, len: usize) -> Term<'a> {
        match self {
            Output::Heap(term, memory) if len == memory.len() => term,
            Output::Heap(_, memory) => {
                let (exact, copy) = new_binary(env, len);
                // SAFETY: the job wrote the first `len` bytes (its `Done`).
                put(copy, unsafe { output::written(memory, len) });
                exact
            }
            Output::Allocated(binary) => binary.into_term(env, len),
        }
    }
}

/// Runs `job` over `input`: its result, or `{continue, Job}`, as erl_nif's term
/// (`entry::Made`); always inlined, as `b64simd_core::job` says.
#[inline(always)]
pub(crate) fn run<'a, J: NifJob>(env: Env<'a>, mut job: J, input: Input<'a>) -> NifResult<RawTerm> {
    let bytes = input.bytes;
    let buffer = job.buffer(bytes).ok_or_else(system_limit)?;
    if !engine::fits_one_call(&job, bytes.len()) {
        return start(env, Box::new(job), input, buffer.size()).map(|term| term.as_c_arg());
    }
    let (result, data, percent) = match buffer {
        Buffer::Data(len) => {
            let mut output = Output::new(env, len)?;
            let (result, percent) = engine::run_call(&mut job, bytes, output.memory());
            let data = result.as_ref().ok().map(|&len| output.into_term(env, len));
            (result, data, percent)
        }
        Buffer::Scratch(len) if bytes.len() <= SHORT_VALIDATION => {
            let mut scratch = [MaybeUninit::new(0); SHORT_VALIDATION];
            let scratch = &mut scratch[..len.min(SHORT_VALIDATION)];
            let (result, percent) = engine::run_call(&mut job, bytes, scratch);
            (result, None, percent)
        }
        Buffer::Scratch(len) => {
            let (result, percent) = with_scratch(|scratch| {
                engine::run_call(&mut job, bytes, as_output(&mut scratch[..len]))
            });
            (result, None, percent)
        }
    };
    charge(env, percent);
    let term = match result {
        Ok(_) => job.done(env, bytes, data),
        Err(error) => job.failed(env, bytes, error),
    };
    Ok(term.as_c_arg())
}

fn charge(env: Env, percent: i32) {
    if percent > 0 {
        rustler::schedule::consume_timeslice(env, percent);
    }
}

/// A sliced job and the output binary it writes, kept across its slices.
struct Work {
    job: Box<dyn NifJob>,
    /// Handed over to the result when the job is done.
    output: Option<ErtsBinary>,
}

/// A job between two slices, with all it works on.
struct Running {
    work: Work,
    /// The input term, copied into an environment of the job's own.
    input_env: OwnedEnv,
    input: SavedTerm,
}

/// The resource behind `{continue, Job}`: `None` once the job ended, and while a slice of it runs.
struct SlicedJob(Mutex<Option<Running>>);

#[rustler::resource_impl]
impl rustler::Resource for SlicedJob {}

/// Runs a job's first slice into a `len`-byte binary; only one with work left gets a resource.
fn start<'a>(
    env: Env<'a>,
    job: Box<dyn NifJob>,
    input: Input<'a>,
    len: usize,
) -> NifResult<Term<'a>> {
    let output = Some(ErtsBinary::new(len)?);
    let mut work = Work { job, output };
    if let Some(result) = slice(env, &mut work, input.bytes) {
        return Ok(result);
    }
    let input_env = OwnedEnv::new();
    let running = Running {
        work,
        // SAFETY: the input's term, of `env`.
        input: input_env.save(unsafe { Term::new(env, input.term) }),
        input_env,
    };
    let resource = ResourceArc::new(SlicedJob(Mutex::new(Some(running))));
    Ok((atoms::continue_(), resource).encode(env))
}

/// Runs a slice of a job: its result once it has ended, `None` while work is left.
fn slice<'a>(env: Env<'a>, work: &mut Work, input: &[u8]) -> Option<Term<'a>> {
    let memory = work.output.as_mut()?.memory();
    let (step, percent) = engine::run_slice(work.job.as_mut(), input, memory);
    charge(env, percent);
    match step {
        Step::More => None,
        Step::Failed(error) => Some(work.job.failed(env, input, error)),
        Step::Done(len) => {
            let data = work.output.take()?.into_term(env, len);
            Some(work.job.done(env, input, Some(data)))
        }
    }
}

/// The next slice of a job, or `badarg` if it ended or another process is slicing it: it
/// is taken out of its resource for the slice, so no scheduler thread waits on another's.
fn continue_job<'a>(env: Env<'a>, [job]: [Term<'a>; 1]) -> NifResult<Term<'a>> {
    let resource: ResourceArc<SlicedJob> = job.decode()?;
    let taken = resource.0.lock().map_err(|_| Error::BadArg)?.take();
    let mut running = taken.ok_or(Error::BadArg)?;
    let Running {
        work,
        input_env,
        input,
    } = &mut running;
    let result = input_env.run(|owned| -> NifResult<Option<Term<'a>>> {
        let input: Binary = input.load(owned).decode()?;
        Ok(slice(env, work, input.as_slice()))
    })?;
    match result {
        Some(term) => Ok(term),
        None => {
            *resource.0.lock().map_err(|_| Error::BadArg)? = Some(running);
            Ok((atoms::continue_(), resource).encode(env))
        }
    }
}

nif!("continue" / 1, continue_job);
