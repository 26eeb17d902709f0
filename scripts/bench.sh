#!/bin/sh
# `make bench`: throughput of b64simd against OTP base64, binary:copy/1 and,
# when their ebin directories are given, other Base64 NIFs; then the
# scheduler-latency probe, once bench/b64simd_latency.erl exists.
#
#   sh scripts/bench.sh [throughput|latency|all]        (default: all)
#
# Environment: FULL=1 (121 sizes instead of 21), SIZES=16,4096 (explicit
# sizes), ONLY=b64simd,binary:copy (libraries by label prefix),
# B64VERYFAST_EBIN, B64RS_EBIN, B64FAST_EBIN (peers' ebin directories).
# Results go to bench/results/ (CSV, table, gnuplot script); the plot of a
# complete run (no SIZES or ONLY) to docs/bench.svg.
set -eu
cd "$(dirname "$0")/.."
what=${1:-all}
case "$what" in
    throughput | latency | all) ;;
    *) echo "usage: sh scripts/bench.sh [throughput|latency|all]" >&2; exit 2 ;;
esac

sh scripts/ensure_deps.sh gnuplot
rebar3 compile

# The harness modules are not part of the library: compile them apart.
ebin=_build/bench/ebin
mkdir -p "$ebin" bench/results
erlc +warnings_as_errors -o "$ebin" bench/*.erl

stamp=$(date -u +%Y%m%dT%H%M%SZ)
# A progress line rewritten in place only on a terminal; logs get one per size.
if [ -t 2 ]; then BENCH_TTY=1; else BENCH_TTY=0; fi
export BENCH_TTY
run_erl() {
    erl -noshell -pa _build/default/lib/b64simd/ebin -pa "$ebin" "$@"
}

if [ "$what" != latency ]; then
    prefix=bench/results/throughput-$stamp
    if [ -z "${SIZES:-}" ] && [ -z "${ONLY:-}" ]; then
        plot=docs/bench.svg
        mkdir -p docs
    else
        plot=$prefix.svg
    fi
    # The table is kept next to the CSV; a b64simd output that differs from
    # OTP's fails the run (peers' failures are reported, not fatal).
    # (POSIX sh has no pipefail: the status travels through a file.)
    { code=0; run_erl -run b64simd_bench main "$prefix" "$plot" || code=$?; echo "$code" >"$prefix.status"; } \
        | tee "$prefix.txt"
    status=$(cat "$prefix.status")
    rm -f "$prefix.status"
    [ "$status" -eq 0 ] || { echo "b64simd: benchmark FAILED (status $status)" >&2; exit "$status"; }
    gnuplot "$prefix.gp"
    echo "plot: $plot"
fi

# Hook for issue 3: the probe picks its own scheduler settings at run time
# (erlang:system_flag(schedulers_online, N)) and writes under bench/results/.
if [ "$what" != throughput ] && [ -f bench/b64simd_latency.erl ]; then
    run_erl -run b64simd_latency main "bench/results/latency-$stamp" \
        | tee "bench/results/latency-$stamp.txt"
fi
