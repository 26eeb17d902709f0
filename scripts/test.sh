#!/bin/sh
# `make test`: every test, on every simdutf kernel this CPU can run.
#  1. cargo test on the codec (native/b64simd_core), once per kernel;
#     clippy on it, which fails on an unsafe block without its SAFETY
#     comment (the crate denies `clippy::undocumented_unsafe_blocks`);
#     Base16 again on const-hex's portable code (cargo feature hex-generic)
#     and, on x86-64 with qemu-user, on its SSSE3 code (a CPU without AVX2);
#  2. the fuzzer crate's own tests, then a short differential fuzz run
#     (scripts/fuzz.sh), 3 s per kernel;
#  3. EUnit + PropEr, then the Elixir facade's ExUnit tests (against
#     Elixir's Base), once per kernel (scripts/suites.sh).
# make test-otp and make test-arm64 run step 3 on other OTP releases and
# on arm64 (scripts/test_platforms.sh).
set -eu
cd "$(dirname "$0")/.."
sh scripts/ensure_deps.sh elixir

workspace=native/Cargo.toml
rebar3 as test compile
kernels=$(sh scripts/kernels.sh)
echo "b64simd: simdutf kernels supported by this CPU: $kernels"

# A Rust test that cannot run here prints "b64simd_core: SKIPPED name: why"
# past the harness's capture (so --quiet shows it), and fails instead where
# /proc/cpuinfo or the forced kernel says this run has what it needs
# (native/b64simd_core/src/test_support.rs, `skipped`).
for kernel in $kernels; do
    echo "=== cargo test, kernel $kernel"
    SIMDUTF_FORCE_IMPLEMENTATION=$kernel cargo test --locked --quiet --workspace \
        --manifest-path "$workspace"
done

echo "=== cargo clippy on the core: every unsafe block with its SAFETY comment"
cargo clippy --locked --quiet -p b64simd_core --all-targets --manifest-path "$workspace"

# const-hex dispatches on the CPU itself, with no switch: its portable code
# is a build of its own, and its SSSE3 code runs where AVX2 is missing.
echo "=== cargo test, Base16 on const-hex's portable code (feature hex-generic)"
cargo test --locked --quiet -p b64simd_core --features hex-generic \
    --manifest-path "$workspace" -- hex:: --nocapture
if [ "$(uname -m)" = x86_64 ] && command -v qemu-x86_64-static >/dev/null; then
    echo "=== cargo test, Base16 on const-hex's SSSE3 code (qemu-x86_64 -cpu Nehalem: no AVX2)"
    CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER="qemu-x86_64-static -cpu Nehalem" \
        SIMDUTF_FORCE_IMPLEMENTATION=westmere cargo test --locked --quiet -p b64simd_core \
        --manifest-path "$workspace" -- hex:: --nocapture
else
    echo "b64simd: SKIPPED Base16 on const-hex's SSSE3 code: needs x86-64 and qemu-x86_64-static"
fi

echo "=== cargo test of the fuzzer crate (sizes beyond 4 GiB)"
cargo test --release --locked --quiet --manifest-path native/b64simd_fuzz/Cargo.toml

echo "=== differential fuzz, every kernel"
sh scripts/fuzz.sh "${TEST_FUZZ_SECONDS:-3}"

# shellcheck disable=SC2086 # a list of kernel names
sh scripts/suites.sh $kernels
