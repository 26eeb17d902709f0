# Short aliases only; the logic lives in scripts/ and rebar3.

# Development builds the NIF from the sources at hand, never a prebuilt one.
export B64SIMD_BUILD ?= source
.PHONY: all test test-otp test-arm64 test-package artifacts release bench bench-otp kernels latency fuzz sanitize soak clean

all:
	sh scripts/ensure_deps.sh
	rebar3 compile

test:
	sh scripts/test.sh

test-otp:
	sh scripts/test_platforms.sh otp

test-arm64:
	sh scripts/test_platforms.sh arm64

test-package:
	sh scripts/test_package.sh

artifacts:
	sh scripts/artifacts.sh

release:
	sh scripts/release.sh

fuzz:
	sh scripts/fuzz.sh

sanitize:
	sh scripts/sanitize.sh

soak:
	sh scripts/soak.sh

bench:
	sh scripts/bench.sh

latency:
	sh scripts/bench.sh latency

bench-otp:
	sh scripts/bench_platforms.sh

kernels:
	sh scripts/bench_kernels.sh

clean:
	rebar3 clean
	cargo clean --manifest-path native/Cargo.toml
	cargo clean --manifest-path native/b64simd_fuzz/Cargo.toml
	rm -rf _build priv
