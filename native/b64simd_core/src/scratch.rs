//! Per-thread scratch memory for the codec's block loops (`is_valid`'s
//! decode target, the wrapped encoder's text block, `mime_decode`'s filtered
//! characters, the line path's gathered characters): zeroed once per
//! scheduler thread instead of on every call, where zeroing 12-16 KiB cost
//! more than a small call's whole work.

use std::cell::RefCell;
use std::thread::LocalKey;

/// Bytes of scratch: the largest block any user needs.
pub const SCRATCH_BYTES: usize = 16 * 1024 + 4;

thread_local! {
    /// Plain bytes, so no thread-exit destructor points into this library
    /// after the NIF module is purged.
    static SCRATCH: RefCell<[u8; SCRATCH_BYTES]> = const { RefCell::new([0; SCRATCH_BYTES]) };
    /// The line path's own buffer: `is_valid` decodes what it gathers into
    /// the first one.
    static LINE_SCRATCH: RefCell<[u8; SCRATCH_BYTES]> = const { RefCell::new([0; SCRATCH_BYTES]) };
}

/// Runs `work` with this thread's scratch buffer (`SCRATCH_BYTES` long; its
/// contents are whatever the last user left). Uses never nest; if one did,
/// it would get a fresh buffer rather than a borrow error.
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
