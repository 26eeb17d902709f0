//! Per-thread scratch for the codec's block loops (`is_valid`'s decode
//! target, the wrapped encoder's block, `mime_decode`'s and the line path's
//! gathered characters), zeroed once per thread, not on every call, where
//! zeroing cost more than a small call's whole work.

use std::cell::RefCell;
use std::thread::LocalKey;

/// Bytes of scratch: the largest block any user needs.
pub const SCRATCH_BYTES: usize = 16 * 1024 + 4;

thread_local! {
    /// Plain bytes, so no thread-exit destructor points into a purged library.
    static SCRATCH: RefCell<[u8; SCRATCH_BYTES]> = const { RefCell::new([0; SCRATCH_BYTES]) };
    /// The line path's own: `is_valid` decodes what it gathers into the first.
    static LINE_SCRATCH: RefCell<[u8; SCRATCH_BYTES]> = const { RefCell::new([0; SCRATCH_BYTES]) };
}

/// Runs `work` with this thread's scratch (`SCRATCH_BYTES`, as the last user
/// left it). Uses never nest; one that did would get a fresh buffer.
pub fn with_scratch<R>(work: impl FnOnce(&mut [u8]) -> R) -> R {
    with_buffer(&SCRATCH, work)
}

/// `with_scratch` for the line path (`lines.rs`), on a buffer of its own.
pub fn with_line_scratch<R>(work: impl FnOnce(&mut [u8]) -> R) -> R {
    with_buffer(&LINE_SCRATCH, work)
}

fn with_buffer<R>(
    buffer: &'static LocalKey<RefCell<[u8; SCRATCH_BYTES]>>,
    work: impl FnOnce(&mut [u8]) -> R,
) -> R {
    buffer.with(|cell| match cell.try_borrow_mut() {
        Ok(mut scratch) => work(&mut scratch[..]),
        Err(_) => work(&mut vec![0u8; SCRATCH_BYTES]),
    })
}
