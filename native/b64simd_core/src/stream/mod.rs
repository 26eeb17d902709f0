//! Streams (`b64simd_stream`): data that arrives in pieces, encoded or
//! decoded a piece at a time with the one-shot result. A stream's state
//! between two pieces lives here, as bytes that Erlang holds and passes
//! back without reading; a new stream's state is its options' flags.

pub mod decode;
pub mod encode;
