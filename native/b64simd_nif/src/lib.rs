//! NIF shims only: argument decoding, allocation, reduction accounting and
//! the sliced-job resource. The codec itself lives in plain Rust modules that
//! `cargo test` covers without a BEAM.
//!
//! The shims are left out of test builds and of builds without the `nif`
//! feature (the fuzzer): an executable has no BEAM to provide the `enif_*`
//! symbols they link against.

pub mod budget;
pub mod codec;
pub mod job;
pub mod kernel;
pub mod options;
pub mod scalar;
#[cfg(test)]
mod test_support;

#[cfg(all(feature = "nif", not(test)))]
mod nif {
    use crate::budget::{self, Work};
    use crate::job::{DecodeJob, EncodeJob, Step};
    use crate::options::{DecodeOptions, EncodeOptions};
    use crate::scalar::DecodeError;
    use crate::{codec, kernel};
    use rustler::{
        Binary, Encoder, Env, Error, NewBinary, NifResult, OwnedBinary, ResourceArc, Term,
    };
    use std::sync::Mutex;
    use std::time::Instant;

    mod atoms {
        rustler::atoms! {
            continue_ = "continue",
            error,
            missing_padding,
            invalid_character,
            bad_padding,
            incomplete,
            non_canonical,
            system_limit,
        }
    }

    /// Outputs up to this size are built on the process heap
    /// (`enif_make_new_binary` makes a heap binary below 64 bytes).
    const HEAP_BINARY_MAX: usize = 64;

    /// `enif_alloc_binary`, but a failed allocation raises `system_limit`
    /// instead of aborting the VM as `OwnedBinary::new` would.
    fn alloc_binary(size: usize) -> NifResult<OwnedBinary> {
        let mut raw = std::mem::MaybeUninit::<rustler::sys::ErlNifBinary>::uninit();
        // SAFETY: enif_alloc_binary initialises `raw` when it returns true.
        let ok = unsafe { rustler::sys::enif_alloc_binary(size, raw.as_mut_ptr()) } != 0;
        if !ok {
            return Err(Error::RaiseAtom("system_limit"));
        }
        // SAFETY: allocated above; OwnedBinary releases it on drop.
        Ok(unsafe { OwnedBinary::from_raw(raw.assume_init()) })
    }

    /// Charges the caller for `bytes` of work, so a process that encodes a lot
    /// is scheduled as fairly as one that runs Erlang code (erl_nif:
    /// enif_consume_timeslice).
    fn charge(env: Env, work: Work, bytes: usize) {
        let percent = budget::timeslice_percent(work, bytes);
        if percent > 0 {
            rustler::schedule::consume_timeslice(env, percent);
        }
    }

