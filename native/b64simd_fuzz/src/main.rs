//! Differential fuzzer for b64simd's codec.
//!
//! Random and mutated inputs go through every path of our codec (encode
//! and decode jobs one-shot and with random slice sizes, a decoding stream
//! in pieces, validation) and are compared with the `base64` crate
//! configured per mode (output bytes, accept/reject) and with
//! `scalar::decode`, which defines our error reasons and offsets. Encode
//! also goes through our own AVX2 encoder, where the CPU has AVX2, whatever
//! the kernel: both ways it stores, at every output alignment. Base16 and
//! Base32 (`codecs`) are compared with a scalar reference of their own.
//!
//! simdutf reads `SIMDUTF_FORCE_IMPLEMENTATION` once per process, so the
//! fuzzer runs one child process per kernel this CPU supports:
//!
//! ```text
//! b64simd_fuzz [--seconds N] [--seed S]            every supported kernel, N s each
//! b64simd_fuzz --kernel K [--seconds N] [--seed S]  one kernel (the env var must name K)
//! ```
//!
//! Every run first replays the regression cases in `regressions/`; a new
//! mismatch is saved there (the input only: a replay tries every option) and
//! makes the run exit non-zero.

mod check;
mod codecs;
mod inputs;
mod reference;

use b64simd_core::avx2;
use b64simd_core::kernel;
use b64simd_core::options::DecodeOptions;
use b64simd_core::reached::{calls_with_rounds, Rounds};
use inputs::Rng;
use reference::Reference;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Lengths of plain data cycled through: encodings up to 4 KiB.
const SMALL_PLAIN_MAX: usize = 3072;
/// Occasional large inputs, to cross many SIMD blocks and many slices.
const LARGE_PLAIN_MAX: usize = 4 << 20;
/// Stop early after this many mismatches: they are all saved.
const MAX_MISMATCHES: u64 = 20;

struct Args {
    seconds: f64,
    seed: u64,
    kernel: Option<String>,
    regressions: PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        seconds: 10.0,
        seed: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64),
        kernel: None,
        regressions: Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--seconds" => args.seconds = value.parse().map_err(|e| format!("--seconds: {e}"))?,
            "--seed" => {
                let digits = value.trim_start_matches("0x");
                args.seed = u64::from_str_radix(digits, 16).map_err(|e| format!("--seed: {e}"))?
            }
            "--kernel" => args.kernel = Some(value),
            "--regressions" => args.regressions = PathBuf::from(value),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(message) => {
            eprintln!("b64simd_fuzz: {message}");
            return ExitCode::from(2);
        }
    };
    match &args.kernel {
        Some(kernel) => run_kernel(&args, kernel),
        None => run_all_kernels(&args),
    }
}

// ---------------------------------------------------------------------------
// Driver: one child per kernel
// ---------------------------------------------------------------------------

fn run_all_kernels(args: &Args) -> ExitCode {
    let kernels = kernel::supported();
    println!(
        "b64simd_fuzz: seed {:#x}, {} s per kernel, kernels: {}",
        args.seed,
        args.seconds,
        kernels.join(" ")
    );
    let Ok(exe) = std::env::current_exe() else {
        eprintln!("b64simd_fuzz: cannot find my own executable");
        return ExitCode::FAILURE;
    };
    let mut results = Vec::new();
    let mut failed = false;
    for k in &kernels {
        let child = Command::new(&exe)
            .args(["--kernel", k, "--seconds", &args.seconds.to_string()])
            .args(["--seed", &format!("{:#x}", args.seed)])
            .arg("--regressions")
            .arg(&args.regressions)
            .env(kernel::FORCE_VARIABLE, k)
            .stdout(Stdio::piped())
            .spawn();
        let mut child = match child {
            Ok(child) => child,
            Err(e) => {
                eprintln!("b64simd_fuzz: cannot start the {k} child: {e}");
                return ExitCode::FAILURE;
            }
        };
        let mut summary = None;
        if let Some(out) = child.stdout.take() {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                println!("{line}");
                if let Some(rest) = line.strip_prefix("RESULT ") {
                    summary = Some(rest.to_string());
                }
            }
        }
        let ok = child.wait().is_ok_and(|status| status.success());
        failed |= !ok || summary.is_none();
        results.push((k, summary.unwrap_or_else(|| "no result (crashed?)".into())));
    }
    println!("b64simd_fuzz: summary (seed {:#x})", args.seed);
    for (k, summary) in &results {
        println!("  {k:<9} {summary}");
    }
    if failed {
        println!("b64simd_fuzz: FAILED");
        ExitCode::FAILURE
    } else {
        println!("b64simd_fuzz: no mismatches on {} kernels", results.len());
        ExitCode::SUCCESS
    }
}

