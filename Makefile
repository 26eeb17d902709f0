# Short aliases only; the logic lives in scripts/ and rebar3.
.PHONY: all test bench latency clean

all:
	sh scripts/ensure_deps.sh
	rebar3 compile

test:
	sh scripts/test.sh

bench:
	sh scripts/bench.sh

latency:
	sh scripts/bench.sh latency

clean:
	rebar3 clean
	cargo clean --manifest-path native/b64simd_nif/Cargo.toml
	rm -rf _build priv elixir/_build
