//! Streams (`b64simd_stream`): data encoded or decoded a piece at a time with
//! the one-shot result. The state between pieces is bytes that Erlang holds
//! and passes back unread; a new stream's is its options' flags.

pub mod decode;
pub mod encode;
