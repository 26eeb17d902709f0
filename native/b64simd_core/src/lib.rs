//! b64simd's codec in plain Rust, without NIF types, so `cargo test` and the
//! fuzzer cover it without a BEAM; `b64simd_nif` is a thin shim over it.
//! Its layers and where each rule lives: `docs/ARCHITECTURE.md`.

#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

pub mod avx2;
pub mod base32;
#[cfg(any(test, feature = "testing"))]
pub mod base32_reference;
pub mod budget;
pub mod decode;
pub mod dispatch;
pub mod encode;
pub mod engine;
pub mod error;
pub mod hex;
pub mod job;
pub mod kernel;
pub mod lengths;
pub mod options;
pub mod output;
#[cfg(any(test, feature = "testing"))]
pub mod reached;
pub mod rules;
pub mod scalar;
pub mod scratch;
pub mod simdutf;
pub mod stream;
#[cfg(test)]
mod test_support;
