//! Kernel-level Base64 throughput, outside the BEAM: our AVX2 encoder,
//! simdutf's encoder and decoder (of the kernel `SIMDUTF_FORCE_IMPLEMENTATION`
//! names, or its own choice), and aklomp/base64 as b64veryfast builds it
//! (its `priv/b64veryfast.so`, opened at run time, none of its code here).
//!
//!   cargo run --release -p b64simd_core --example kernels -- [B64VERYFAST_SO]
//!   cargo run --release -p b64simd_core --example kernels -- kernels
//!
//! (the second prints the simdutf kernels this CPU runs; `make kernels`
//! runs the first once per kernel).
//! Each figure is the median of 7 runs of at least 20 ms, the series of a
//! size taken in turn, in MiB/s of the unencoded bytes. Three buffer
//! regimes: `warm` (the same input and output every call: in cache up to
//! its size), `fresh` (from 1 MiB, each call's output newly mapped from the
//! kernel, as a big new binary's can be: page faults included), and `read`
//! (warm, then the output read once, as a caller that sends it does).
//! Then short text, 64 to 4,096 characters, where our AVX2 decoder runs in
//! place of simdutf's haswell one (and icelake's, to 192 characters;
//! `docs/ARCHITECTURE.md`, "Our AVX2 short decoder"), warm, also in ns per
//! call: its rounds alone on whole 16-character units, and the first stage
//! of every decode as it ships (`decode::short`), which takes them or
//! simdutf's decoder as its rule for the kernel says (a run with
//! `B64SIMD_OWN_AVX2=never`, which turns ours off, gives the other).
//! `bench/README.md` has the method and the figures.

use b64simd_core::avx2::{self, Stores};
use b64simd_core::decode::short;
use b64simd_core::kernel;
use b64simd_core::lengths::encoded_len;
use b64simd_core::options::{Alphabet, DecodeOptions, EncodeOptions};
use b64simd_core::output::as_output;
use b64simd_core::simdutf::decode_loose;
use std::ffi::{c_char, c_int, c_void, CString};
use std::time::{Duration, Instant};

const SIZES: [usize; 9] = [
    32,
    4096,
    65536,
    1 << 20,
    4 << 20,
    8 << 20,
    12 << 20,
    16 << 20,
    64 << 20,
];
/// The short texts' unencoded sizes: 64 to 4,096 characters, no padding;
/// whole 64-character blocks, and texts with 20, 44 or 60 characters after
/// them, which simdutf's haswell decoder reads one at a time.
const SHORT_SIZES: [usize; 14] = [
    48, 96, 144, 192, 384, 480, 513, 525, 576, 768, 783, 801, 1023, 3072,
];
const RUNS: usize = 7;
const MIN_RUN: Duration = Duration::from_millis(20);

extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *const c_char;
    fn mmap(
        addr: *mut c_void,
        len: usize,
        prot: c_int,
        flags: c_int,
        fd: c_int,
        off: i64,
    ) -> *mut c_void;
    fn munmap(addr: *mut c_void, len: usize) -> c_int;
}
const RTLD_LAZY: c_int = 1;
const PROT_READ_WRITE: c_int = 3;
const MAP_PRIVATE_ANONYMOUS: c_int = 0x02 | 0x20;

/// aklomp/base64's `base64_encode` and `base64_decode`.
type AklompCall = unsafe extern "C" fn(*const u8, usize, *mut u8, *mut usize, c_int) -> c_int;
/// 0 lets aklomp choose its codec (AVX-512 VBMI where the CPU has it);
/// forcing its AVX-512 codec (1 << 8) is ignored once it has chosen.
const AKLOMP_AUTO: c_int = 0;
const AKLOMP_FORCE_AVX2: c_int = 1 << 0;

struct Aklomp {
    encode: AklompCall,
    decode: AklompCall,
}

/// aklomp's two calls from a copy of b64veryfast's NIF library of its own
/// (aklomp keeps the codec it chose in a static, and forgets a forced
/// choice for no later call). Its `enif_*` references stay unresolved: lazy
/// binding never needs them, as nothing here calls the NIF's own functions.
fn open_aklomp(library: &str, copy: &str) -> Aklomp {
    let copy_path = std::env::temp_dir().join(format!("b64simd-kernels-{copy}.so"));
    std::fs::copy(library, &copy_path).expect("a copy of the library");
    let path = CString::new(copy_path.to_str().expect("a UTF-8 path")).expect("no NUL");
    // SAFETY: dlopen and dlsym take NUL-terminated strings (CString, and
    // the literals below); a null handle or symbol is checked before use,
    // and both symbols are aklomp's functions of the `AklompCall` type
    // (its include/libbase64.h).
    unsafe {
        let handle = dlopen(path.as_ptr(), RTLD_LAZY);
        if handle.is_null() {
            let why = std::ffi::CStr::from_ptr(dlerror());
            panic!("cannot open {path:?}: {why:?}");
        }
        let symbol = |name: &[u8]| {
            let found = dlsym(handle, name.as_ptr().cast());
            assert!(!found.is_null(), "no {:?} in it", std::str::from_utf8(name));
            std::mem::transmute::<*mut c_void, AklompCall>(found)
        };
        Aklomp {
            encode: symbol(b"base64_encode\0"),
            decode: symbol(b"base64_decode\0"),
        }
    }
}

