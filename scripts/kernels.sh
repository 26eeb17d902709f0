#!/bin/sh
# Prints the simdutf kernels this CPU runs, best first, separated by spaces:
# the suites, the soak and `make test` run once per kernel. Asks the NIF of
# rebar3's test profile (b64simd_nif:supported_kernels/0 is a test hook),
# which the caller has compiled (`rebar3 as test compile`, or `rebar3 eunit`).
set -eu
cd "$(dirname "$0")/.."
erl -noshell -pa _build/test/lib/b64simd/ebin -eval \
    'io:format("~s", [lists:join(" ", b64simd_nif:supported_kernels())]), halt().'
