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
pub mod lines;
pub mod mime;
pub mod options;
pub mod quanta;
pub mod scalar;
pub mod scratch;
#[cfg(test)]
mod test_support;
pub mod validate;
pub mod wrap;

#[cfg(all(feature = "nif", not(test)))]
mod nif {
    use crate::budget::{self, Work};
    use crate::job::{run_to_end, DecodeJob, EncodeJob, Step};
    use crate::mime::{self, MimeJob};
    use crate::options::{DecodeOptions, EncodeOptions};
    use crate::quanta::{self, QuantaJob, Start};
    use crate::scalar::DecodeError;
    use crate::validate::{self, ValidateJob};
    use crate::wrap::{self, LineBreak, Lines, WrapJob};
    use crate::{codec, kernel};
    use rustler::{Binary, Encoder, Env, Error, NifResult, OwnedBinary, ResourceArc, Term};
    use std::sync::Mutex;
    use std::time::Instant;

    mod atoms {
        rustler::atoms! {
            continue_ = "continue",
            error,
            exact,
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

    /// A new binary of `size` bytes (a heap binary up to 64) and its bytes,
    /// to be filled before the call returns. `enif_make_new_binary` is
    /// called directly: rustler's `NewBinary` comes back through memory in a
    /// way that stalls store forwarding, a few ns of a 40 ns call (perf).
    #[inline(always)]
    fn new_binary<'a>(env: Env<'a>, size: usize) -> (Term<'a>, &'a mut [u8]) {
        let mut term = std::mem::MaybeUninit::<rustler::sys::ErlNifTerm>::uninit();
        // SAFETY: erl_nif sets the term and returns `size` writable bytes (or
        // aborts the VM when out of memory), which belong to the new binary
        // and live as long as the calling environment.
        unsafe {
            let data = rustler::sys::enif_make_new_binary(env.as_c_arg(), size, term.as_mut_ptr());
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

    /// Calls on at least this many bytes are timed and charged by the clock
    /// (reading it costs ~20 ns, nothing next to them); smaller ones their
    /// calibrated cost (`budget::call_ns`).
    const TIMED_CALL_BYTES: usize = 64 * 1024;

    /// Charges the caller for a call on `bytes` of input: its time on the
    /// clock if it was timed, else its calibrated cost, so a process that
    /// encodes a lot is scheduled as fairly as one that runs Erlang code
    /// (erl_nif: enif_consume_timeslice).
    #[inline(always)]
    fn charge(env: Env, work: Work, bytes: usize, started: Option<Instant>) {
        let ns = match started {
            Some(started) => started.elapsed().as_nanos() as u64,
            // Like a BIF's small work, a call this short costs only its one
            // reduction: charging it cost a 32-byte encode 15 ns of its 45.
            None if bytes < budget::UNCHARGED_BYTES => return,
            None => budget::call_ns(work, bytes),
        };
        let percent = budget::charge_percent(ns);
        if percent > 0 {
            rustler::schedule::consume_timeslice(env, percent);
        }
    }

    /// `charge` for a decode of `bytes` of input: input that held whitespace
    /// takes longer to decode, so a call too short to time is charged the
    /// calibrated factor times its bytes.
    #[inline(always)]
    fn charge_decode(env: Env, bytes: usize, held_whitespace: bool, started: Option<Instant>) {
        let work = match held_whitespace {
            true => bytes.saturating_mul(budget::whitespace_factor()),
            false => bytes,
        };
        charge(env, Work::Decode, work, started);
    }

    /// Lazily, for `ok_or_else`: an eager `ok_or(Error::..)` builds and
    /// drops an `Error` on every successful call (measured: ~2 ns of 50).
    fn system_limit() -> Error {
        Error::RaiseAtom("system_limit")
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
        EncodeOptions::from_flags(flags).ok_or_else(|| Error::BadArg)
    }

    fn decode_options(flags: u32) -> NifResult<DecodeOptions> {
        DecodeOptions::from_flags(flags).ok_or_else(|| Error::BadArg)
    }

    // ---------------------------------------------------------------------------
    // One-shot calls
    // ---------------------------------------------------------------------------

    /// rustler's `#[nif]` wrapper collects the arguments into a heap-allocated
    /// `Vec` on every call, which costs more than encoding 32 bytes. The two
    /// hot entry points (`encode/2`, `decode/2`) are registered directly.
    macro_rules! direct_nif {
        ($erl_name:literal, $function:ident) => {
            rustler::codegen_runtime::inventory::submit!(rustler::Nif {
                name: concat!($erl_name, "\0").as_ptr() as *const rustler::codegen_runtime::c_char,
                arity: 2,
                flags: 0,
                raw_func: {
                    unsafe extern "C" fn raw(
                        nif_env: *mut rustler::sys::ErlNifEnv,
                        argc: rustler::codegen_runtime::c_int,
                        argv: *const rustler::sys::ErlNifTerm,
                    ) -> rustler::sys::ErlNifTerm {
                        let lifetime = ();
                        let env = Env::new(&lifetime, nif_env);
                        if argc != 2 {
                            return rustler::sys::enif_make_badarg(nif_env);
                        }
                        let args = std::slice::from_raw_parts(argv, 2);
                        let (Some(input), Some(flags)) = (
                            inspect_binary(nif_env, args[0]),
                            get_flags(nif_env, args[1]),
                        ) else {
                            return rustler::sys::enif_make_badarg(nif_env);
                        };
                        // The term comes back through `term`, not inside the
                        // closure's Result: the compiler built that Result
                        // with byte-sized stores and read it back whole, a
                        // failed store forwarding that perf put at 7% of a
                        // 64-byte decode.
                        let mut term = args[0]; // overwritten on success
                        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            $function(env, input, flags).map(|made| term = made.as_c_arg())
                        }));
                        match result {
                            Ok(Ok(())) => term,
                            Ok(Err(error)) => {
                                let failed: NifResult<Term> = Err(error);
                                rustler::codegen_runtime::handle_nif_result(Ok(failed), env)
                                    .apply(env)
                            }
                            Err(panic) => {
                                let failed: std::thread::Result<NifResult<Term>> = Err(panic);
                                rustler::codegen_runtime::handle_nif_result(failed, env).apply(env)
                            }
                        }
                    }
                    raw
                },
            });
        };
    }

