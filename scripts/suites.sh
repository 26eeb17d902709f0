#!/bin/sh
# The Erlang and Elixir suites, once per simdutf kernel, each in a fresh VM
# with SIMDUTF_FORCE_IMPLEMENTATION set (simdutf reads it once per process),
# and EUnit + PropEr once more on haswell with B64SIMD_OWN_AVX2=never: there
# b64simd encodes with its own AVX2 encoder unless told otherwise, and
# simdutf's must stay tested too; the kernel suite runs once with no kernel
# forced. EUnit loads the NIF built with the test hooks; the suites that
# call no hook run once more, on the kernel simdutf picks, against the NIF
# a release ships (rebar3's release_nif profile, run through erl:
# `rebar3 eunit` would add the test profile, hooks and all):
#
#   sh scripts/suites.sh [KERNEL...]     (default: every kernel this CPU runs)
#
# EUnit + PropEr through rebar3, then the Elixir facade's ExUnit tests
# through mix (Debian's elixir package; no hex, no deps), in a build root
# of its own so that mix and rebar3 never share _build/test. Used by
# scripts/test.sh on the host and by scripts/test_platforms.sh in the roots
# of other OTP releases and architectures.
set -eu
cd "$(dirname "$0")/.."
. scripts/steps.sh
rebar3 as test compile
kernels=${*:-$(sh scripts/kernels.sh)}
otp=$(erl -noshell -eval 'io:format("~s", [erlang:system_info(otp_release)]), halt().')
elixir=$(elixir -e 'IO.write(System.version())')
echo "b64simd: suites on OTP $otp, Elixir $elixir, $(uname -m), kernels: $kernels"

failed=""
for kernel in $kernels; do
    echo "=== EUnit + PropEr, OTP $otp, kernel $kernel"
    SIMDUTF_FORCE_IMPLEMENTATION=$kernel rebar3 eunit || failed="$failed eunit:$kernel"
    echo "=== ExUnit (Elixir $elixir facade), kernel $kernel"
    SIMDUTF_FORCE_IMPLEMENTATION=$kernel MIX_BUILD_ROOT=_build/mix mix test ||
        failed="$failed exunit:$kernel"
done

# The kernel suite with no kernel forced: b64simd:kernel() must then be the
# one simdutf picks by itself, the best this CPU runs (every run above forces one).
echo "=== EUnit, OTP $otp, no kernel forced: b64simd_00_kernel_tests"
env -u SIMDUTF_FORCE_IMPLEMENTATION -u B64SIMD_OWN_AVX2 rebar3 eunit --module=b64simd_00_kernel_tests ||
    failed="$failed eunit:unforced"

# The encode, decode, property and README suites: what a release's every
# call runs, kept to those four so that the run adds well under a minute.
release_suites=b64simd_01_encode_tests,b64simd_02_decode_tests,b64simd_04_prop_tests,b64simd_15_readme_tests
echo "=== EUnit + PropEr, OTP $otp, the release NIF (no hooks): $release_suites"
rebar3 as release_nif compile
release=_build/release_nif/lib/b64simd
timed "EUnit on the release NIF" env -u SIMDUTF_FORCE_IMPLEMENTATION \
    erl -noshell -pa "$release/ebin" "$release/test" -eval "
        {module, b64simd_nif} = code:ensure_loaded(b64simd_nif),
        false = erlang:function_exported(b64simd_nif, set_slice_bytes, 1),
        halt(case eunit:test([$release_suites], [verbose]) of ok -> 0; _ -> 1 end)." ||
    failed="$failed eunit:release_nif"

case " $kernels " in
    *" haswell "*)
        echo "=== EUnit + PropEr, OTP $otp, kernel haswell, B64SIMD_OWN_AVX2=never"
        SIMDUTF_FORCE_IMPLEMENTATION=haswell B64SIMD_OWN_AVX2=never rebar3 eunit ||
            failed="$failed eunit:haswell:simdutf"
        ;;
    *) echo "b64simd: no haswell kernel here (no AVX2): b64simd's AVX2 encoder is not run" ;;
esac

if [ -n "$failed" ]; then
    echo "b64simd: suites FAILED on OTP $otp ($(uname -m)):$failed"
    exit 1
fi
echo "b64simd: all suites passed on OTP $otp, Elixir $elixir ($(uname -m)), kernels: $kernels"
