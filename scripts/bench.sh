#!/bin/sh
# `make bench`: throughput of b64simd against OTP base64, binary:copy/1 and,
# when their ebin directories are given, other Base64 NIFs; small calls
# (every size to 4 KiB, the erlfdb workload, IDs, options) in three VMs;
# Base16 and Base32 against OTP's binary:encode_hex/decode_hex and Elixir's Base; what
# loading the library costs; then the scheduler-latency probe, once bench/b64simd_latency.erl exists.
#
#   sh scripts/bench.sh [throughput|latency|all]        (default: all)
#
# Environment: FULL=1 (133 sizes instead of 23), SIZES=16,4096 (explicit
# sizes), ONLY=b64simd,binary:copy (libraries by label prefix),
# OPS=decode,encode_url (operations by name), B64VERYFAST_EBIN,
# B64RS_EBIN, B64FAST_EBIN (peers' ebin directories).
# Results go to bench/results/ (CSV, table, gnuplot script); the plot of a
# complete run (no SIZES, ONLY or OPS) to docs/bench.svg.
set -eu
cd "$(dirname "$0")/.."
what=${1:-all}
case "$what" in
    throughput | latency | all) ;;
    *) echo "usage: sh scripts/bench.sh [throughput|latency|all]" >&2; exit 2 ;;
esac

sh scripts/ensure_deps.sh gnuplot elixir
# Throughput measures the library as users build it; the latency probe needs
# the test hooks (dirty-scheduler variants, forced slice sizes), compiled in
# rebar3's test profile.
rebar3 compile
lib_ebin=_build/default/lib/b64simd/ebin

# The harness modules are not part of the library: compile them apart.
ebin=_build/bench/ebin
mkdir -p "$ebin" bench/results
erlc +warnings_as_errors -o "$ebin" bench/*.erl

stamp=$(date -u +%Y%m%dT%H%M%SZ)
# A progress line rewritten in place only on a terminal; logs get one per size.
if [ -t 2 ]; then BENCH_TTY=1; else BENCH_TTY=0; fi
export BENCH_TTY
. scripts/steps.sh
# The library and the peers run from copies of this run's own (`fresh_copy`).
copies=$(mktemp -d)
trap 'rm -rf "$copies"' EXIT
lib_ebin=$(fresh_copy "$lib_ebin" "$copies")
if [ -d "${B64VERYFAST_EBIN:-}" ]; then B64VERYFAST_EBIN=$(fresh_copy "$B64VERYFAST_EBIN" "$copies"); fi
if [ -d "${B64RS_EBIN:-}" ]; then B64RS_EBIN=$(fresh_copy "$B64RS_EBIN" "$copies"); fi
if [ -d "${B64FAST_EBIN:-}" ]; then B64FAST_EBIN=$(fresh_copy "$B64FAST_EBIN" "$copies"); fi
# run_logged LOG MODULE ARGS...: MODULE:main(ARGS) in a fresh VM, logged.
run_logged() {
    log=$1
    module=$2
    shift 2
    logged "$log" erl -noshell -pa "$lib_ebin" -pa "$ebin" -run "$module" main "$@"
}

if [ "$what" != latency ]; then
    prefix=bench/results/throughput-$stamp
    if [ -z "${SIZES:-}" ] && [ -z "${ONLY:-}" ] && [ -z "${OPS:-}" ]; then
        plot=docs/bench.svg
        mkdir -p docs
    else
        plot=$prefix.svg
    fi
    # A b64simd output that differs from OTP's fails the run (peers' failures
    # are reported, not fatal).
    run_logged "$prefix.txt" b64simd_bench "$prefix" "$plot"
    gnuplot "$prefix.gp"
    echo "plot: $plot"
fi

# Big calls, 2 to 64 MiB, in the two loops users write (results piling up
# until the process collects; each collected before the next), beside
# b64veryfast, binary:copy/1 and the stream, minor page faults per call.
if [ "$what" != latency ]; then
    run_logged "bench/results/big-$stamp.txt" b64simd_big "bench/results/big-$stamp-table.txt"
fi

# Small calls (bench/b64simd_small.erl): every size from 32 B to 4 KiB, the
# erlfdb workload, HyperBEAM's IDs, option maps and the per-call floor (a C
# NIF that does everything but the encoding, built here against the
# installed erts headers, erlang-dev), in three fresh VMs, then the targets
# over the three.
if [ "$what" != latency ]; then
    erts_include=$(erl -noshell -eval \
        'io:format("~s", [filename:join([code:root_dir(), "usr", "include"])]), halt().')
    case $(uname -s) in
        Darwin) nif_ldflags="-bundle -undefined dynamic_lookup" ;;
        *) nif_ldflags="-shared" ;;
    esac
    # shellcheck disable=SC2086 # nif_ldflags is a list of flags
    ${CC:-cc} -O2 -fPIC $nif_ldflags -I"$erts_include" -o "$ebin/b64simd_floor_nif.so" \
        bench/c_src/b64simd_floor_nif.c
    for vm in 1 2 3; do
        run_logged "bench/results/small-$stamp-$vm.txt" b64simd_small "$ebin" \
            "bench/results/small-$stamp-$vm.terms"
    done
    run_logged "bench/results/small-$stamp.txt" b64simd_small summary \
        bench/results/small-"$stamp"-1.terms bench/results/small-"$stamp"-2.terms \
        bench/results/small-"$stamp"-3.terms
    run_logged "bench/results/codecs-$stamp.txt" b64simd_codecs_bench
    run_logged "bench/results/load-$stamp.txt" b64simd_load "$lib_ebin"
fi

# The Elixir facade against the Erlang calls it wraps, and Elixir's Base.
if [ "$what" != latency ]; then
    elixir_log="bench/results/elixir-$stamp.txt"
    MIX_BUILD_ROOT=_build/mix MIX_ENV=prod mix run bench/b64simd_elixir_bench.exs >"$elixir_log" || {
        cat "$elixir_log"
        echo "b64simd: the Elixir benchmark FAILED" >&2
        exit 1
    }
    cat "$elixir_log"
    # Base16 and Base32 against Elixir's Base.
    logged "bench/results/codecs-elixir-$stamp.txt" \
        env MIX_BUILD_ROOT=_build/mix MIX_ENV=prod mix run bench/b64simd_codecs_bench.exs
fi

# The probe picks its own scheduler settings at run time
# (erlang:system_flag(schedulers_online, N)) and writes under bench/results/.
if [ "$what" != throughput ] && [ -f bench/b64simd_latency.erl ]; then
    rebar3 as test compile
    lib_ebin=_build/test/lib/b64simd/ebin
    run_logged "bench/results/latency-$stamp.txt" b64simd_latency "bench/results/latency-$stamp"
fi