    fn error_term<'a>(env: Env<'a>, error: DecodeError) -> Term<'a> {
        let reason = match error {
            DecodeError::MissingPadding => atoms::missing_padding().encode(env),
            DecodeError::InvalidCharacter(at) => (atoms::invalid_character(), at).encode(env),
            DecodeError::BadPadding(at) => (atoms::bad_padding(), at).encode(env),
            DecodeError::Incomplete(at) => (atoms::incomplete(), at).encode(env),
            DecodeError::NonCanonical(at) => (atoms::non_canonical(), at).encode(env),
        };
        (atoms::error(), reason).encode(env)
    }

    fn encode_options(flags: u32) -> NifResult<EncodeOptions> {
        EncodeOptions::from_flags(flags).ok_or(Error::BadArg)
    }

    fn decode_options(flags: u32) -> NifResult<DecodeOptions> {
        DecodeOptions::from_flags(flags).ok_or(Error::BadArg)
    }

    // ---------------------------------------------------------------------------
    // One-shot calls
    // ---------------------------------------------------------------------------

    /// Encodes a binary. Small and medium inputs are encoded here and now; an
    /// input above one timeslice's worth starts a sliced job (`{continue, Job}`).
    #[rustler::nif]
    fn encode<'a>(env: Env<'a>, input: Binary<'a>, flags: u32) -> NifResult<Term<'a>> {
        let opts = encode_options(flags)?;
        let out_len = codec::encoded_len(input.len(), opts.padding)
            .ok_or(Error::RaiseAtom("system_limit"))?;
        if budget::is_sliced(Work::Encode, input.len()) {
            let output = alloc_binary(out_len)?;
            let job = SlicedJob::new(JobKind::Encode(EncodeJob::new(opts)), output);
            return run_slice(env, ResourceArc::new(job), input);
        }
        let result: Term = if out_len <= HEAP_BINARY_MAX {
            let mut output = NewBinary::new(env, out_len);
            codec::encode_into(&input, opts, output.as_mut_slice());
            output.into()
        } else {
            let mut output = alloc_binary(out_len)?;
            codec::encode_into(&input, opts, output.as_mut_slice());
            output.release(env).encode(env)
        };
        charge(env, Work::Encode, input.len());
        Ok(result)
    }

    /// Decodes a binary: the decoded binary, `{error, Reason}`, or for a big
    /// input `{continue, Job}`.
    #[rustler::nif]
    fn decode<'a>(env: Env<'a>, input: Binary<'a>, flags: u32) -> NifResult<Term<'a>> {
        let opts = decode_options(flags)?;
        let max_len = codec::maximal_decoded_len(input.len());
        if budget::is_sliced(Work::Decode, input.len()) {
            let output = alloc_binary(max_len)?;
            let job = SlicedJob::new(JobKind::Decode(DecodeJob::new(opts)), output);
            return run_slice(env, ResourceArc::new(job), input);
        }
        let result = if max_len <= HEAP_BINARY_MAX {
            let mut scratch = [0u8; HEAP_BINARY_MAX];
            match codec::decode_into(&input, opts, &mut scratch) {
                Ok(written) => NewBinary::from_slice(env, &scratch[..written]).into(),
                Err(error) => error_term(env, error),
            }
        } else {
            let mut output = alloc_binary(max_len)?;
            match codec::decode_into(&input, opts, output.as_mut_slice()) {
                Ok(written) => shrink(output, written).release(env).encode(env),
                Err(error) => error_term(env, error),
            }
        };
        charge(env, Work::Decode, input.len());
        Ok(result)
    }

    /// Gives back the unused tail of a decode buffer in place (whitespace made the
    /// maximal estimate too big); never a second full-size copy.
    fn shrink(mut output: OwnedBinary, written: usize) -> OwnedBinary {
        if written < output.len() {
            // Shrinking realloc cannot fail in practice; if it did, the binary
            // keeps its size and we fall back to the copying variant.
            output.realloc_or_copy(written);
        }
        output
    }

    // ---------------------------------------------------------------------------
    // Sliced jobs
    // ---------------------------------------------------------------------------

    enum JobKind {
        Encode(EncodeJob),
        Decode(DecodeJob),
    }

    /// The output buffer travels with the job. `OwnedBinary` holds a raw pointer
    /// and so is not `Send`; it is only ever touched under the job's mutex and
    /// `enif_release_binary` may be called from any thread.
    struct OutputBuffer(OwnedBinary);
    // SAFETY: see above; access is serialised by `SlicedJob::state`.
    unsafe impl Send for OutputBuffer {}

    struct JobState {
        kind: JobKind,
        /// `None` once the result has been handed to Erlang.
        output: Option<OutputBuffer>,
    }

    /// A job between two slices. If the caller dies mid-way, the resource is
    /// garbage collected and the output buffer is released with it.
    struct SlicedJob {
        state: Mutex<JobState>,
    }

    #[rustler::resource_impl]
    impl rustler::Resource for SlicedJob {}

    impl SlicedJob {
        fn new(kind: JobKind, output: OwnedBinary) -> SlicedJob {
            SlicedJob {
                state: Mutex::new(JobState {
                    kind,
                    output: Some(OutputBuffer(output)),
                }),
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
        run_slice(env, job, input)
    }

    fn run_slice<'a>(
        env: Env<'a>,
        job: ResourceArc<SlicedJob>,
        input: Binary<'a>,
    ) -> NifResult<Term<'a>> {
        let mut guard = job.state.lock().map_err(|_| Error::BadArg)?;
        let state = &mut *guard;
        let Some(OutputBuffer(output)) = state.output.as_mut() else {
            return Err(Error::BadArg);
        };
        let (work, input_before) = match &state.kind {
            JobKind::Encode(j) => (Work::Encode, j.input_position()),
            JobKind::Decode(j) => (Work::Decode, j.input_position()),
        };
        if input_before > input.len() {
            return Err(Error::BadArg);
        }
        let slice = budget::slice_bytes(work);
        let started = Instant::now();
        let step = match &mut state.kind {
            JobKind::Encode(j) => j.step(&input, output.as_mut_slice(), slice),
            JobKind::Decode(j) => j.step(&input, output.as_mut_slice(), slice),
        };
        let elapsed = started.elapsed();
        let input_after = match &state.kind {
            JobKind::Encode(j) => j.input_position(),
            JobKind::Decode(j) => j.input_position(),
        };
        budget::record(work, input_after.saturating_sub(input_before), elapsed);
        let percent =
            (elapsed.as_nanos() * 100 / budget::TIMESLICE.as_nanos()).clamp(1, 100) as i32;
        rustler::schedule::consume_timeslice(env, percent);
        match step {
            Step::More => Ok((atoms::continue_(), job.clone()).encode(env)),
            Step::Done(written) => {
                let Some(OutputBuffer(output)) = state.output.take() else {
                    return Err(Error::BadArg);
                };
                Ok(shrink(output, written).release(env).encode(env))
            }
            Step::Failed(error) => {
                state.output = None;
                Ok(error_term(env, error))
            }
        }
    }

    // ---------------------------------------------------------------------------
    // Introspection and test hooks
    // ---------------------------------------------------------------------------

    /// The simdutf kernel this VM runs (`icelake`, `haswell`, ...).
    #[rustler::nif]
    fn kernel() -> &'static str {
        kernel::active().unwrap_or("none")
    }

    /// The kernels this CPU can run, best first: the test script runs the
    /// suites once per kernel, each in a fresh VM.
    #[rustler::nif]
    fn supported_kernels() -> Vec<&'static str> {
        kernel::supported()
    }

    /// Test hook: forces every sliced job to slices of `bytes` input bytes and
    /// every input above that size to be sliced; 0 restores calibration.
    #[rustler::nif]
    fn set_slice_bytes(bytes: usize) -> rustler::Atom {
        budget::force_slice_bytes(bytes);
        rustler::types::atom::ok()
    }

    /// Calibrated input bytes per timeslice, `{Encode, Decode}`, for the
    /// benchmark's report.
    #[rustler::nif]
    fn slice_bytes() -> (usize, usize) {
        (
            budget::slice_bytes(Work::Encode),
            budget::slice_bytes(Work::Decode),
        )
    }

    fn load(_env: Env, _info: Term) -> bool {
        match kernel::active() {
            Ok(_) => {
                calibrate();
                true
            }
            Err(message) => {
                eprintln!("b64simd: refusing to load: {message}");
                false
            }
        }
    }

    /// Measures the active kernel's speed on 256 KiB, so slices last about 1 ms
    /// on whatever CPU and kernel this is.
    fn calibrate() {
        const SAMPLE: usize = 256 * 1024;
        let plain: Vec<u8> = (0..SAMPLE).map(|i| (i * 131 + 7) as u8).collect();
        let mut encoded = vec![0u8; codec::encoded_len(SAMPLE, true).unwrap_or(0)];
        budget::calibrate(Work::Encode, SAMPLE, || {
            codec::encode_into(&plain, EncodeOptions::DEFAULT, &mut encoded);
        });
        let mut decoded = vec![0u8; codec::maximal_decoded_len(encoded.len())];
        budget::calibrate(Work::Decode, encoded.len(), || {
            let _ = codec::decode_into(&encoded, DecodeOptions::DEFAULT, &mut decoded);
        });
    }

    rustler::init!("b64simd_nif", load = load);
}
