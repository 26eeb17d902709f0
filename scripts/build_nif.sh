#!/bin/sh
# Puts the NIF in priv/libb64simd_nif.so: called by rebar3's compile
# pre_hook and by mix's b64simd_nif compiler step.
#
#   sh scripts/build_nif.sh [hooks]
#   sh scripts/build_nif.sh name TARGET   the prebuilt tarball's name for TARGET
#   sh scripts/build_nif.sh sources       the sha256 of the NIF's sources
#
# `hooks` (rebar3's test profile, for `make test` and `make bench`) builds
# priv/libb64simd_nif_hooks.so instead: the NIF with cargo's `hooks` feature
# (the test and benchmark hooks), always from source, in a target directory
# of its own so the two builds never undo each other.
#
# By default a release uses its prebuilt NIF for this target, and anything
# else builds from source with cargo, trying no download. A release is a git
# checkout whose HEAD carries the tag v<version of src/b64simd.app.src>, or a
# hex package (hex_metadata.config, which rebar3 and mix write when they
# unpack one); docs/RELEASING.md says why. The prebuilt NIF is the tarball
# `make artifacts` names, from B64SIMD_PREBUILT_URL (default: the release's
# downloads), used only when the NIF's sources hash to the `# sources:` line
# of ./checksums.txt (which only a release's tagged commit, and so its hex
# package, holds: never a branch) and the tarball to its sha256 there.
# Anything that goes wrong (no entry for this target, no network, a checksum
# mismatch) falls back to building from source, and says why; a file whose
# checksum does not match is deleted, never installed. While cargo builds,
# its own lines and one of ours every 10 s say so; the last line says what
# was installed where.
#
# B64SIMD_BUILD=source builds from source with cargo (cargo's own change
# tracking makes a second call nearly free); `make test`, `make bench` and
# the other development commands set it. B64SIMD_BUILD=skip uses the NIF
# already in priv/ as it is: the platform tests (scripts/test_platforms.sh)
# build it once on the host, or cross, for roots that have no cargo.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
native="$root/native"
crate="$native/b64simd_nif"
target_dir=${CARGO_TARGET_DIR:-$native/target}
say() { echo "b64simd: $*"; }
app_version() {
    sed -n 's/^ *{vsn, "\(.*\)"}.*/\1/p' "$root/src/b64simd.app.src"
}

# artifact_name TARGET: the tarball `make artifacts` makes for TARGET (a
# Rust target triple), for this version and NIF API version.
artifact_name() {
    nif_version=$(sed -n 's/.*"nif_version_\([0-9]*\)_\([0-9]*\)".*/\1.\2/p' "$crate/Cargo.toml")
    echo "libb64simd_nif-v$(app_version)-nif-$nif_version-$1.so.tar.gz"
}

# The NIF's sources, relative to the root: the native/ entries of the
# package's file list (src/b64simd.app.src).
nif_source_paths() {
    grep -o '"native/[^"]*"' "$root/src/b64simd.app.src" | tr -d '"'
}

# The sha256 of the NIF's sources, file by file, as one line.
sources_sha256() {
    # shellcheck disable=SC2046 # a list of paths
    (cd "$root" && find $(nif_source_paths) -type f | LC_ALL=C sort | xargs sha256sum |
        sha256sum | cut -d ' ' -f 1)
}

case "${1:-}" in
    name)
        artifact_name "$2"
        exit 0
        ;;
    sources)
        sources_sha256
        exit 0
        ;;
    "") name=libb64simd_nif.so features="" ;;
    hooks)
        name=libb64simd_nif_hooks.so features="--features hooks"
        target_dir="$target_dir/hooks"
        ;;
    *) say "usage: sh scripts/build_nif.sh [hooks]" >&2; exit 2 ;;
esac
lib="$root/priv/$name"

