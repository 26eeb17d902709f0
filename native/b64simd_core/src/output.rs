//! Output memory is `[MaybeUninit<u8>]`, as erl_nif does not initialise a
//! call's output binary; the NIF reads only the bytes a job says it wrote.

use std::mem::MaybeUninit;

/// Copies `src` to the start of `dst`; panics if `dst` is shorter.
#[inline]
pub fn put(dst: &mut [MaybeUninit<u8>], src: &[u8]) {
    let dst = &mut dst[..src.len()];
    // SAFETY: `dst` is exactly `src.len()` writable bytes (sliced above), `u8`
    // and `MaybeUninit<u8>` share a layout, and `&mut dst` cannot overlap `src`.
    unsafe {
        std::ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast::<u8>(), src.len());
    }
}

/// `dst` zeroed, as bytes, for codecs that take initialised memory only.
#[inline]
pub fn zeroed(dst: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    dst.fill(MaybeUninit::new(0));
    // SAFETY: every byte was just initialised.
    unsafe { std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<u8>(), dst.len()) }
}

/// Initialised bytes lent as output memory. They stay initialised, so the
/// owner may read them after: nothing here or in the kernels writes an
/// uninitialised byte (none makes a `MaybeUninit::uninit()`).
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
    // SAFETY: in bounds (sliced above), and written per the caller's contract.
    unsafe { std::slice::from_raw_parts(written.as_ptr().cast::<u8>(), len) }
}
