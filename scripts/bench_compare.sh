#!/bin/sh
# Before and after, in the same conditions: the throughput harness
# (bench/b64simd_bench.erl) run over two builds of the library, alternating
# round by round, then each series' median over the rounds and the ratio
# after / before (time, so above 1 is slower).
#
#   sh scripts/bench_compare.sh BEFORE_EBIN AFTER_EBIN [ROUNDS]
#
# BEFORE_EBIN and AFTER_EBIN are the ebin directories of two builds (each
# with its priv/ beside it), for example a checkout of the old commit built
# with `B64SIMD_BUILD=source rebar3 compile`. ROUNDS defaults to 24, which
# the 16 MiB streams need to be read to a few percent. SIZES, ONLY and OPS
# choose as for `make bench` (default: 32 B, 4 KiB, 1 MiB and 16 MiB,
# b64simd and its stream, every operation). Results:
# bench/results/compare-<UTC time>/.
#
# Each round runs both sides in the same memory layout, and each round in
# another: the environment grown by a number of bytes (B64SIMD_LAYOUT_PAD:
# 0, 512, ... 3,584, then again from 0), which moves the VM's data, and a
# number of OTP's modules loaded before the library (B64SIMD_LAYOUT_MODULES:
# 37 more each round, modulo 200), which moves its code. Either alone moved
# a 32-byte call's time by a tenth to a fifth (bench/README.md, "Method"), so the rounds sample layouts alike for both sides rather than
# one layout each. For the same reason each side runs from a fresh copy of
# its build every round (`fresh_copy`, scripts/steps.sh).
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: sh scripts/bench_compare.sh BEFORE_EBIN AFTER_EBIN [ROUNDS]" >&2; exit 2; }
before=$(cd "$1" && pwd)
after=$(cd "$2" && pwd)
rounds=${3:-24}
for build in "$before" "$after"; do
    [ -d "$build/../priv" ] || { echo "bench_compare: no priv/ beside $build: each build's NIF goes in EBIN/../priv" >&2; exit 2; }
done
SIZES=${SIZES:-32,4096,1048576,16777216}
ONLY=${ONLY:-b64simd}
export SIZES ONLY

ebin=_build/bench/ebin
mkdir -p "$ebin"
erlc +warnings_as_errors -o "$ebin" bench/b64simd_bench.erl
out=bench/results/compare-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
. scripts/steps.sh
copies=$(mktemp -d)
trap 'rm -rf "$copies"' EXIT

round=1
while [ "$round" -le "$rounds" ]; do
    pad=$(dd if=/dev/zero bs=512 count=$(((round - 1) % 8)) 2>/dev/null | tr '\0' x)
    for side in before after; do
        if [ "$side" = before ]; then build=$before; else build=$after; fi
        copy=$(fresh_copy "$build" "$copies/$side-$round")
        echo "=== round $round of $rounds: $side ($build, copied to $copy)"
        timed "$side round $round" env B64SIMD_LAYOUT_PAD="$pad" \
            B64SIMD_LAYOUT_MODULES=$((round * 37 % 200)) \
            erl -noshell -pa "$copy" -pa "$ebin" -run b64simd_bench main \
            "$out/$side-$round" "$out/$side-$round.svg" >"$out/$side-$round.txt"
        rm -rf "$copies/$side-$round"
    done
    round=$((round + 1))
done

python3 - "$out" "$rounds" <<'EOF' | tee "$out/summary.txt"
import csv, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def medians(side):
    runs = {}
    for r in range(1, rounds + 1):
        with open(f"{out}/{side}-{r}-summary.csv") as f:
            for row in csv.DictReader(f):
                key = (row["library"], row["operation"], int(row["size_bytes"]))
                runs.setdefault(key, []).append(float(row["median_ns_per_call"]))
    return {k: statistics.median(v) for k, v in runs.items()}
before, after = medians("before"), medians("after")
print(f"{'library':24} {'operation':16} {'size':>9} {'before ns':>12} {'after ns':>12} {'after/before':>13}")
for key in sorted(before.keys() & after.keys(), key=lambda k: (k[0], k[1], k[2])):
    b, a = before[key], after[key]
    print(f"{key[0]:24} {key[1]:16} {key[2]:>9} {b:>12.1f} {a:>12.1f} {a / b:>13.3f}")
EOF
echo "b64simd: before/after in $out (summary.txt)"