# install FILE: puts FILE in place through a temporary name and a rename, so
# that a VM which has the old library loaded never sees a half-written file.
install_lib() {
    mkdir -p "$root/priv"
    cp "$1" "$root/priv/.$name.tmp"
    mv -f "$root/priv/.$name.tmp" "$lib"
}

# The Rust target of this machine, when prebuilt NIFs exist for it.
prebuilt_target() {
    [ "$(uname -s)" = Linux ] || return 1
    # glibc only: a musl system (Alpine) builds from source.
    ldd --version 2>&1 | grep -qi -e glibc -e 'gnu libc' || return 1
    case $(uname -m) in
        x86_64 | amd64) echo x86_64-unknown-linux-gnu ;;
        aarch64 | arm64) echo aarch64-unknown-linux-gnu ;;
        *) return 1 ;;
    esac
}

# is_release: whether these sources are a release's (see the header), or
# sets `why` and fails.
is_release() {
    [ ! -f "$root/hex_metadata.config" ] || return 0
    [ -e "$root/.git" ] || {
        why="no prebuilt NIF for sources that are neither a git checkout nor a hex package"
        return 1
    }
    tags=$(git -C "$root" tag --points-at HEAD 2>/dev/null) || {
        why="git could not list the tags of $root"
        return 1
    }
    printf '%s\n' "$tags" | grep -qx "v$(app_version)" || {
        why="no prebuilt NIF for this commit"
        return 1
    }
}

