#!/bin/sh
# Builds the Rust NIF (native/b64simd_nif) in release mode and installs it as
# priv/libb64simd_nif.so. Called by rebar3's compile pre_hook; cargo's own
# change tracking makes a second call nearly free.
#
# B64SIMD_BUILD=skip uses the NIF already in priv/ as it is: the platform
# tests (scripts/test_platforms.sh) build it once on the host, or cross,
# and compile the Erlang and Elixir code in roots that have no cargo.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
crate="$root/native/b64simd_nif"
if [ "${B64SIMD_BUILD:-}" = skip ]; then
    [ -f "$root/priv/libb64simd_nif.so" ] || {
        echo "b64simd: B64SIMD_BUILD=skip, but priv/libb64simd_nif.so is missing" >&2
        exit 1
    }
    exit 0
fi
command -v cargo >/dev/null 2>&1 || {
    echo "b64simd: cargo not found; install Rust (https://rustup.rs) to build the NIF" >&2
    exit 1
}
cargo build --release --locked --quiet --manifest-path "$crate/Cargo.toml"
mkdir -p "$root/priv"
src="$crate/target/release/libb64simd_nif.so"
[ -f "$src" ] || src="$crate/target/release/libb64simd_nif.dylib"
# Copy through a temporary name and rename, so that a VM which has the old
# library loaded never sees a half-written file.
cp "$src" "$root/priv/.libb64simd_nif.so.tmp"
mv -f "$root/priv/.libb64simd_nif.so.tmp" "$root/priv/libb64simd_nif.so"
