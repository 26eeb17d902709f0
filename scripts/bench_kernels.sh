#!/bin/sh
# `make kernels`: Base64 throughput of the kernels themselves, outside the
# BEAM (native/b64simd_core/examples/kernels.rs): our AVX2 encoder,
# simdutf's encoder and decoder, and aklomp/base64 as b64veryfast builds it
# when B64VERYFAST_EBIN names its ebin directory (its priv/b64veryfast.so is
# opened from there), once per simdutf kernel with AVX2 or AVX-512 that this
# CPU runs (haswell, icelake: where the encoders compete), warm, fresh and
# read back. Results go to bench/results/kernels-STAMP.txt.
set -eu
cd "$(dirname "$0")/.."
manifest=native/Cargo.toml
cargo build --release --locked --quiet --manifest-path "$manifest" -p b64simd_core --example kernels
bin=native/target/release/examples/kernels
aklomp=""
if [ -n "${B64VERYFAST_EBIN:-}" ]; then
    aklomp=$(cd "$B64VERYFAST_EBIN/../priv" && pwd)/b64veryfast.so
    [ -f "$aklomp" ] || {
        echo "b64simd: no $aklomp (B64VERYFAST_EBIN names no built b64veryfast)" >&2
        exit 1
    }
else
    echo "b64simd: aklomp/base64 not measured (set B64VERYFAST_EBIN to b64veryfast's ebin)"
fi
mkdir -p bench/results
log=bench/results/kernels-$(date -u +%Y%m%dT%H%M%SZ).txt
# The kernels simdutf has for this CPU, as its own list says (no BEAM needed).
kernels=$("$bin" kernels)
for kernel in $kernels; do
    case $kernel in
        haswell | icelake) ;;
        *) continue ;;
    esac
    echo "=== kernel $kernel" | tee -a "$log"
    # shellcheck disable=SC2086 # no argument when aklomp is not measured
    SIMDUTF_FORCE_IMPLEMENTATION=$kernel "$bin" $aklomp | tee -a "$log"
done
echo "b64simd: kernels in $log"
