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

# The Rust the crate declares it needs (rust-version in its Cargo.toml).
rust_needed=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' "$crate/Cargo.toml")
command -v cargo >/dev/null 2>&1 || {
    echo "b64simd: building the NIF from source needs Rust $rust_needed or later, and cargo is" \
        "not on PATH: install Rust with rustup (https://rustup.rs)" >&2
    exit 1
}
rust_have=$(rustc --version 2>/dev/null | awk '{ print $2 }')
# at_least A B: whether version A (x.y.z) is B (x.y) or later.
at_least() {
    printf '%s\n%s\n' "$2" "$1" | sort -t. -k1,1n -k2,2n -k3,3n -C
}
at_least "${rust_have:-0}" "$rust_needed" || {
    echo "b64simd: the NIF needs Rust $rust_needed or later; this rustc is ${rust_have:-missing}:" \
        "update it (rustup update stable)" >&2
    exit 1
}

lib="$root/priv/libb64simd_nif.so"
# Say it before cargo's silent half minute, only when there is work to do.
if [ ! -f "$lib" ] || [ -n "$(find "$crate/src" "$crate/Cargo.toml" "$crate/Cargo.lock" \
    -newer "$lib" 2>/dev/null | head -n 1)" ]; then
    echo "b64simd: building the NIF from source with cargo (Rust $rust_have; needs $rust_needed or" \
        "later): $(if [ -f "$lib" ]; then echo "its sources changed"; else echo "none is built yet"; fi)"
fi
cargo build --release --locked --quiet --manifest-path "$crate/Cargo.toml"
mkdir -p "$root/priv"
target_dir=${CARGO_TARGET_DIR:-$crate/target}
src="$target_dir/release/libb64simd_nif.so"
[ -f "$src" ] || src="$target_dir/release/libb64simd_nif.dylib"
# Copy through a temporary name and rename, so that a VM which has the old
# library loaded never sees a half-written file.
cp "$src" "$root/priv/.libb64simd_nif.so.tmp"
mv -f "$root/priv/.libb64simd_nif.so.tmp" "$lib"
