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
