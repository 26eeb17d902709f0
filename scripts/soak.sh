#!/bin/sh
# `make soak`: PropEr at scale (soak/b64simd_soak.erl), once per simdutf
# kernel, each in a fresh VM with SIMDUTF_FORCE_IMPLEMENTATION set.
#   sh scripts/soak.sh [CASES_PER_KERNEL]      (default: SOAK_CASES or 2500000)
# Every decode case is checked under all 24 decode option combinations.
set -eu
cd "$(dirname "$0")/.."
cases=${1:-${SOAK_CASES:-2500000}}
rebar3 as test compile
ebin=_build/test/lib/b64simd/ebin
# The reference model, test/b64simd_ref.erl, which the test profile compiles.
tests=_build/test/lib/b64simd/test
out=_build/soak/ebin
mkdir -p "$out"
erlc +warnings_as_errors -o "$out" soak/b64simd_soak.erl
kernels=$(sh scripts/kernels.sh)
echo "b64simd soak: $cases cases per kernel, kernels: $kernels"

summary=""
failed=""
for kernel in $kernels; do
    echo "=== soak, kernel $kernel"
    log=_build/soak/$kernel.log
    if SIMDUTF_FORCE_IMPLEMENTATION=$kernel erl -noshell -pa "$ebin" -pa "$tests" -pa "$out" \
        -run b64simd_soak main "$cases" | tee "$log"; then :; else failed="$failed $kernel"; fi
    summary="$summary
  $(grep -o 'SOAK kernel=.*' "$log" || echo "SOAK kernel=$kernel crashed")"
done
echo "b64simd soak: summary$summary"
if [ -n "$failed" ]; then
    echo "b64simd soak: FAILED on kernel(s):$failed"
    exit 1
fi
echo "b64simd soak: all properties held on kernels: $kernels"
