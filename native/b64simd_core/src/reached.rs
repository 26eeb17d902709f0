//! How many calls reached our own kernels' rounds, counted in tests and the
//! fuzzer only (the `testing` feature): each test of a kernel, and the fuzzer,
//! fails where the CPU runs the kernel and the count did not grow, so that a
//! path that silently stopped reaching the rounds cannot pass. A leaf: the
//! kernels count here without depending on anything above them.

use std::cell::Cell;

/// Which rounds a call reached: our AVX2 encoder's or short decoder's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounds {
    Encode,
    Decode,
}

thread_local! {
    /// A count per `Rounds`, at its index.
    static CALLS_WITH_ROUNDS: [Cell<usize>; 2] = const { [Cell::new(0), Cell::new(0)] };
}

/// How many calls on this thread ran some of their input through `rounds`.
pub fn calls_with_rounds(rounds: Rounds) -> usize {
    CALLS_WITH_ROUNDS.with(|calls| calls[rounds as usize].get())
}

/// Counts a call whose `rounds` read `read` bytes (none: not counted).
pub fn count_rounds(rounds: Rounds, read: usize) {
    CALLS_WITH_ROUNDS.with(|calls| {
        let calls = &calls[rounds as usize];
        calls.set(calls.get() + usize::from(read > 0));
    });
}