# use_prebuilt: installs the verified prebuilt NIF, or sets `why` and fails.
use_prebuilt() {
    target=$(prebuilt_target) || {
        why="no prebuilt NIF for $(uname -s) $(uname -m)"
        return 1
    }
    is_release || return 1
    [ -f "$root/checksums.txt" ] || {
        why="no checksums.txt beside these sources (make release commits it on the tagged commit)"
        return 1
    }
    [ "$(sources_sha256)" = "$(sed -n 's/^# sources: //p' "$root/checksums.txt")" ] || {
        why="the NIF's sources differ from those of the release's prebuilt NIF (checksums.txt)"
        return 1
    }
    tarball=$(artifact_name "$target")
    expected=$(awk -v name="$tarball" '$2 == name { print $1 }' "$root/checksums.txt")
    [ -n "$expected" ] || {
        why="checksums.txt has no entry for $tarball"
        return 1
    }
    # Already installed from this very tarball: nothing to do.
    [ -f "$lib" ] && [ "$(cat "$root/priv/.prebuilt" 2>/dev/null)" = "$expected" ] && return 0
    base=${B64SIMD_PREBUILT_URL:-https://github.com/b64simd/b64simd/releases/download/v$(app_version)}
    work=$(mktemp -d)
    if command -v curl >/dev/null 2>&1; then
        fetch="curl -fsSL --connect-timeout 10 --max-time 120 -o $work/$tarball $base/$tarball"
    elif command -v wget >/dev/null 2>&1; then
        fetch="wget -q --timeout=30 -O $work/$tarball $base/$tarball"
    else
        rm -rf "$work"
        why="neither curl nor wget is installed to download $tarball"
        return 1
    fi
    say "downloading the prebuilt NIF $base/$tarball"
    $fetch 2>/dev/null || {
        rm -rf "$work"
        why="could not download $base/$tarball"
        return 1
    }
    actual=$(sha256sum "$work/$tarball" | awk '{ print $1 }')
    [ "$actual" = "$expected" ] || {
        rm -rf "$work"
        why="checksum mismatch for $tarball (checksums.txt: $expected, downloaded: $actual); not using it"
        return 1
    }
    tar -xzf "$work/$tarball" -C "$work" libb64simd_nif.so
    install_lib "$work/libb64simd_nif.so"
    echo "$expected" >"$root/priv/.prebuilt"
    rm -rf "$work"
    say "using the prebuilt NIF $tarball (sha256 verified), installed as $lib"
}

# Whether priv/ holds a NIF built from the sources as they are now (the
# .prebuilt mark concerns the release library only).
source_build_is_current() {
    [ -f "$lib" ] && { [ -n "$features" ] || [ ! -f "$root/priv/.prebuilt" ]; } &&
        # shellcheck disable=SC2046 # a list of paths
        [ -z "$(cd "$root" && find $(nif_source_paths) -newer "$lib" | head -n 1)" ]
}

# tick: a line every 10 s until this script ends, so that cargo's long
# silent steps (simdutf's C++) never look like a hang. Run in the background;
# sleep holds no copy of the output, which the build tool waits to close.
tick() {
    while sleep 10 </dev/null >/dev/null 2>&1 && kill -0 "$$" 2>/dev/null; do
        say "cargo is still building ($(($(date +%s) - started)) s)"
    done
}

build_from_source() {
    # The library cargo makes, named as the platform names them.
    case $(uname -s) in
        Darwin) built=libb64simd_nif.dylib ;;
        MINGW* | MSYS* | CYGWIN*)
            say "building on Windows ($(uname -s)) is not supported: build in WSL 2," \
                "which is Linux" >&2
            exit 1
            ;;
        *) built=libb64simd_nif.so ;;
    esac
    # The Rust the crates declare they need (rust-version in native/Cargo.toml).
    rust_needed=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' "$native/Cargo.toml")
    command -v cargo >/dev/null 2>&1 || {
        say "building the NIF from source ($why) needs Rust $rust_needed or later, and cargo is" \
            "not on PATH: install Rust with rustup (https://rustup.rs)" >&2
        exit 1
    }
    rust_have=$(rustc --version 2>/dev/null | awk '{ print $2 }')
    # at_least A B: whether version A (x.y.z) is B (x.y) or later.
    at_least() {
        printf '%s\n%s\n' "$2" "$1" | sort -t. -k1,1n -k2,2n -k3,3n -C
    }
    at_least "${rust_have:-0}" "$rust_needed" || {
        say "the NIF needs Rust $rust_needed or later; this rustc is ${rust_have:-missing}:" \
            "update it (rustup update stable)" >&2
        exit 1
    }
    # cargo_build [FLAG]: cargo's release build of the NIF, from native/
    # so that cargo reads native/.cargo/config.toml.
    cargo_build() {
        # shellcheck disable=SC2086 # features: empty or two words
        (cd "$native" && CARGO_TARGET_DIR="$target_dir" cargo build --release --locked "$@" \
            $features --manifest-path "$crate/Cargo.toml")
    }
    if source_build_is_current; then
        # The files say nothing changed; cargo checks the rest, quietly.
        cargo_build --quiet
        install_lib "$target_dir/release/$built"
    else
        say "building from source ($why) with cargo, Rust $rust_have (needs $rust_needed or later)"
        started=$(date +%s)
        tick &
        ticker=$!
        trap 'kill "$ticker" 2>/dev/null || true' EXIT
        cargo_build
        kill "$ticker"
        trap - EXIT
        install_lib "$target_dir/release/$built"
        say "built $lib from source in $(($(date +%s) - started)) s"
    fi
    [ -n "$features" ] || rm -f "$root/priv/.prebuilt"
}

case "${B64SIMD_BUILD:-}" in
    skip)
        [ -f "$lib" ] || {
            say "B64SIMD_BUILD=skip, but priv/$name is missing" >&2
            exit 1
        }
        ;;
    source)
        why="B64SIMD_BUILD=source"
        build_from_source
        ;;
    "")
        if [ -n "$features" ]; then
            why="the test hooks exist only in a source build"
            build_from_source
            exit 0
        fi
        # A source build that is still current stays (a developer's, or one
        # made when no prebuilt NIF could be had): no download on every build.
        source_build_is_current || use_prebuilt || build_from_source
        ;;
    *)
        say "B64SIMD_BUILD must be source or skip (or unset), not '$B64SIMD_BUILD'" >&2
        exit 1
        ;;
esac
