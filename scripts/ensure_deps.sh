#!/bin/sh
# Checks for everything `make test` and `make bench` need, and installs what is
# missing from Debian's packages when it can (running as root with apt-get).
# hex.pm is not used: Erlang/OTP, rebar3 and PropEr all come from Debian.
set -eu

missing=""
command -v cargo >/dev/null 2>&1 || {
    echo "b64simd: cargo (Rust) is required: install it with rustup (https://rustup.rs)" >&2
    exit 1
}
command -v erl >/dev/null 2>&1 || missing="$missing erlang-nox erlang-dev"
command -v rebar3 >/dev/null 2>&1 || missing="$missing rebar3"
if command -v erl >/dev/null 2>&1; then
    erl -noshell -eval 'case code:which(proper) of non_existing -> halt(1); _ -> halt(0) end.' \
        || missing="$missing erlang-proper"
    # The erts headers, for the C NIF that `make bench` builds (scripts/bench.sh).
    erl -noshell -eval 'Header = filename:join([code:root_dir(), "usr", "include", "erl_nif.h"]),
                        halt(case filelib:is_regular(Header) of true -> 0; false -> 1 end).' \
        || missing="$missing erlang-dev"
else
    missing="$missing erlang-proper"
fi
# need PACKAGE...: adds the Debian packages that are not installed.
need() {
    for package in "$@"; do
        dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"
    done
}
for extra in "$@"; do
    case "$extra" in
        gnuplot) command -v gnuplot >/dev/null 2>&1 || missing="$missing gnuplot-nox" ;;
        elixir) command -v mix >/dev/null 2>&1 || missing="$missing elixir" ;;
        roots) need debootstrap qemu-user-static binfmt-support ;;
        cross-arm64) need gcc-aarch64-linux-gnu g++-aarch64-linux-gnu ;;
        # make sanitize: clang instruments simdutf's C++ for AddressSanitizer.
        clang) need clang ;;
        *) echo "b64simd: ensure_deps.sh knows no '$extra'" >&2; exit 2 ;;
    esac
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "b64simd: installing from Debian:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
    echo "b64simd: missing Debian packages:$missing" >&2
    echo "  install them with: sudo apt-get install --no-install-recommends$missing" >&2
    exit 1
fi
