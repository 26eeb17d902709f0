//! Calibration: the active kernel's speed, so that slice sizes and charges
//! fit whatever CPU and kernel this is. It takes tens of milliseconds, so it
//! runs on a thread of its own, started by the first load: loading blocks no
//! scheduler, and calls made meanwhile are charged and sliced by `budget`'s
//! conservative defaults. Once per VM: the library stays mapped after a
//! purge (`pin_library`), and a module loaded again keeps its figures.

use crate::term::ErtsBinary;
use b64simd_core::budget::{self, Work};
use b64simd_core::decode::DecodeJob;
use b64simd_core::encode::wrap::WrapJob;
use b64simd_core::encode::EncodeJob;
use b64simd_core::job::{Buffer, Job};
use b64simd_core::lengths::{encoded_len, wrapped_len};
use b64simd_core::options::{DecodeOptions, EncodeOptions, Kind, LineBreak, Lines};
use std::sync::{Condvar, Mutex};

/// Whether the calibration has started, and whether it has ended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    NotStarted,
    Running,
    Done,
}

static STATE: (Mutex<State>, Condvar) = (Mutex::new(State::NotStarted), Condvar::new());

/// The calibration thread's name, which Linux shows (`/proc/PID/task/*/comm`,
/// at most 15 bytes): the benchmark waits until it is gone.
const CALIBRATION_THREAD: &str = "b64simd_calib";

/// Starts the calibration on a thread of its own, or runs it here where
/// no thread can be started safely; nothing if it has started before.
pub(crate) fn start() {
    {
        let mut state = STATE.0.lock().unwrap_or_else(|e| e.into_inner());
        if *state != State::NotStarted {
            return;
        }
        *state = State::Running;
    }
    let spawned = pin_library()
        && std::thread::Builder::new()
            .name(CALIBRATION_THREAD.into())
            .spawn(run)
            .is_ok();
    if !spawned {
        run();
    }
}

fn run() {
    /// Marks the calibration ended however it ends, a panic included, so
    /// that nothing waits for it forever.
    struct Ended;
    impl Drop for Ended {
        fn drop(&mut self) {
            *STATE.0.lock().unwrap_or_else(|e| e.into_inner()) = State::Done;
            STATE.1.notify_all();
        }
    }
    let _ended = Ended;
    calibrate();
}

/// Waits until the calibration has ended: for the hooks that read or set
/// the calibrated figures.
#[cfg(feature = "hooks")]
pub(crate) fn wait() {
    let mut state = STATE.0.lock().unwrap_or_else(|e| e.into_inner());
    while *state == State::Running {
        state = STATE.1.wait(state).unwrap_or_else(|e| e.into_inner());
    }
}

/// Keeps this library mapped for the rest of the VM's life, so that the
/// calibration thread never runs in unmapped code: purging the module
/// unloads its library (`dlclose`), and rustler 0.37 registers no `unload`
/// callback in which the thread could be joined. A module loaded again
/// after a purge then gets this same copy of the library, its statics
/// included: the calibrated figures, and the kernel and encoder chosen.
#[cfg(unix)]
fn pin_library() -> bool {
    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::uninit();
    let this = pin_library as fn() -> bool as *const libc::c_void;
    // SAFETY: dladdr only looks `this` up among the loaded objects (it is
    // code of this library) and fills `info` when it returns non-zero.
    if unsafe { libc::dladdr(this, info.as_mut_ptr()) } == 0 {
        return false;
    }
    // SAFETY: filled by the successful dladdr above.
    let path = unsafe { info.assume_init() }.dli_fname;
    if path.is_null() {
        return false;
    }
    // SAFETY: `path` is the NUL-terminated name of this library, valid while
    // it is loaded, as it is while this code runs. RTLD_NOLOAD opens
    // nothing new: it adds a reference to the loaded library, never dropped,
    // and marks it RTLD_NODELETE.
    let handle = unsafe {
        libc::dlopen(
            path,
            libc::RTLD_LAZY | libc::RTLD_NOLOAD | libc::RTLD_NODELETE,
        )
    };
    !handle.is_null()
}

#[cfg(not(unix))]
fn pin_library() -> bool {
    false
}

/// The length of the buffer `job` asks for (0 where it overflows, which
/// the samples here never do).
fn output_len(job: &impl Job, input: &[u8]) -> usize {
    job.buffer(input).map_or(0, Buffer::size)
}

/// `len` bytes encoded into `output`, as a call does.
fn encode(input: &[u8], output: &mut [u8]) {
    let _ = EncodeJob::new(EncodeOptions::DEFAULT).run_to_end(input, output, usize::MAX);
}

/// `input` decoded into a buffer of its own, as a call does.
fn decode(input: &[u8], output: &mut Vec<u8>) {
    let mut job = DecodeJob::new(input, DecodeOptions::DEFAULT);
    output.resize(output_len(&job, input), 0);
    let _ = job.run_to_end(input, output, usize::MAX);
}