// ---------------------------------------------------------------------------
// One kernel
// ---------------------------------------------------------------------------

#[derive(Default)]
struct Stats {
    rounds: u64,
    decode_cases: u64,
    encode_cases: u64,
    /// Encode and decode cases that reached our AVX2 encoder's and
    /// decoder's rounds: 0 of either fails the run on a CPU with AVX2.
    avx2_encode_cases: u64,
    avx2_decode_cases: u64,
    large_inputs: u64,
    codec_cases: u64,
    regression_cases: u64,
    mismatches: u64,
}

struct Fuzzer<'a> {
    reference: Reference,
    decode_options: Vec<DecodeOptions>,
    regressions: &'a Path,
    kernel: &'a str,
    stats: Stats,
}

fn run_kernel(args: &Args, kernel: &str) -> ExitCode {
    let forced = std::env::var(kernel::FORCE_VARIABLE).ok();
    if forced.as_deref() != Some(kernel) {
        eprintln!(
            "b64simd_fuzz: --kernel {kernel} needs {}={kernel} (simdutf reads it at start-up)",
            kernel::FORCE_VARIABLE
        );
        return ExitCode::from(2);
    }
    if let Err(refusal) = kernel::active() {
        eprintln!(
            "b64simd_fuzz: {} refused: {refusal:?}",
            kernel::FORCE_VARIABLE
        );
        return ExitCode::from(2);
    }
    let mut fuzzer = Fuzzer {
        reference: Reference::new(),
        decode_options: check::all_decode_options(),
        regressions: &args.regressions,
        kernel,
        stats: Stats::default(),
    };
    fuzzer.replay_regressions();
    let mut rng = Rng::new(args.seed);
    let start_len = rng.below(SMALL_PLAIN_MAX + 1);
    let deadline = Instant::now() + Duration::from_secs_f64(args.seconds);
    while Instant::now() < deadline && fuzzer.stats.mismatches < MAX_MISMATCHES {
        let round = fuzzer.stats.rounds;
        let len = if rng.chance(300) {
            fuzzer.stats.large_inputs += 1;
            64 * 1024 + rng.below(LARGE_PLAIN_MAX)
        } else if rng.chance(4) {
            rng.below(64)
        } else {
            (start_len + round as usize) % (SMALL_PLAIN_MAX + 1)
        };
        fuzzer.round(&mut rng, len);
        fuzzer.stats.rounds += 1;
    }
    let s = &fuzzer.stats;
    println!(
        "RESULT kernel={kernel} seed={:#x} cases={} decode={} encode={} avx2_encode={} \
         avx2::decode={} large_inputs={} base16_base32={} regression_cases={} mismatches={}",
        args.seed,
        s.decode_cases + s.encode_cases + s.codec_cases + s.regression_cases,
        s.decode_cases,
        s.encode_cases,
        s.avx2_encode_cases,
        s.avx2_decode_cases,
        s.large_inputs,
        s.codec_cases,
        s.regression_cases,
        s.mismatches
    );
    let avx2_unreached =
        avx2::available() && (s.avx2_encode_cases == 0 || s.avx2_decode_cases == 0);
    if avx2_unreached {
        println!(
            "b64simd_fuzz: FAILED: this CPU has AVX2, and no case reached our AVX2 encoder \
             ({} cases) or decoder ({} cases)",
            s.avx2_encode_cases, s.avx2_decode_cases
        );
    }
    if s.mismatches == 0 && !avx2_unreached {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn slice_size(rng: &mut Rng, input_len: usize) -> usize {
    if input_len > 64 * 1024 {
        4096 + rng.below(1 << 20)
    } else if rng.chance(2) {
        rng.pick(&[1, 2, 3, 4, 5, 7, 8, 12, 16, 63, 64, 100, 1000])
    } else {
        1 + rng.below(input_len + 2)
    }
}

impl Fuzzer<'_> {
    fn round(&mut self, rng: &mut Rng, len: usize) {
        let plain = inputs::plain(rng, len);
        let large = len > 64 * 1024;
        self.codecs(rng, &plain[..len.min(64 * 1024)]);
        for opts in check::all_encode_options() {
            let slice = slice_size(rng, len);
            self.stats.encode_cases += 1;
            let rounds_before = calls_with_rounds(Rounds::Encode);
            if let Err(why) = check::encode_case(&self.reference, &plain, opts, slice) {
                self.mismatch("encode", &plain, &format!("{opts:?}: {why}"));
            }
            let reached = calls_with_rounds(Rounds::Encode) > rounds_before;
            self.stats.avx2_encode_cases += u64::from(reached);
        }
        let encode_opts = rng.pick(&check::all_encode_options());
        let valid = self.reference.encode(&plain, encode_opts);
        let variants = if large { 1 } else { 2 };
        let mut texts = vec![valid.clone()];
        for _ in 0..variants {
            let mut text = valid.clone();
            inputs::mutate(rng, &mut text);
            texts.push(text);
        }
        for text in texts {
            let options: Vec<DecodeOptions> = if large {
                (0..3).map(|_| rng.pick(&self.decode_options)).collect()
            } else {
                self.decode_options.clone()
            };
            for opts in options {
                let slice = slice_size(rng, text.len());
                self.stats.decode_cases += 1;
                let rounds_before = calls_with_rounds(Rounds::Decode);
                if let Err(why) = check::decode_case(&self.reference, &text, opts, slice) {
                    self.mismatch("decode", &text, &format!("{opts:?}: {why}"));
                }
                let reached = calls_with_rounds(Rounds::Decode) > rounds_before;
                self.stats.avx2_decode_cases += u64::from(reached);
            }
        }
    }

    /// Base16 and Base32 of `plain`, and of mutations of its encodings.
    fn codecs(&mut self, rng: &mut Rng, plain: &[u8]) {
        let upper = rng.chance(2);
        let hex_texts = codecs::texts(rng, codecs::hex_reference_encode(plain, upper));
        self.stats.codec_cases += 1;
        if let Err(why) = codecs::hex_case(plain, &hex_texts, rng) {
            let text = hex_texts.iter().max_by_key(|t| t.len()).cloned();
            self.mismatch("hex", &text.unwrap_or_default(), &why);
        }
        let opts = rng.pick(&codecs::base32_encode_options());
        let base32_texts = codecs::texts(rng, codecs::base32_reference_encode(plain, opts));
        self.stats.codec_cases += 1;
        if let Err(why) = codecs::base32_case(plain, &base32_texts, rng) {
            let text = base32_texts.iter().max_by_key(|t| t.len()).cloned();
            self.mismatch("base32", &text.unwrap_or_default(), &why);
        }
    }

    /// Saves the input under a name derived from its content (so a mismatch
    /// seen under several options is saved once) and reports it.
    fn mismatch(&mut self, kind: &str, input: &[u8], why: &str) {
        self.stats.mismatches += 1;
        let path = self
            .regressions
            .join(format!("{kind}-{:016x}.bin", fnv1a(input)));
        let saved =
            std::fs::create_dir_all(self.regressions).and_then(|()| std::fs::write(&path, input));
        let shown = if input.len() <= 200 {
            format!("{:?}", String::from_utf8_lossy(input))
        } else {
            format!("{} bytes", input.len())
        };
        eprintln!(
            "MISMATCH kernel={} round={} {kind} input {shown}: {why}",
            self.kernel, self.stats.rounds
        );
        match saved {
            Ok(()) => eprintln!("  saved as {}", path.display()),
            Err(e) => eprintln!("  could not save {}: {e}", path.display()),
        }
    }

    /// Replays every saved case under every option and several slicings.
    fn replay_regressions(&mut self) {
        let Ok(dir) = std::fs::read_dir(self.regressions) else {
            return;
        };
        let mut paths: Vec<PathBuf> = dir.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let Some(name) = name else { continue };
            let Ok(input) = std::fs::read(&path) else {
                continue;
            };
            let slices = [1, 5, 64, input.len() + 1];
            let mut failures = Vec::new();
            if name.starts_with("decode-") {
                for &opts in &self.decode_options {
                    for slice in slices {
                        self.stats.regression_cases += 1;
                        if let Err(why) = check::decode_case(&self.reference, &input, opts, slice) {
                            failures.push(format!("{opts:?}: {why}"));
                        }
                    }
                }
            } else if name.starts_with("hex-") || name.starts_with("base32-") {
                // The input as data and as text, under every option.
                self.stats.regression_cases += 1;
                let texts = [input.clone()];
                let mut rng = Rng::new(fnv1a(&input));
                let checked = match name.starts_with("hex-") {
                    true => codecs::hex_case(&input, &texts, &mut rng),
                    false => codecs::base32_case(&input, &texts, &mut rng),
                };
                if let Err(why) = checked {
                    failures.push(why);
                }
            } else if name.starts_with("encode-") {
                for opts in check::all_encode_options() {
                    for slice in slices {
                        self.stats.regression_cases += 1;
                        if let Err(why) = check::encode_case(&self.reference, &input, opts, slice) {
                            failures.push(format!("{opts:?}: {why}"));
                        }
                    }
                }
            }
            for why in failures {
                self.stats.mismatches += 1;
                eprintln!("MISMATCH kernel={} regression {name}: {why}", self.kernel);
            }
        }
    }
}

/// FNV-1a, 64-bit: a stable content name for saved inputs.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
