#!/bin/sh
# `make bench-otp`: b64simd against OTP's `base64` and Elixir's `Base` on
# OTP 25 / Elixir 1.14 (the host), OTP 27 / Elixir 1.18 and OTP 29 / Elixir
# 1.20 (the roots of `make test-otp`): encode and decode at 32 B, 4 KiB and
# 1 MiB (b64simd_bench), the small calls and the erlfdb workload
# (b64simd_small, without the floor NIF), the
# Elixir facade next to Base (b64simd_elixir_bench.exs), and Base16 and
# Base32 next to binary:encode_hex/decode_hex and Base (b64simd_codecs_bench). The roots run the
# release NIF of `make artifacts`, the host its own build of the same
# sources. Output: bench/results/otp-RELEASE-STAMP.txt.
set -eu
cd "$(dirname "$0")/.."
stamp=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p bench/results
sh scripts/artifacts.sh _build/artifacts >/dev/null
nifs=_build/bench-otp/nifs
rm -rf "$nifs" && mkdir -p "$nifs"
tar -xzf _build/artifacts/libb64simd_nif-v*-x86_64-unknown-linux-gnu.so.tar.gz -C "$nifs"

# The harnesses, in the tree at hand (the host's, or a root's copy).
# SIZES and ONLY keep b64simd_bench to the three sizes and two libraries.
harnesses='set -e
rebar3 compile >/dev/null
mkdir -p _build/bench/ebin
erlc +warnings_as_errors -o _build/bench/ebin bench/b64simd_bench.erl bench/b64simd_small.erl \
    bench/b64simd_floor_nif.erl bench/b64simd_codecs_bench.erl
paths="-pa _build/default/lib/b64simd/ebin -pa _build/bench/ebin"
SIZES=32,4096,1048576 ONLY=b64simd,otp-base64 erl -noshell $paths \
    -run b64simd_bench main _build/bench/otp _build/bench/otp.svg
erl -noshell $paths -run b64simd_small main _build/bench/small.terms
MIX_BUILD_ROOT=_build/mix MIX_ENV=prod mix run bench/b64simd_elixir_bench.exs
erl -noshell $paths -run b64simd_codecs_bench main
MIX_BUILD_ROOT=_build/mix MIX_ENV=prod mix run bench/b64simd_codecs_bench.exs'

. scripts/steps.sh
# run RELEASE COMMAND...: COMMAND logged to its result file.
run() {
    release=$1
    shift
    logged "bench/results/otp-$release-$stamp.txt" "$@"
}

run 25 env B64SIMD_BUILD=source sh -c "$harnesses"
for suite in trixie sid; do
    sh scripts/root.sh ensure "$suite" amd64
    release=$(case "$suite" in trixie) echo 27 ;; sid) echo 29 ;; esac)
    run "$release" env B64SIMD_NIFS="$(pwd)/$nifs" \
        B64SIMD_BUILD=skip sh scripts/root.sh run "$suite" amd64 "$harnesses"
done
echo "b64simd: bench-otp results in bench/results/otp-{25,27,29}-$stamp.txt"
