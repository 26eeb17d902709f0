//! b64simd's own kernels for x86-64 CPUs with AVX2, an encoder and a decoder
//! of short text, each where simdutf's measured slower (`bench/README.md`,
//! "Kernels"). Their helpers are `#[inline(always)]`: only inlined into a
//! function compiled for AVX2 do their intrinsics become instructions.

pub mod decode;
pub mod encode;

pub use encode::{avx2_encode_into, avx2_encode_lines_into, takes_lines, Stores};

/// Whether this CPU runs these kernels.
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Which of our AVX2 kernels' rounds a call reached.
#[cfg(any(test, feature = "testing"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounds {
    Encode,
    Decode,
}

#[cfg(any(test, feature = "testing"))]
thread_local! {
    static CALLS_WITH_ROUNDS: [std::cell::Cell<usize>; 2] =
        const { [std::cell::Cell::new(0), std::cell::Cell::new(0)] };
}

/// How many calls on this thread ran input through these `rounds`: the tests
/// and the fuzzer check it grows on AVX2, so that a path that silently
/// stopped reaching the rounds fails them.
#[cfg(any(test, feature = "testing"))]
pub fn calls_with_rounds(rounds: Rounds) -> usize {
    CALLS_WITH_ROUNDS.with(|calls| calls[rounds as usize].get())
}

/// Counts a call whose `rounds` read `read` bytes, for `calls_with_rounds`.
#[cfg(any(test, feature = "testing"))]
pub(crate) fn count_rounds(rounds: Rounds, read: usize) {
    CALLS_WITH_ROUNDS.with(|calls| {
        let calls = &calls[rounds as usize];
        calls.set(calls.get() + usize::from(read > 0));
    });
}
