#!/bin/sh
# The platform tests, beside `make test` on the host's OTP and CPU. Both run
# the NIFs a release ships: `make artifacts` builds them (x86_64 and, cross,
# aarch64, on Debian bookworm, so glibc 2.34 or later loads them). EUnit
# loads the same build with cargo's `hooks` feature (its test hooks), which
# `make artifacts` makes beside them; ExUnit loads the release NIF itself.
#
#   sh scripts/test_platforms.sh otp     (make test-otp)
#     The Erlang and Elixir suites on OTP 27 / Elixir 1.18 (Debian trixie)
#     and OTP 29 / Elixir 1.20 (Debian sid), each in a root of its own, with
#     the x86_64 NIF: it uses NIF API 2.15, which every OTP from 22 on loads.
#
#   sh scripts/test_platforms.sh arm64   (make test-arm64)
#     aarch64 under qemu-user: the Rust tests, cross-built and run on the
#     host, then the Erlang and Elixir suites in a Debian bookworm arm64 root
#     with the aarch64 NIF.
#
# Roots are made on the first run (scripts/root.sh) and reused. Each part
# prints how long it took.
set -eu
cd "$(dirname "$0")/.."
root_dir=$(pwd)

what=${1:-}
case "$what" in
    otp | arm64) ;;
    *) echo "usage: sh scripts/test_platforms.sh otp|arm64" >&2; exit 2 ;;
esac

. scripts/steps.sh

# nifs TARGET: a directory with the release NIF for TARGET, out of its
# tarball, and the same build with the test hooks.
nifs() {
    mkdir -p "_build/platforms/$1"
    tar -xzf _build/artifacts/libb64simd_nif-v*-"$1".so.tar.gz -C "_build/platforms/$1"
    cp "_build/artifacts/hooks/$1/libb64simd_nif_hooks.so" "_build/platforms/$1/"
    echo "$root_dir/_build/platforms/$1"
}

timed "make artifacts (and the hooks builds)" sh scripts/artifacts.sh _build/artifacts hooks

if [ "$what" = otp ]; then
    failed=""
    for suite in trixie sid; do
        timed "root $suite/amd64" sh scripts/root.sh ensure "$suite" amd64
        timed "suites on $suite/amd64" env B64SIMD_NIFS="$(nifs x86_64-unknown-linux-gnu)" \
            B64SIMD_BUILD=skip sh scripts/root.sh run "$suite" amd64 "sh scripts/suites.sh" ||
            failed="$failed $suite"
    done
    [ -z "$failed" ] || {
        echo "b64simd: test-otp FAILED in:$failed"
        exit 1
    }
    echo "b64simd: test-otp passed (OTP 27 / Elixir 1.18, OTP 29 / Elixir 1.20)"
    exit 0
fi

# arm64 from here on: the Rust tests, cross-built, run under qemu with
# Debian's aarch64 libraries (those the cross gcc links against) as root.
target=aarch64-unknown-linux-gnu
. scripts/cross_env.sh
sh scripts/ensure_deps.sh roots
timed "root bookworm/arm64" sh scripts/root.sh ensure bookworm arm64
timed "cargo test (aarch64, qemu)" cargo test --locked --quiet --workspace --target "$target" \
    --manifest-path native/Cargo.toml
# Under qemu 7 (bookworm's), the BEAM's JIT crashes with its default
# dual-mapped code memory; +JPperf true maps it once, which qemu handles.
timed "suites on bookworm/arm64 (qemu)" env B64SIMD_NIFS="$(nifs "$target")" \
    B64SIMD_BUILD=skip B64SIMD_EMULATED=qemu-user ERL_FLAGS="+JPperf true" \
    sh scripts/root.sh run bookworm arm64 "sh scripts/suites.sh"
echo "b64simd: test-arm64 passed"
