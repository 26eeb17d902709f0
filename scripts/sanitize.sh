#!/bin/sh
# `make sanitize`: our Rust under Miri, and every simdutf call we make under
# AddressSanitizer.
#
#   sh scripts/sanitize.sh [SECONDS_PER_KERNEL]   (default: SANITIZE_SECONDS or 20)
#
#  1. Miri: `cargo miri test` on native/b64simd_core, on a pinned nightly
#     (B64SIMD_NIGHTLY). Miri cannot run C++, so the tests that call simdutf
#     are ignored under it, each saying so; the rest (the scalar decoder,
#     the option flags, lengths, budgets, line shapes) run in full.
#  2. AddressSanitizer: the differential fuzzer (native/b64simd_fuzz) built
#     with rustc's -Zsanitizer=address and simdutf's C++ with clang's
#     -fsanitize=address. clang, not gcc: gcc 12's ASan does not check
#     AVX-512 masked stores, and let the icelake kernel write past a buffer
#     unnoticed (the canary below, tried). First the canary
#     (src/bin/asan_canary.rs) makes simdutf write one byte past a buffer,
#     encode and decode, at several sizes on every kernel: ASan must stop
#     each one. Then the fuzzer runs SECONDS per kernel: no mismatch and no
#     ASan report.
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-${SANITIZE_SECONDS:-20}}
nightly=${B64SIMD_NIGHTLY:-nightly-2026-05-20}
host=$(rustc -vV | sed -n 's/^host: //p')
sh scripts/ensure_deps.sh clang
cargo "+$nightly" miri --version >/dev/null 2>&1 || {
    command -v rustup >/dev/null 2>&1 || {
        echo "b64simd: make sanitize needs rustup, to install $nightly with Miri" >&2
        exit 1
    }
    rustup toolchain install "$nightly" --profile minimal --component miri --component rust-src
}

start=$(date +%s)
echo "=== Miri ($nightly): b64simd_core's tests that do not call simdutf"
CARGO_TARGET_DIR=native/target/miri cargo "+$nightly" miri test --locked --quiet \
    --manifest-path native/Cargo.toml -p b64simd_core
echo "b64simd: Miri took $(($(date +%s) - start)) s"

start=$(date +%s)
echo "=== AddressSanitizer ($nightly, clang): build"
asan_target=native/b64simd_fuzz/target/asan
asan="-fsanitize=address -fno-omit-frame-pointer"
CARGO_TARGET_DIR=$asan_target CC=clang CXX=clang++ CFLAGS="$asan" CXXFLAGS="$asan" \
    RUSTFLAGS="-Zsanitizer=address" cargo "+$nightly" build --release --locked --quiet \
    --features asan-canary --target "$host" --manifest-path native/b64simd_fuzz/Cargo.toml
bin=$asan_target/$host/release
kernels=$("$bin/asan_canary" kernels)

echo "=== AddressSanitizer: the canary, kernels $kernels"
caught=0
mkdir -p _build
log=_build/asan_canary.log
for kernel in $kernels; do
    for direction in encode decode; do
        for len in 2 3 47 48 4096; do
            if SIMDUTF_FORCE_IMPLEMENTATION=$kernel "$bin/asan_canary" "$direction" "$len" \
                >"$log" 2>&1 || ! grep -q 'ERROR: AddressSanitizer' "$log"; then
                cat "$log"
                echo "b64simd: ASan did not catch the canary ($kernel, $direction, $len bytes):" \
                    "the sanitized build cannot be trusted" >&2
                exit 1
            fi
            caught=$((caught + 1))
        done
    done
done
echo "b64simd: ASan caught all $caught canary overflows"

echo "=== AddressSanitizer: the differential fuzzer, $seconds s per kernel"
"$bin/b64simd_fuzz" --seconds "$seconds"
echo "b64simd: AddressSanitizer took $(($(date +%s) - start)) s"
