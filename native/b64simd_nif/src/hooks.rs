//! Hooks for the tests and the benchmark, compiled only with the `hooks`
//! feature: the kernels this CPU runs, the calibrated costs, and the switch
//! that forces tiny slices.

use b64simd_core::budget::{self, Work};
use b64simd_core::kernel;

/// The kernels this CPU can run, best first: the test script runs the
/// suites once per kernel, each in a fresh VM.
#[rustler::nif]
fn supported_kernels() -> Vec<&'static str> {
    kernel::supported()
}

/// Test hook: forces every sliced job to slices of `bytes` input bytes and
/// every input above that size to be sliced; 0 restores calibration.
#[rustler::nif]
fn set_slice_bytes(bytes: usize) -> rustler::Atom {
    budget::force_slice_bytes(bytes);
    rustler::types::atom::ok()
}

/// Calibrated input bytes per timeslice, `{Encode, Decode}`, for the
/// benchmark's report.
#[rustler::nif]
fn slice_bytes() -> (usize, usize) {
    (
        budget::slice_bytes(Work::Encode),
        budget::slice_bytes(Work::Decode),
    )
}

/// The calibrated cost of a call too short to time,
/// `{{EncodeFixedNs, EncodePsPerByte}, {DecodeFixedNs, DecodePsPerByte},
/// WhitespaceFactor}`, for the benchmark's report and the tests.
#[rustler::nif]
fn call_cost() -> ((usize, usize), (usize, usize), usize) {
    (
        budget::call_cost_of(Work::Encode),
        budget::call_cost_of(Work::Decode),
        budget::whitespace_factor(),
    )
}