    /// The bytes of a binary term, read in place (`enif_inspect_binary`).
    ///
    /// # Safety
    /// `env` and `term` come from the running NIF call; the slice lives as
    /// long as that call's environment.
    unsafe fn inspect_binary<'a>(
        env: *mut rustler::sys::ErlNifEnv,
        term: rustler::sys::ErlNifTerm,
    ) -> Option<&'a [u8]> {
        let mut binary = std::mem::MaybeUninit::<rustler::sys::ErlNifBinary>::uninit();
        if rustler::sys::enif_inspect_binary(env, term, binary.as_mut_ptr()) == 0 {
            return None;
        }
        let binary = binary.assume_init();
        if binary.size == 0 {
            return Some(&[]);
        }
        Some(std::slice::from_raw_parts(binary.data, binary.size))
    }

    /// # Safety
    /// As `inspect_binary`.
    unsafe fn get_flags(
        env: *mut rustler::sys::ErlNifEnv,
        term: rustler::sys::ErlNifTerm,
    ) -> Option<u32> {
        let mut flags: rustler::sys::c_uint = 0;
        (rustler::sys::enif_get_uint(env, term, &mut flags) != 0).then_some(flags)
    }

    direct_nif!("encode", encode);
    direct_nif!("decode", decode);
    direct_nif!("mime_decode", mime_decode);
    direct_nif!("is_valid", is_valid);

    /// Encodes a binary. Small and medium inputs are encoded here and now; an
    /// input above one timeslice's worth starts a sliced job (`{continue, Job}`).
    #[inline(always)]
    fn encode<'a>(env: Env<'a>, input: &'a [u8], flags: u32) -> NifResult<Term<'a>> {
        let opts = encode_options(flags)?;
        let out_len = codec::encoded_len(input.len(), opts.padding).ok_or_else(system_limit)?;
        if budget::is_sliced(Work::Encode, input.len()) {
            let output = alloc_binary(out_len)?;
            return start_job(env, JobKind::Encode(EncodeJob::new(opts)), output, input);
        }
        let started = (input.len() >= TIMED_CALL_BYTES).then(Instant::now);
        let result = encode_now(env, input, opts, out_len)?;
        charge(env, Work::Encode, input.len(), started);
        Ok(result)
    }

    /// `encode/2` of `carry` (at most 2 bytes) followed by `data`, without
    /// joining them first: `b64simd_stream` copied every chunk whole to put
    /// the 1-2 bytes carried from the last one in front. The group they
    /// share is encoded from a 3-byte buffer, the rest of `data` in place
    /// (sliced like `encode/2`, the job reading `data`).
    #[rustler::nif]
    fn encode_after<'a>(
        env: Env<'a>,
        carry: Binary<'a>,
        data: Binary<'a>,
        flags: u32,
    ) -> NifResult<Term<'a>> {
        let data = data.as_slice();
        if carry.is_empty() {
            return encode(env, data, flags);
        }
        let opts = encode_options(flags)?;
        if carry.len() > 2 {
            return Err(Error::BadArg);
        }
        let total = joined_len(&carry, data)?;
        let out_len = codec::encoded_len(total, opts.padding).ok_or_else(system_limit)?;
        let (group, _, taken) = shared_group(&carry, data);
        if total <= 3 {
            return encode_now(env, &group[..total], opts, out_len);
        }
        let rest = &data[taken..];
        let mut output = alloc_binary(out_len)?;
        codec::encode_into(&group, opts, &mut output.as_mut_slice()[..4]);
        if budget::is_sliced(Work::Encode, rest.len()) {
            let job = EncodeJob::resume(opts, taken, 4);
            return start_job(env, JobKind::Encode(job), output, data);
        }
        let started = (rest.len() >= TIMED_CALL_BYTES).then(Instant::now);
        codec::encode_into(rest, opts, &mut output.as_mut_slice()[4..]);
        charge(env, Work::Encode, rest.len(), started);
        Ok(output.release(env).encode(env))
    }

    /// The 3-byte group a stream's carry (at most 2 bytes) shares with the
    /// first bytes of `data`: the group, its length (less than 3 only at the
    /// very end), and how many bytes of `data` it took.
    fn shared_group(carry: &[u8], data: &[u8]) -> ([u8; 3], usize, usize) {
        let taken = (3 - carry.len()).min(data.len());
        let mut group = [0u8; 3];
        group[..carry.len()].copy_from_slice(carry);
        group[carry.len()..carry.len() + taken].copy_from_slice(&data[..taken]);
        (group, carry.len() + taken, taken)
    }

    /// The length of a stream's carry and the next piece taken as one:
    /// `system_limit` if it does not fit a `usize`.
    fn joined_len(carry: &[u8], piece: &[u8]) -> NifResult<usize> {
        carry
            .len()
            .checked_add(piece.len())
            .ok_or_else(system_limit)
    }

    /// The line options of `encode_wrapped/4`; a line length of 0 is badarg.
    fn lines_of(line_length: usize, lf: bool) -> NifResult<Lines> {
        if line_length == 0 {
            return Err(Error::BadArg);
        }
        let line_break = if lf { LineBreak::Lf } else { LineBreak::CrLf };
        Ok(Lines {
            length: line_length,
            line_break,
        })
    }

    /// The one-shot encode, into an output of the exact size.
    #[inline(always)]
    fn encode_now<'a>(
        env: Env<'a>,
        input: &[u8],
        opts: EncodeOptions,
        out_len: usize,
    ) -> NifResult<Term<'a>> {
        if out_len <= HEAP_BINARY_MAX {
            let (term, output) = new_binary(env, out_len);
            codec::encode_into(input, opts, output);
            Ok(term)
        } else {
            let mut output = alloc_binary(out_len)?;
            codec::encode_into(input, opts, output.as_mut_slice());
            Ok(output.release(env).encode(env))
        }
    }

    /// Decodes a binary: the decoded binary, `{error, Reason}`, or for a big
    /// input `{continue, Job}`.
    #[inline(always)]
    fn decode<'a>(env: Env<'a>, input: &'a [u8], flags: u32) -> NifResult<Term<'a>> {
        let opts = decode_options(flags)?;
        if budget::is_sliced(Work::Decode, input.len()) {
            let output = alloc_binary(codec::decoded_len_bound(input))?;
            return start_job(env, JobKind::Decode(DecodeJob::new(opts)), output, input);
        }
        let started = (input.len() >= TIMED_CALL_BYTES).then(Instant::now);
        let (result, held_whitespace) = decode_now(env, input, opts)?;
        charge_decode(env, input.len(), held_whitespace, started);
        Ok(result)
    }

    /// A one-shot decode (`decode` writes into the buffer it is given, which
    /// holds `max_len` bytes) as a term: a small result straight into a heap
    /// binary, a big one into a binary of `max_len` shrunk in place.
    /// `max_len` is exact unless the input holds whitespace; a heap binary
    /// cannot shrink, so then the written part is copied into a new one.
    /// Also says whether it did hold whitespace (wrote less than `max_len`).
    #[inline(always)]
    fn decode_to_term<'a>(
        env: Env<'a>,
        max_len: usize,
        decode: impl FnOnce(&mut [u8]) -> Result<usize, DecodeError>,
    ) -> NifResult<(Term<'a>, bool)> {
        if max_len <= HEAP_BINARY_MAX {
            let (term, output) = new_binary(env, max_len);
            Ok(match decode(output) {
                Ok(written) if written == max_len => (term, false),
                Ok(written) => {
                    let (exact, bytes) = new_binary(env, written);
                    bytes.copy_from_slice(&output[..written]);
                    (exact, true)
                }
                Err(error) => (error_term(env, error), false),
            })
        } else {
            let mut output = alloc_binary(max_len)?;
            Ok(match decode(output.as_mut_slice()) {
                Ok(written) => {
                    let short = written < max_len;
                    (shrink(output, written).release(env).encode(env), short)
                }
                Err(error) => (error_term(env, error), false),
            })
        }
    }

    /// The one-shot decode, and whether the input held whitespace inside
    /// (whitespace around it is trimmed first: `codec::trim_whitespace`).
    #[inline(always)]
    fn decode_now<'a>(
        env: Env<'a>,
        input: &[u8],
        opts: DecodeOptions,
    ) -> NifResult<(Term<'a>, bool)> {
        let (trimmed, cut) = codec::trim_whitespace(input, opts);
        decode_to_term(env, codec::decoded_len_bound(trimmed), |output| {
            codec::decode_into(trimmed, opts, output).map_err(|error| error.shifted(cut))
        })
    }

    /// For comparison only (the latency probe): the whole input in one call on
    /// a dirty CPU scheduler, as b64veryfast does above 2 MiB.
    #[rustler::nif(schedule = "DirtyCpu")]
    fn encode_dirty<'a>(env: Env<'a>, input: Binary<'a>, flags: u32) -> NifResult<Term<'a>> {
        let opts = encode_options(flags)?;
        let out_len = codec::encoded_len(input.len(), opts.padding).ok_or_else(system_limit)?;
        encode_now(env, &input, opts, out_len)
    }

    /// For comparison only: `decode/2` in one call on a dirty CPU scheduler.
    #[rustler::nif(schedule = "DirtyCpu")]
    fn decode_dirty<'a>(env: Env<'a>, input: Binary<'a>, flags: u32) -> NifResult<Term<'a>> {
        let opts = decode_options(flags)?;
        Ok(decode_now(env, &input, opts)?.0)
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

    /// For `b64simd_stream`: the whole quanta at the start of `carry` followed
    /// by `piece`, decoded without joining the two: `{Data, Consumed}`, the
    /// bytes of the two that they take up; `exact` for anything unusual (the
    /// stream then finds the reason its exact way); or for a big piece
    /// `{continue, Job}`.
    #[rustler::nif]
    fn decode_quanta<'a>(
        env: Env<'a>,
        carry: Binary<'a>,
        piece: Binary<'a>,
        flags: u32,
    ) -> NifResult<Term<'a>> {
        let opts = decode_options(flags)?;
        let total = joined_len(&carry, &piece)?;
        let mut output = alloc_binary(codec::maximal_decoded_len(total))?;
        let job = match quanta::start(&carry, &piece, opts, output.as_mut_slice()) {
            None => return Ok(atoms::exact().encode(env)),
            Some(Start::Finished(done)) => {
                let data = shrink(output, done.written).release(env);
                return Ok((data, done.consumed).encode(env));
            }
            Some(Start::Job(job)) => job,
        };
        if budget::is_sliced(Work::Decode, piece.len()) {
            return start_job(env, JobKind::Quanta(job), output, &piece);
        }
        // Inline, charged as decode/2 charges a call of this size.
        let mut job = job;
        let started = (piece.len() >= TIMED_CALL_BYTES).then(Instant::now);
        let done = run_to_end(|| job.step(&piece, output.as_mut_slice(), usize::MAX));
        let Ok(written) = done else {
            return Ok(atoms::exact().encode(env));
        };
        let consumed = job.consumed();
        let held_whitespace = written != consumed / 4 * 3;
        charge_decode(env, piece.len(), held_whitespace, started);
        Ok((shrink(output, written).release(env), consumed).encode(env))
    }

    // ---------------------------------------------------------------------------
    // Sliced jobs
    // ---------------------------------------------------------------------------

    enum JobKind {
        Encode(EncodeJob),
        Decode(DecodeJob),
        EncodeWrapped(WrapJob),
        MimeDecode(MimeJob),
        /// Its output buffer is only scratch; the result is `true | false`.
        Validate(ValidateJob),
        /// The result is `{Data, Consumed}`, or `exact` if it fails.
        Quanta(QuantaJob),
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
    fn start_job<'a>(
        env: Env<'a>,
        kind: JobKind,
        output: OwnedBinary,
        input: &[u8],
    ) -> NifResult<Term<'a>> {
        let mut state = JobState {
            kind,
            output: Some(OutputBuffer(output)),
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

    fn run_slice<'a>(
        env: Env<'a>,
        job: ResourceArc<SlicedJob>,
        input: &[u8],
    ) -> NifResult<Term<'a>> {
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
    fn run_steps<'a>(
        env: Env<'a>,
        state: &mut JobState,
        input: &[u8],
    ) -> NifResult<Option<Term<'a>>> {
        let Some(OutputBuffer(output)) = state.output.as_mut() else {
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
            let step = match &mut state.kind {
                JobKind::Encode(j) => j.step(input, output.as_mut_slice(), step_bytes),
                JobKind::Decode(j) => j.step(input, output.as_mut_slice(), step_bytes),
                JobKind::EncodeWrapped(j) => j.step(input, output.as_mut_slice(), step_bytes),
                JobKind::MimeDecode(j) => j.step(input, output.as_mut_slice(), step_bytes),
                JobKind::Validate(j) => j.step(input, output.as_mut_slice(), step_bytes),
                JobKind::Quanta(j) => j.step(input, output.as_mut_slice(), step_bytes),
            };
            if forced.is_some() || step != Step::More || started.elapsed() >= budget::SLICE_TARGET {
                break step;
            }
        };
        rustler::schedule::consume_timeslice(env, budget::elapsed_percent(started.elapsed()));
        match step {
            Step::More => Ok(None),
            Step::Done(written) => {
                let Some(OutputBuffer(output)) = state.output.take() else {
                    return Err(Error::BadArg);
                };
                if let JobKind::Validate(_) = state.kind {
                    return Ok(Some(true.encode(env)));
                }
                let data = shrink(output, written).release(env);
                Ok(Some(match &state.kind {
                    JobKind::Quanta(job) => (data, job.consumed()).encode(env),
                    _ => data.encode(env),
                }))
            }
            Step::Failed(error) => {
                state.output = None;
                Ok(Some(match state.kind {
                    JobKind::Validate(_) => false.encode(env),
                    JobKind::Quanta(_) => atoms::exact().encode(env),
                    _ => error_term(env, error),
                }))
            }
        }
    }

    // ---------------------------------------------------------------------------
    // Line-wrapped encode, mime_decode, is_valid (issue 5)
    // ---------------------------------------------------------------------------

    /// Encodes a binary wrapped in lines of `line_length` characters, with LF
    /// breaks if `lf`, else CRLF. Sliced like `encode/2`.
    #[rustler::nif]
    fn encode_wrapped<'a>(
        env: Env<'a>,
        input: Binary<'a>,
        flags: u32,
        line_length: usize,
        lf: bool,
    ) -> NifResult<Term<'a>> {
        let opts = encode_options(flags)?;
        let lines = lines_of(line_length, lf)?;
        let out_len =
            wrap::wrapped_len(input.len(), opts.padding, lines).ok_or_else(system_limit)?;
        let mut output = alloc_binary(out_len)?;
        let cost = wrap::slice_cost(lines);
        if budget::is_sliced(Work::Encode, input.len().saturating_mul(cost)) {
            return start_job(
                env,
                JobKind::EncodeWrapped(WrapJob::new(opts, lines)),
                output,
                &input,
            );
        }
        let started = (input.len() >= TIMED_CALL_BYTES).then(Instant::now);
        wrap::encode_wrapped_into(&input, opts, lines, output.as_mut_slice());
        charge(env, Work::Encode, input.len().saturating_mul(cost), started);
        Ok(output.release(env).encode(env))
    }

    /// For `b64simd_stream`: `encode_wrapped/4` of `carry` (at most 2 bytes)
    /// followed by `data`, continuing a text whose last line holds `column`
    /// characters, without joining the two: the stream copied every piece
    /// whole, and encoded its last lines again to get the break between
    /// pieces.
    #[rustler::nif]
    fn encode_wrapped_after<'a>(
        env: Env<'a>,
        carry: Binary<'a>,
        data: Binary<'a>,
        flags: u32,
        line_length: usize,
        lf: bool,
        column: usize,
    ) -> NifResult<Term<'a>> {
        let opts = encode_options(flags)?;
        let lines = lines_of(line_length, lf)?;
        if column > line_length || carry.len() > 2 {
            return Err(Error::BadArg);
        }
        let total = joined_len(&carry, &data)?;
        let out_len =
            wrap::wrapped_len_after(total, opts.padding, lines, column).ok_or_else(system_limit)?;
        let mut output = alloc_binary(out_len)?;
        let job = if carry.is_empty() {
            WrapJob::after(opts, lines, column)
        } else {
            let (group, len, taken) = shared_group(&carry, &data);
            let output = output.as_mut_slice();
            WrapJob::after_group(opts, lines, column, &group[..len], taken, output)
        };
        let cost = wrap::slice_cost(lines);
        if budget::is_sliced(Work::Encode, data.len().saturating_mul(cost)) {
            return start_job(env, JobKind::EncodeWrapped(job), output, &data);
        }
        // Inline, charged as encode_wrapped/4 charges a call of this size.
        let mut job = job;
        let started = (data.len() >= TIMED_CALL_BYTES).then(Instant::now);
        // A wrap job never fails; if one did, badarg rather than a wrong text.
        let written = run_to_end(|| job.step(&data, output.as_mut_slice(), usize::MAX))
            .map_err(|_| Error::BadArg)?;
        charge(env, Work::Encode, data.len().saturating_mul(cost), started);
        Ok(shrink(output, written).release(env).encode(env))
    }

    /// OTP's `mime_decode`: every byte outside the alphabet skipped. Only the
    /// mode and padding flags apply. Sliced like `decode/2`.
    fn mime_decode<'a>(env: Env<'a>, input: &'a [u8], flags: u32) -> NifResult<Term<'a>> {
        let opts = decode_options(flags)?;
        if opts.reject_whitespace || opts.canonical {
            return Err(Error::BadArg);
        }
        let max_len = codec::maximal_decoded_len(input.len());
        let cost = mime::SLICE_COST;
        if budget::is_sliced(Work::Decode, input.len().saturating_mul(cost)) {
            let output = alloc_binary(max_len)?;
            return start_job(env, JobKind::MimeDecode(MimeJob::new(opts)), output, input);
        }
        let started = (input.len() >= TIMED_CALL_BYTES).then(Instant::now);
        let (result, _) = decode_to_term(env, max_len, |output| {
            mime::mime_decode_into(input, opts, output)
        })?;
        charge(env, Work::Decode, input.len().saturating_mul(cost), started);
        Ok(result)
    }

    /// Whether `try_decode/2` with these flags would accept the binary,
    /// decoding into a small scratch buffer only: `true`, `false`, or for a
    /// big input `{continue, Job}` (the job's output is that scratch).
    fn is_valid<'a>(env: Env<'a>, input: &'a [u8], flags: u32) -> NifResult<Term<'a>> {
        let opts = decode_options(flags)?;
        if budget::is_sliced(Work::Decode, input.len()) {
            let scratch = alloc_binary(validate::SCRATCH)?;
            return start_job(
                env,
                JobKind::Validate(ValidateJob::new(opts)),
                scratch,
                input,
            );
        }
        let started = (input.len() >= TIMED_CALL_BYTES).then(Instant::now);
        let valid = validate::is_valid(input, opts);
        charge(env, Work::Decode, input.len(), started);
        Ok(valid.encode(env))
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

    /// The calibrated cost of a call too short to time,
    /// `{{EncodeFixedNs, EncodePsPerByte}, {DecodeFixedNs, DecodePsPerByte},
    /// WhitespaceFactor}`, for the benchmark's report and the tests.
    #[rustler::nif]
    fn call_cost() -> ((usize, usize), (usize, usize), usize) {
        (
            budget::call_cost_of(Work::Encode),
            budget::call_cost_of(Work::Decode),
            budget::whitespace_factor(),
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

    /// Measures the active kernel's speed, so that slice thresholds and charges fit
    /// whatever CPU and kernel this is.
    fn calibrate() {
        let plain = vec![0x5Au8; budget::CALIBRATION_MAX_BYTES];
        budget::calibrate(Work::Encode, |len| {
            let mut encoded = vec![0u8; codec::encoded_len(len, true).unwrap_or(0)];
            codec::encode_into(&plain[..len], EncodeOptions::DEFAULT, &mut encoded);
        });
        let mut encoded = vec![0u8; codec::encoded_len(plain.len(), true).unwrap_or(0)];
        codec::encode_into(&plain, EncodeOptions::DEFAULT, &mut encoded);
        budget::calibrate(Work::Decode, |len| {
            let piece = &encoded[..len / 4 * 4];
            let mut decoded = vec![0u8; codec::maximal_decoded_len(piece.len())];
            let _ = codec::decode_into(piece, DecodeOptions::DEFAULT, &mut decoded);
        });
        // A call's work as a loop of calls does it: the output is an ERTS
        // binary, allocated and freed each time.
        budget::calibrate_call_cost(Work::Encode, |len| {
            let out_len = codec::encoded_len(len, true).unwrap_or(0);
            if let Ok(mut output) = alloc_binary(out_len) {
                codec::encode_into(&plain[..len], EncodeOptions::DEFAULT, output.as_mut_slice());
            }
        });
        budget::calibrate_call_cost(Work::Decode, |len| {
            let piece = &encoded[..len / 4 * 4];
            if let Ok(mut output) = alloc_binary(codec::decoded_len_bound(piece)) {
                let _ = codec::decode_into(piece, DecodeOptions::DEFAULT, output.as_mut_slice());
            }
        });
        // The same 12 KiB of data, unbroken and as MIME text.
        let data = &plain[..12 * 1024];
        let mime = Lines {
            length: 76,
            line_break: LineBreak::CrLf,
        };
        let mut wrapped = vec![0u8; wrap::wrapped_len(data.len(), true, mime).unwrap_or(0)];
        wrap::encode_wrapped_into(data, EncodeOptions::DEFAULT, mime, &mut wrapped);
        let unbroken = &encoded[..codec::encoded_len(data.len(), true).unwrap_or(0)];
        let mut decoded = vec![0u8; codec::maximal_decoded_len(wrapped.len())];
        let mut scratch = decoded.clone();
        budget::calibrate_whitespace(
            || {
                let _ = codec::decode_into(unbroken, DecodeOptions::DEFAULT, &mut decoded);
            },
            || {
                let _ = codec::decode_into(&wrapped, DecodeOptions::DEFAULT, &mut scratch);
            },
        );
    }

    rustler::init!("b64simd_nif", load = load);
}
