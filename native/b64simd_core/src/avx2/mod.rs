//! b64simd's own kernels, for x86-64 CPUs with AVX2: a Base64 encoder
//! (`encode`) and a decoder of short text (`decode`), each where
//! simdutf's measured slower (`bench/README.md`, "Kernels"). Whether the
//! CPU runs them is checked here, once for both; `crate::dispatch` and
//! `decode::short` say where each runs. Their helpers are
//! `#[inline(always)]`: only inlined into a function compiled for AVX2 do
//! their intrinsics compile to instructions rather than calls.

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

/// Which of our AVX2 code a call reached: the encoder's rounds, or the
/// decoder's (`decode`).
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

/// How many calls on this thread ran some of their input through these
/// `rounds` (tests and the fuzzer only): they fail unless this grows where
/// the CPU has AVX2, so that a path that silently stopped reaching the
/// rounds cannot pass them.
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