fn calibrate() {
    let plain = vec![0x5Au8; budget::CALIBRATION_MAX_BYTES];
    let encoded_len_of = |len| encoded_len(len, true).unwrap_or(0);
    budget::calibrate(Work::Encode, |len| {
        encode(&plain[..len], &mut vec![0u8; encoded_len_of(len)]);
    });
    let mut encoded = vec![0u8; encoded_len_of(plain.len())];
    encode(&plain, &mut encoded);
    budget::calibrate(Work::Decode, |len| {
        decode(&encoded[..len / 4 * 4], &mut Vec::new());
    });
    // A call's work as a loop of calls does it: the output is an ERTS
    // binary, allocated and freed each time.
    budget::calibrate_call_cost(Work::Encode, plain.len(), |at, len| {
        if let Some(mut output) = ErtsBinary::new(encoded_len_of(len)) {
            encode(&plain[at..at + len], output.as_mut_slice());
        }
    });
    budget::calibrate_call_cost(Work::Decode, encoded.len(), |at, len| {
        let piece = &encoded[at..][..len / 4 * 4];
        let mut job = DecodeJob::new(piece, DecodeOptions::DEFAULT);
        if let Some(mut output) = ErtsBinary::new(output_len(&job, piece)) {
            let _ = job.run_to_end(piece, output.as_mut_slice(), usize::MAX);
        }
    });
    calibrate_weights(&plain[..WEIGHT_SAMPLE], &encoded);
    // The same 12 KiB of data, unbroken and as MIME text.
    let data = &plain[..12 * 1024];
    let mime = Lines {
        length: 76,
        line_break: LineBreak::CrLf,
    };
    let mut wrapped = vec![0u8; wrapped_len(data.len(), true, mime, 0).unwrap_or(0)];
    let _ = WrapJob::new(EncodeOptions::DEFAULT, mime).run_to_end(data, &mut wrapped, usize::MAX);
    let unbroken = &encoded[..encoded_len_of(data.len())];
    let (mut decoded, mut scratch) = (Vec::new(), Vec::new());
    budget::calibrate_whitespace(
        || decode(unbroken, &mut decoded),
        || decode(&wrapped, &mut scratch),
    );
}

/// The input of each weight's measurement: in L2, as most calls' data is.
const WEIGHT_SAMPLE: usize = 64 * 1024;

/// A kind of call beside Base64's, as the calibration weighs it against
/// Base64's work of its kind: registered beside the call (`weighed!` in
/// `calls.rs`), so that the calibration names no codec.
pub(crate) struct Weighing {
    pub(crate) kind: Kind,
    /// A decoder's: the encoder whose output is its sample (an encoder's
    /// is plain data).
    pub(crate) text_of: Option<Kind>,
    /// The call's job, on its default options, run on `input` into `output`
    /// (which it sizes).
    pub(crate) run: fn(&[u8], &mut Vec<u8>),
}

inventory::collect!(Weighing);

/// Registers the weighing of a kind, whose job on default options
/// `job(input)` makes; a decoder names the encoder whose output it decodes
/// (`text_of`).
macro_rules! weighed {
    ($kind:expr, job: $new_job:expr) => {
        $crate::calibrate::weighed!(@submit $kind, None, $new_job);
    };
    ($kind:expr, text_of: $encoder:expr, job: $new_job:expr) => {
        $crate::calibrate::weighed!(@submit $kind, Some($encoder), $new_job);
    };
    (@submit $kind:expr, $text_of:expr, $new_job:expr) => {
        inventory::submit!($crate::calibrate::Weighing {
            kind: $kind,
            text_of: $text_of,
            run: {
                fn run(input: &[u8], output: &mut Vec<u8>) {
                    $crate::calibrate::run_job(($new_job)(input), input, output)
                }
                run
            },
        });
    };
}
pub(crate) use weighed;

/// Runs `job` on `input` into `output`, sized for it first.
pub(crate) fn run_job(mut job: impl Job, input: &[u8], output: &mut Vec<u8>) {
    output.resize(output_len(&job, input), 0);
    let _ = job.run_to_end(input, output, usize::MAX);
}

/// Every registered weight: each kind's time on `WEIGHT_SAMPLE` input
/// bytes against Base64's of the same kind of work on as many (`encoded`
/// is Base64 text of at least that many characters). Encoders first: what
/// they write is the decoders' samples.
fn calibrate_weights(plain: &[u8], encoded: &[u8]) {
    let mut weighings: Vec<&Weighing> = inventory::iter::<Weighing>.into_iter().collect();
    weighings.sort_by_key(|weighing| weighing.text_of.is_some());
    let mut base64_out = vec![0u8; encoded_len(plain.len(), true).unwrap_or(0)];
    let mut base64_decoded = Vec::new();
    let mut texts: Vec<(Kind, Vec<u8>)> = Vec::new();
    for weighing in weighings {
        let mut output = Vec::new();
        let run = weighing.run;
        match weighing.text_of {
            None => {
                budget::calibrate_weight(
                    weighing.kind,
                    || run(plain, &mut output),
                    || encode(plain, &mut base64_out),
                );
                texts.push((weighing.kind, output));
            }
            Some(encoder) => {
                // No such encoder, or too short a text: the rough weight stays.
                let Some(sample) = texts
                    .iter()
                    .find(|(kind, _)| *kind == encoder)
                    .and_then(|(_, text)| text.get(..WEIGHT_SAMPLE))
                else {
                    continue;
                };
                budget::calibrate_weight(
                    weighing.kind,
                    || run(sample, &mut output),
                    || decode(&encoded[..WEIGHT_SAMPLE], &mut base64_decoded),
                );
            }
        }
    }
}