/// Output memory newly mapped from the kernel: zeroed and untouched.
struct Fresh {
    at: *mut u8,
    len: usize,
}

impl Fresh {
    fn new(len: usize) -> Fresh {
        // SAFETY: an anonymous private mapping of `len` bytes (len > 0), its
        // result checked.
        let at = unsafe {
            mmap(
                std::ptr::null_mut(),
                len,
                PROT_READ_WRITE,
                MAP_PRIVATE_ANONYMOUS,
                -1,
                0,
            )
        };
        assert!(at as isize != -1, "mmap of {len} bytes failed");
        Fresh { at: at.cast(), len }
    }

    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: the mapping is `len` bytes, readable and writable, zeroed
        // by the kernel (so initialised), and only this value refers to it.
        unsafe { std::slice::from_raw_parts_mut(self.at, self.len) }
    }
}

impl Drop for Fresh {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe { munmap(self.at.cast(), self.len) };
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Regime {
    Warm,
    Fresh,
    Read,
}

type Kernel<'a> = Box<dyn Fn(&[u8], &mut [u8]) -> usize + 'a>;

/// MiB/s of one run of `call` over `input`, at least MIN_RUN long.
fn run(call: &Kernel, input: &[u8], out_len: usize, regime: Regime, sink: &mut u64) -> f64 {
    let mut out = vec![0u8; out_len];
    // A first call untimed: `out`'s pages are mapped in, its lines cached.
    *sink += call(input, &mut out) as u64;
    let mut calls = 0u64;
    let start = Instant::now();
    loop {
        for _ in 0..(1 + (1 << 20) / (input.len() + 1)) {
            match regime {
                Regime::Warm => *sink += call(input, &mut out) as u64,
                Regime::Fresh => {
                    let mut fresh = Fresh::new(out_len);
                    *sink += call(input, fresh.bytes()) as u64;
                }
                Regime::Read => {
                    let n = call(input, &mut out);
                    *sink += out[..n]
                        .chunks_exact(8)
                        .map(|word| u64::from_le_bytes(word.try_into().expect("8 bytes")))
                        .fold(0u64, u64::wrapping_add);
                }
            }
            calls += 1;
        }
        let elapsed = start.elapsed();
        if elapsed >= MIN_RUN {
            return (calls as f64 * input.len() as f64) / (1 << 20) as f64 / elapsed.as_secs_f64();
        }
    }
}

/// One of aklomp's calls with these flags, as a kernel of this harness.
fn aklomp_kernel<'a>(call: AklompCall, flags: c_int) -> Kernel<'a> {
    // SAFETY: aklomp writes at most 4/3 of the input rounded up to 4
    // (encode) or 3/4 of it (decode), which `out` holds (sized by
    // `encoded_len`, or the input's length); it writes the length into
    // `written`.
    Box::new(move |input, out: &mut [u8]| unsafe {
        let mut written = 0;
        call(
            input.as_ptr(),
            input.len(),
            out.as_mut_ptr(),
            &mut written,
            flags,
        );
        written
    })
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
    xs[xs.len() / 2]
}

fn main() {
    let aklomp_library = std::env::args().nth(1);
    if aklomp_library.as_deref() == Some("kernels") {
        println!("{}", kernel::supported().join(" "));
        return;
    }
    let simdutf_kernel = kernel::active().expect("a usable simdutf kernel");
    println!("simdutf kernel {simdutf_kernel}; MiB/s of unencoded bytes, median of {RUNS} runs");
    let opts = EncodeOptions::DEFAULT;
    let mut encoders: Vec<(String, Kernel)> = vec![(
        format!("simdutf {simdutf_kernel}"),
        Box::new(move |input, out| {
            b64simd_core::simdutf::simdutf_encode_into(input, opts, as_output(out))
        }),
    )];
    if avx2::available() {
        encoders.push((
            "ours avx2".into(),
            Box::new(move |input, out| {
                avx2::avx2_encode_into(input, opts, as_output(out), Stores::Cached)
            }),
        ));
        encoders.push((
            "ours avx2 streaming".into(),
            Box::new(move |input, out| {
                avx2::avx2_encode_into(input, opts, as_output(out), Stores::Streaming)
            }),
        ));
    }
    let mut decoders: Vec<(String, Kernel)> = vec![(
        format!("simdutf {simdutf_kernel}"),
        Box::new(|input, out| decode_loose(input, Alphabet::Standard, as_output(out)).count),
    )];
    if let Some(library) = &aklomp_library {
        for (name, flags) in [
            ("aklomp avx2", AKLOMP_FORCE_AVX2),
            ("aklomp auto", AKLOMP_AUTO),
        ] {
            let aklomp = open_aklomp(library, &name.replace(' ', "-"));
            encoders.push((name.into(), aklomp_kernel(aklomp.encode, flags)));
            decoders.push((name.into(), aklomp_kernel(aklomp.decode, flags)));
        }
    }
    let mut sink = 0u64;
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let plain: Vec<u8> = (0..SIZES[SIZES.len() - 1])
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    for (what, regime) in [
        ("warm", Regime::Warm),
        ("fresh", Regime::Fresh),
        ("read", Regime::Read),
    ] {
        for &size in &SIZES {
            // Below 1 MiB a fresh mapping costs more than its encoding.
            if regime == Regime::Fresh && size < 1 << 20 {
                continue;
            }
            let input = &plain[..size];
            let text_len = encoded_len(size, true).expect("small");
            let mut text = vec![0u8; text_len];
            b64simd_core::simdutf::simdutf_encode_into(input, opts, as_output(&mut text));
            let check = |call: &Kernel, name: &str| {
                let mut out = vec![0u8; text_len];
                assert_eq!(call(input, &mut out), text_len, "{name} encode length");
                assert!(out == text, "{name} encodes otherwise");
            };
            let mut rows: Vec<(String, Vec<f64>)> = Vec::new();
            for (name, call) in &encoders {
                check(call, name);
                rows.push((format!("encode {name}"), Vec::new()));
            }
            for (name, _) in &decoders {
                rows.push((format!("decode {name}"), Vec::new()));
            }
            for _ in 0..RUNS {
                let mut row = 0;
                for (_, call) in &encoders {
                    rows[row]
                        .1
                        .push(run(call, input, text_len, regime, &mut sink));
                    row += 1;
                }
                for (_, call) in &decoders {
                    rows[row].1.push(
                        run(call, &text, size, regime, &mut sink) * size as f64 / text_len as f64,
                    );
                    row += 1;
                }
            }
            for (name, runs) in rows {
                println!("{what:5} {size:>9} {name:24} {:>9.0}", median(runs));
            }
        }
    }
    let mut short_decoders = decoders;
    let encoder = b64simd_core::dispatch::active().calls.name();
    short_decoders.push((
        format!("first stage ({encoder} calls)"),
        Box::new(|input, out| {
            short::decode(input, DecodeOptions::DEFAULT, as_output(out)).unwrap_or(0)
        }),
    ));
    let rounds = avx2::available().then(|| {
        let call: Kernel = Box::new(|input, out| {
            avx2::decode::decode_units(input, Alphabet::Standard, as_output(out)).unwrap_or(0)
        });
        ("ours avx2 rounds".to_string(), call)
    });
    for &size in &SHORT_SIZES {
        let mut text = vec![0u8; encoded_len(size, true).expect("small")];
        b64simd_core::simdutf::simdutf_encode_into(&plain[..size], opts, as_output(&mut text));
        // The rounds alone take whole 16-character units only.
        let short_decoders: Vec<&(String, Kernel)> = short_decoders
            .iter()
            .chain(rounds.iter().filter(|_| text.len() % 16 == 0))
            .collect();
        for (name, call) in &short_decoders {
            let mut out = vec![0u8; size];
            assert_eq!(call(&text, &mut out), size, "{name} decode length");
            assert!(out == plain[..size], "{name} decodes otherwise");
        }
        let mut runs = vec![Vec::new(); short_decoders.len()];
        for _ in 0..RUNS {
            for ((_, call), runs) in short_decoders.iter().zip(&mut runs) {
                runs.push(run(call, &text, size, Regime::Warm, &mut sink));
            }
        }
        for ((name, _), runs) in short_decoders.into_iter().zip(runs) {
            // `run` gives MiB/s of its input, the text.
            let text_rate = median(runs);
            let mib_per_s = text_rate * size as f64 / text.len() as f64;
            let chars = text.len();
            let ns = chars as f64 / (text_rate * (1 << 20) as f64) * 1e9;
            println!("short {chars:>5} chars decode {name:24} {mib_per_s:>9.0} {ns:>7.1} ns");
        }
    }
    println!("(sink {sink})");
}
