//! b64simd's codec in plain Rust: no NIF types, so `cargo test` and the
//! differential fuzzer cover all of it without a BEAM. The NIF crate
//! (`b64simd_nif`) is a thin shim over it. Layers, each using only those
//! above it in this list (`docs/ARCHITECTURE.md` draws them):
//!
//! - `options`, `error`, `budget`, `scratch`, `job`: the options of a call
//!   and the integer they cross the NIF as (and back, `options::to_flags`,
//!   for tests and the fuzzer only), the reasons of a rejection, the
//!   time budget and the reductions a call is charged, per-thread scratch
//!   memory, and the `Job` every call is;
//! - `lengths`: what a text encodes to and the most it decodes to;
//! - `simd`: every simdutf call, with its length contract and the guard of
//!   a known simdutf defect; `avx2`: our own Base64 encoder for x86-64 with
//!   AVX2; `kernel`: which simdutf kernel runs; `encoder`: which Base64
//!   encoder runs;
//! - `rules`: OTP's rules where simdutf's differ; `scalar`: the scalar
//!   decoder, the definition of every verdict, reason and offset;
//! - `encode`, `decode`: the jobs, plain and wrapped encode, the one decode
//!   every decode runs (validation and `mime_decode` included);
//! - `hex`, `base32`: Base16 and Base32, jobs of the same engine over
//!   const-hex's kernels, and data-encoding's Base32 decoder beside our
//!   own Base32 encoder (`base32_reference`, for tests and the fuzzer only:
//!   the reference Base32 is held to);
//! - `engine`: a job run within one call or a slice at a time;
//! - `stream`: both streams' state between pieces, and their jobs.

#![deny(unsafe_op_in_unsafe_fn)]

pub mod avx2;
pub mod base32;
#[cfg(any(test, feature = "testing"))]
pub mod base32_reference;
pub mod budget;
pub mod decode;
pub mod encode;
pub mod encoder;
pub mod engine;
pub mod error;
pub mod hex;
pub mod job;
pub mod kernel;
pub mod lengths;
pub mod options;
pub mod rules;
pub mod scalar;
pub mod scratch;
pub mod simd;
pub mod stream;
#[cfg(test)]
mod test_support;
