//! b64simd's codec in plain Rust: no NIF types, so `cargo test` and the
//! differential fuzzer cover all of it without a BEAM. The NIF crate
//! (`b64simd_nif`) is a thin shim over these modules.
//!
//! - `options`: the flags one call carries;
//! - `kernel`: which simdutf kernel runs, and whether a forced one may;
//! - `codec`: every simdutf call (no other module makes one) with its
//!   length contract, OTP's rules on
//!   top, and the one-shot decode cascade (short input, blocks then a short
//!   tail, line-wrapped text, the general path);
//! - `scalar`: the scalar decoder, the definition of every verdict, reason
//!   and offset; `lines`: line-wrapped text gathered without its breaks;
//! - `wrap`, `mime`, `validate`, `quanta`, `exact`, `carry`: wrapped encode,
//!   OTP's `mime_decode`, `is_valid`, the stream's whole quanta, its exact
//!   way and its state between pieces;
//! - `engine`: the decode engine every sliced decode runs (decode,
//!   `is_valid`, the stream's two ways, MIME's fast path);
//! - `job`, `budget`, `scratch`: time-sliced jobs, their time budget and
//!   the reductions a call is charged, per-thread scratch memory.

pub mod budget;
pub mod carry;
pub mod codec;
pub mod engine;
pub mod exact;
pub mod job;
pub mod kernel;
mod lines;
pub mod mime;
pub mod options;
pub mod quanta;
pub mod scalar;
mod scratch;
#[cfg(test)]
mod test_support;
pub mod validate;
pub mod wrap;
