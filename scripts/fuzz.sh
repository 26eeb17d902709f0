#!/bin/sh
# Differential fuzzer (native/b64simd_fuzz): our codec against the base64
# crate and our scalar reference, one process per simdutf kernel.
#   sh scripts/fuzz.sh [SECONDS_PER_KERNEL] [SEED]
# FUZZ_SECONDS sets the default time per kernel (180 s for `make fuzz`).
# A mismatch is saved under native/b64simd_fuzz/regressions/ and fails the run.
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-${FUZZ_SECONDS:-180}}
crate=native/b64simd_fuzz/Cargo.toml
cargo build --release --locked --quiet --manifest-path "$crate"
if [ $# -ge 2 ]; then
    exec native/b64simd_fuzz/target/release/b64simd_fuzz --seconds "$seconds" --seed "$2"
fi
exec native/b64simd_fuzz/target/release/b64simd_fuzz --seconds "$seconds"
