//! Output memory: every encoder and decoder writes into
//! `[MaybeUninit<u8>]`, as a call's output binary is memory erl_nif has not
//! initialised; only the bytes a job says it wrote are read as bytes, by
//! the NIF that hands them over.

use std::mem::MaybeUninit;

/// Copies `src` to the start of `dst`, which must hold at least as many
/// bytes (else panics).
#[inline]
pub fn put(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    let dst = &mut dst[..src.len()];
    // SAFETY: `dst` is exactly `src.len()` writable bytes (sliced above, so
    // in bounds), `u8` and `MaybeUninit<u8>` have the same layout, and the
    // two cannot overlap as one is borrowed mutably.
    unsafe {
        std::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast::<u8>(), src.len());
    }
}

/// `dst` with every byte zeroed, as bytes: for the codecs whose API writes
/// only into initialised memory (const-hex, data-encoding).
#[inline]
pub fn zeroed(dst: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    dst.fill(MaybeUninit::new(0));
    // SAFETY: every byte was just initialised.
    unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<u8>(), dst.len()) }
}

/// Initialised bytes lent as output memory. They stay initialised: no code
/// of this crate or of the kernels it calls writes an uninitialised byte
/// (nothing here makes a `MaybeUninit::uninit()`), so the owner may read
/// them as bytes afterwards.
#[inline]
pub fn as_output(bytes: &mut [u8]) -> &mut [MaybeUninit<u8>] {
    // SAFETY: same layout; and see above for why the bytes stay valid `u8`s.
    unsafe { &mut *(std::ptr::from_mut(bytes) as *mut [MaybeUninit<u8>]) }
}

/// The first `len` bytes of `output`, which the caller has written.
///
/// # Safety
/// Each of the first `len` bytes of `output` has been written.
#[inline]
pub unsafe fn written(output: &[MaybeUninit<u8>], len: usize) -> &[u8] {
    let written = &output[..len];
    // SAFETY: in bounds (sliced above), and initialised by the caller's
    // contract.
    unsafe { std::slice::from_raw_parts(written.as_ptr().cast::<u8>(), len) }
}
