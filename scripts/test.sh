#!/bin/sh
# `make test`: every test, on every simdutf kernel this CPU can run.
#  1. cargo test on the codec (native/b64simd_core), once per kernel;
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

for kernel in $kernels; do
    echo "=== cargo test, kernel $kernel"
    SIMDUTF_FORCE_IMPLEMENTATION=$kernel cargo test --locked --quiet --workspace \
        --manifest-path "$workspace"
done

echo "=== cargo test of the fuzzer crate (sizes beyond 4 GiB)"
cargo test --release --locked --quiet --manifest-path native/b64simd_fuzz/Cargo.toml

echo "=== differential fuzz, every kernel"
sh scripts/fuzz.sh "${TEST_FUZZ_SECONDS:-3}"

# shellcheck disable=SC2086 # a list of kernel names
sh scripts/suites.sh $kernels
