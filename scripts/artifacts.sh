#!/bin/sh
# `make artifacts`: the prebuilt NIFs a release ships, and their checksums.
#
#   sh scripts/artifacts.sh [OUT [hooks]]   (default OUT: _build/artifacts)
#
# For x86_64-unknown-linux-gnu and aarch64-unknown-linux-gnu (cross, with
# Debian's aarch64 gcc), OUT gets one tarball per target, named as
# scripts/build_nif.sh looks for them:
#
#   libb64simd_nif-v<version>-nif-<NIF API version>-<target>.so.tar.gz
#
# and OUT/checksums.txt: their sha256, the toolchain, and the sha256 of the
# NIF's sources (`sh scripts/build_nif.sh sources`). The builds are
# reproducible: paths are remapped out of the binaries and the tarballs carry
# no dates or owners, so the same sources and toolchain give the same bytes.
# `make release` builds them into _build/release, adds that checksums.txt as
# ./checksums.txt to the commit it tags, which is off the branch (the tag and
# its package carry it; the build uses a prebuilt NIF only for those sources,
# and verifies every download against it), and the tarballs are uploaded to
# the release.
#
# They are built on Debian bookworm, the oldest Debian we support: the
# glibc version they need is printed, and is at most bookworm's 2.36.
#
# With `hooks`, OUT/hooks/<target>/libb64simd_nif_hooks.so too: the same
# build with cargo's `hooks` feature, which the suites of `make test-otp` and
# `make test-arm64` load beside the release NIF. Never shipped.
set -eu
cd "$(dirname "$0")/.."
repo=$(pwd)
out=${1:-_build/artifacts}
hooks=${2:-}
sh scripts/ensure_deps.sh cross-arm64
aarch64=aarch64-unknown-linux-gnu
if ! [ -d "$(rustc --print target-libdir --target "$aarch64" 2>/dev/null)" ]; then
    command -v rustup >/dev/null 2>&1 || {
        echo "b64simd: the Rust standard library for $aarch64 is missing: install it with" \
            "'rustup target add $aarch64' (or Debian's libstd-rust-dev:arm64 matching its rustc)" >&2
        exit 1
    }
    rustup target add "$aarch64"
fi

cargo_home=${CARGO_HOME:-$HOME/.cargo}
# No build path, home or registry path in the binaries (Rust and simdutf's C++).
prefix_maps="--remap-path-prefix=$repo=/b64simd --remap-path-prefix=$cargo_home=/cargo"
c_prefix_maps="-ffile-prefix-map=$repo=/b64simd -ffile-prefix-map=$cargo_home=/cargo"
. scripts/cross_env.sh
# A target directory of its own: these flags differ from a development build's.
export CARGO_TARGET_DIR="$repo/_build/artifacts-target"

# build [CARGO_FLAG...]: the NIF for $target, with these paths remapped,
# from native/ so that cargo reads native/.cargo/config.toml, as
# scripts/build_nif.sh does.
build() {
    (cd native && RUSTFLAGS="$prefix_maps" CFLAGS="$c_prefix_maps" CXXFLAGS="$c_prefix_maps" \
        cargo build --release --locked --quiet --target "$target" "$@" \
        --manifest-path b64simd_nif/Cargo.toml)
}

mkdir -p "$out"
# The toolchain, recorded: the same sources give the same bytes with it.
echo "# toolchain: $(rustc --version | cut -d' ' -f1-2); $(c++ --version | head -n 1);" \
    "$(aarch64-linux-gnu-g++ --version | head -n 1)" >"$out/checksums.txt.tmp"
echo "# sources: $(sh scripts/build_nif.sh sources)" >>"$out/checksums.txt.tmp"
for target in x86_64-unknown-linux-gnu "$aarch64"; do
    name=$(sh scripts/build_nif.sh name "$target")
    if [ "$hooks" = hooks ]; then
        build --features hooks
        mkdir -p "$out/hooks/$target"
        cp "$CARGO_TARGET_DIR/$target/release/libb64simd_nif.so" \
            "$out/hooks/$target/libb64simd_nif_hooks.so"
    fi
    build
    stage=$(mktemp -d)
    cp "$CARGO_TARGET_DIR/$target/release/libb64simd_nif.so" "$stage/libb64simd_nif.so"
    # The newest glibc symbol version the library needs: its glibc floor.
    glibc=$(LC_ALL=C objdump -T "$stage/libb64simd_nif.so" | grep -o 'GLIBC_[0-9.]*' |
        sort -t. -k1,1 -k2,2n -k3,3n -u | tail -n 1)
    tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$stage" \
        -cf - libb64simd_nif.so | gzip -n -9 >"$out/$name"
    rm -rf "$stage"
    (cd "$out" && sha256sum "$name") >>"$out/checksums.txt.tmp"
    echo "b64simd artifacts: $out/$name (needs $glibc)"
done
mv "$out/checksums.txt.tmp" "$out/checksums.txt"
echo "b64simd artifacts: $out/checksums.txt"
cat "$out/checksums.txt"
