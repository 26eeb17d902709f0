//! Reductions: every call charges its caller for its work
//! (`enif_consume_timeslice`), so that a process that encodes a lot is
//! scheduled as fairly as one that runs Erlang code.

use b64simd_core::budget::{self, Work};
use rustler::Env;
use std::time::Instant;

/// Calls on at least this many bytes are timed and charged by the clock
/// (reading it costs ~20 ns, nothing next to them); smaller ones their
/// calibrated cost (`budget::call_ns`).
pub(crate) const TIMED_CALL_BYTES: usize = 64 * 1024;

/// Charges the caller for a call on `bytes` of input: its time on the
/// clock if it was timed, else its calibrated cost, so a process that
/// encodes a lot is scheduled as fairly as one that runs Erlang code
/// (erl_nif: enif_consume_timeslice).
#[inline(always)]
pub(crate) fn charge(env: Env, work: Work, bytes: usize, started: Option<Instant>) {
    let ns = match started {
        Some(started) => started.elapsed().as_nanos() as u64,
        // Like a BIF's small work, a call this short costs only its one
        // reduction: charging it cost a 32-byte encode 15 ns of its 45.
        None if bytes < budget::UNCHARGED_BYTES => return,
        None => budget::call_ns(work, bytes),
    };
    let percent = budget::charge_percent(ns);
    if percent > 0 {
        rustler::schedule::consume_timeslice(env, percent);
    }
}

/// `charge` for a decode of `bytes` of input: input that held whitespace
/// takes longer to decode, so a call too short to time is charged the
/// calibrated factor times its bytes.
#[inline(always)]
pub(crate) fn charge_decode(
    env: Env,
    bytes: usize,
    held_whitespace: bool,
    started: Option<Instant>,
) {
    let work = match held_whitespace {
        true => bytes.saturating_mul(budget::whitespace_factor()),
        false => bytes,
    };
    charge(env, Work::Decode, work, started);
}
