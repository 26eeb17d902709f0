#!/bin/sh
# `make test-package`: b64simd as its users get it, with the default build
# step (prebuilt NIF if one can be had and verified, else cargo).
#  1. The package's file list (`files` in src/b64simd.app.src, which mix.exs
#     reads too) copied alone into a fresh directory: rebar3 and mix each
#     compile it there and call it.
#  2. Fresh client projects, a rebar3 app and a mix app, depend on this
#     repository by git, with the README's own install lines (only the URL
#     pointed at a clone of this repository), and by path (rebar3:
#     _checkouts/), compile, and call b64simd:encode/1 (and, from mix,
#     B64Simd.encode64/1):
#     a. with no prebuilt NIF to be had (its URL answers nothing): cargo;
#     b. with `make artifacts` served on 127.0.0.1 and no cargo on PATH: the
#        prebuilt NIF, verified; and once with cargo on PATH, which it
#        still prefers;
#     c. with a tampered tarball served: refused, never installed, and the
#        fallback to cargo says why.
#     d. the release procedure: `make release` in a clone, then
#        scripts/check_release.sh against its tag, the NIF served locally.
#  3. The minimum Rust the crates declare builds the NIF and passes the
#     Rust tests (a rustup toolchain of exactly that version); the version
#     below it fails the source build with a message naming both.
#  4. checksums.txt is what `make artifacts` builds from these sources, when
#     the toolchain is the one it records (skipped, with the reason, if not).
set -eu
cd "$(dirname "$0")/.."
repo=$(pwd)
unset B64SIMD_BUILD
sh scripts/ensure_deps.sh elixir
work=$(mktemp -d "${TMPDIR:-/tmp}/b64simd-package.XXXXXX")
server=""
cleanup() {
    [ -z "$server" ] || kill "$server" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
# One cargo target directory serves every source build: simdutf's C++ is
# compiled once.
export CARGO_TARGET_DIR="$work/cargo-target"
passed=0

# check LABEL DIR COMMAND [TEXT]: runs COMMAND (sh -c) in DIR; it must
# print "result=ok", and TEXT if given.
check() {
    check_start=$(date +%s)
    output=$(cd "$2" && sh -c "$3" 2>&1) || {
        echo "$output"
        echo "b64simd package: $1 FAILED"
        exit 1
    }
    for wanted in "result=ok" "${4:-result=ok}"; do
        case "$output" in
            *"$wanted"*) ;;
            *)
                echo "$output"
                echo "b64simd package: $1 FAILED (no '$wanted')"
                exit 1
                ;;
        esac
    done
    passed=$((passed + 1))
    echo "b64simd package: $1: ok ($(($(date +%s) - check_start)) s)"
}

erlang_call='erl -noshell $(for d in _build/default/lib/*/ebin _build/default/checkouts/*/ebin; do
    [ -d "$d" ] && printf -- "-pa %s " "$d"; done) -eval "<<\"aGk=\">> = b64simd:encode(<<\"hi\">>),
    io:format(\"result=ok~n\"), halt()."'
elixir_call='mix run -e "\"aGk=\" = B64Simd.encode64(\"hi\"); \"aGk=\" = :b64simd.encode(\"hi\");
    IO.puts(\"result=ok\")"'

# 1. The file list alone.
files=$(erl -noshell -eval '{ok, [{application, b64simd, App}]} = file:consult("src/b64simd.app.src"),
    io:format("~s", [lists:join(" ", proplists:get_value(files, App))]), halt().')
mkdir "$work/package"
# shellcheck disable=SC2086 # a list of paths
tar -cf - $files | tar -C "$work/package" -xf -
echo "b64simd package: files: $files"
# Nothing answers on this port: the download fails at once.
export B64SIMD_PREBUILT_URL=http://127.0.0.1:9
check "package alone, rebar3" "$work/package" "rebar3 compile && $erlang_call" \
    "building the NIF from source"
check "package alone, mix" "$work/package" "mix compile && $elixir_call"

# 3. The minimum Rust the crates declare (rust-version): a rustup toolchain
#    of exactly that version builds the package's NIF, which then works, and
#    passes the Rust tests; the version below it is refused by build_nif.sh
#    with a message naming both versions.
rust_min=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' native/Cargo.toml)
rust_below="${rust_min%%.*}.$((${rust_min#*.} - 1)).0"
if command -v rustup >/dev/null 2>&1; then
    rustup toolchain install "$rust_min.0" "$rust_below" --profile minimal >/dev/null 2>&1 || {
        echo "b64simd package: installing Rust $rust_min.0 and $rust_below with rustup FAILED"
        exit 1
    }
    rm -f "$work/package/priv/libb64simd_nif.so"
    check "Rust $rust_min.0 (the minimum) builds the NIF" "$work/package" \
        "RUSTUP_TOOLCHAIN=$rust_min.0 B64SIMD_BUILD=source CARGO_TARGET_DIR=$work/cargo-min \
         rebar3 compile && $erlang_call" "Rust $rust_min.0"
    check "Rust $rust_min.0 (the minimum) passes the Rust tests" "$repo/native" \
        "RUSTUP_TOOLCHAIN=$rust_min.0 CARGO_TARGET_DIR=$work/cargo-min \
         cargo test --locked --release -p b64simd_core 2>&1 && echo result=ok"
    old_rust_env="RUSTUP_TOOLCHAIN=$rust_below"
else
    # No rustup: a stand-in rustc of that version (and a cargo that fails).
    echo "b64simd package: skipped: building with Rust $rust_min.0 itself (rustup not on PATH)"
    rust_below="$rust_below (Debian)"
    mkdir "$work/old-rust"
    printf '#!/bin/sh\necho "rustc %s"\n' "$rust_below" >"$work/old-rust/rustc"
    printf '#!/bin/sh\nexit 1\n' >"$work/old-rust/cargo"
    chmod +x "$work/old-rust/rustc" "$work/old-rust/cargo"
    old_rust_env="PATH=$work/old-rust:$PATH"
fi
rm -f "$work/package/priv/libb64simd_nif.so"
if output=$(env "$old_rust_env" B64SIMD_BUILD=source sh "$work/package/scripts/build_nif.sh" 2>&1); then
    echo "$output"
    echo "b64simd package: Rust $rust_below FAILED (the build succeeded)"
    exit 1
fi
case "$output" in
    *"needs Rust $rust_min or later; this rustc is ${rust_below%% *}"*) ;;
    *)
        echo "$output"
        echo "b64simd package: Rust $rust_below FAILED (no message naming the versions)"
        exit 1
        ;;
esac
passed=$((passed + 1))
echo "b64simd package: Rust $rust_below is refused, the version needed named: ok"

# The committed HEAD as a repository that git dependencies can fetch, its
# branch main as the README's install lines name it.
git clone -q --no-hardlinks "$repo" "$work/origin"
git -C "$work/origin" checkout -q -B main

# The README's install lines, the URL pointed at ./origin.
readme_line() { # PATTERN
    grep -m 1 "$1" README.md | sed "s|https://github.com/b64simd/b64simd|file://$work/origin|"
}
rebar3_deps=$(readme_line '^{deps, \[{b64simd, {git, ')
mix_deps=$(readme_line '^defp deps, do: \[{:b64simd, git: ')
if [ -z "$rebar3_deps" ] || [ -z "$mix_deps" ]; then
    echo "b64simd package: the README's install lines FAILED: not found in README.md"
    exit 1
fi
echo "b64simd package: the README's install lines: $rebar3_deps / $mix_deps"

new_rebar3_app() { # DIR DEPS
    mkdir -p "$1/src"
    printf '{application, client, [{vsn, "0.1.0"}, {applications, [kernel, stdlib, b64simd]}]}.\n' \
        >"$1/src/client.app.src"
    printf '{deps, [%s]}.\n' "$2" >"$1/rebar.config"
}
new_mix_app() { # DIR DEPS
    mkdir -p "$1"
    printf 'defmodule Client.MixProject do\n  use Mix.Project\n  def project, do: %s\nend\n' \
        "[app: :client, version: \"0.1.0\", deps: [$2]]" >"$1/mix.exs"
}
# The README's rebar.config and mix.exs lines, verbatim but for the URL.
readme_rebar3_app() { # DIR
    mkdir -p "$1/src"
    printf '{application, client, [{vsn, "0.1.0"}, {applications, [kernel, stdlib, b64simd]}]}.\n' \
        >"$1/src/client.app.src"
    printf '%s\n' "$rebar3_deps" >"$1/rebar.config"
}
readme_mix_app() { # DIR
    mkdir -p "$1"
    printf 'defmodule Client.MixProject do\n  use Mix.Project\n  %s\n  %s\nend\n' \
        'def project, do: [app: :client, version: "0.1.0", deps: deps()]' "$mix_deps" >"$1/mix.exs"
}

# clients LABEL PATH [TEXT]: the four clients of ./origin (HEAD), with PATH.
clients() {
    label=$1
    client_path=$2
    dir="$work/clients-$passed"
    readme_rebar3_app "$dir/rebar3-git"
    check "$label: rebar3 app, git dependency (the README's line)" "$dir/rebar3-git" \
        "PATH=$client_path; rebar3 compile && $erlang_call" "${3:-}"
    new_rebar3_app "$dir/rebar3-path" "b64simd"
    git clone -q --no-hardlinks "$work/origin" "$dir/rebar3-path/_checkouts/b64simd"
    check "$label: rebar3 app, path dependency (_checkouts)" "$dir/rebar3-path" \
        "PATH=$client_path; rebar3 compile && $erlang_call" "${3:-}"
    readme_mix_app "$dir/mix-git"
    check "$label: mix app, git dependency (the README's line)" "$dir/mix-git" \
        "PATH=$client_path; mix deps.get && mix compile && $elixir_call" "${3:-}"
    git clone -q --no-hardlinks "$work/origin" "$dir/b64simd"
    new_mix_app "$dir/mix-path" "{:b64simd, path: \"$dir/b64simd\"}"
    check "$label: mix app, path dependency" "$dir/mix-path" \
        "PATH=$client_path; mix compile && $elixir_call" "${3:-}"
}

# 2a. No prebuilt NIF to be had: cargo.
clients "no prebuilt NIF reachable" "$PATH" "building the NIF from source"

# 2b. make artifacts, served on 127.0.0.1; ./origin's checksums.txt is theirs,
# as a release commits it.
sh scripts/artifacts.sh "$work/artifacts" >"$work/artifacts.log" 2>&1 || {
    cat "$work/artifacts.log"
    exit 1
}
grep 'needs GLIBC' "$work/artifacts.log"
cp "$work/artifacts/checksums.txt" "$work/origin/checksums.txt"
git -C "$work/origin" -c user.name=test -c user.email=test@localhost commit -q -am \
    "checksums of the artifacts under test" --allow-empty
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir "$work/served"
python3 -m http.server --bind 127.0.0.1 --directory "$work/served" "$port" >/dev/null 2>&1 &
server=$!
cp "$work/artifacts/"*.tar.gz "$work/served/"
export B64SIMD_PREBUILT_URL="http://127.0.0.1:$port"
# Every PATH entry but those holding cargo (and rustup's rustc beside it).
no_cargo=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r dir; do
    [ -x "$dir/cargo" ] || printf '%s:' "$dir"
done)
no_cargo=${no_cargo%:}
clients "prebuilt served, no cargo" "$no_cargo" "using the prebuilt NIF"
head=$(git -C "$work/origin" rev-parse HEAD)
dir="$work/with-cargo"
new_rebar3_app "$dir" "{b64simd, {git, \"file://$work/origin\", {ref, \"$head\"}}}"
check "prebuilt served, cargo on PATH: rebar3 app, git dependency" "$dir" \
    "rebar3 compile && $erlang_call" "using the prebuilt NIF"

# 2d. The release procedure, in a clone of ./origin with a changelog section
# for its version: make release tags it, and check_release.sh builds the tag
# as users would, with the prebuilt NIF only.
version=$(sed -n 's/^ *{vsn, "\(.*\)"}.*/\1/p' src/b64simd.app.src)
git clone -q --no-hardlinks "$work/origin" "$work/release"
(cd "$work/release" && printf '\n## %s\n\nA test release.\n' "$version" >>CHANGELOG.md &&
    git -c user.name=test -c user.email=test@localhost commit -q -am "changelog for $version")
check "make release, then check_release.sh on its tag" "$work/release" \
    "git config user.name test && git config user.email test@localhost &&
     B64SIMD_ARTIFACTS=$work/artifacts make release &&
     sh scripts/check_release.sh $version file://$work/release && echo result=ok" \
    "v$version as users get it: ok"

# 2c. A tampered tarball: refused, not installed, and cargo is not there.
for tarball in "$work/served/"*.tar.gz; do printf 'x' >>"$tarball"; done
dir="$work/tampered"
new_rebar3_app "$dir" "{b64simd, {git, \"file://$work/origin\", {ref, \"$head\"}}}"
if output=$(cd "$dir" && PATH=$no_cargo rebar3 compile 2>&1); then
    echo "$output"
    echo "b64simd package: tampered tarball FAILED (the build succeeded)"
    exit 1
fi
case "$output" in
    *"checksum mismatch"*"not using it"*"cargo is not on PATH"*) ;;
    *)
        echo "$output"
        echo "b64simd package: tampered tarball FAILED (no checksum mismatch reported)"
        exit 1
        ;;
esac
if [ -e "$dir/_build/default/lib/b64simd/priv/libb64simd_nif.so" ]; then
    echo "b64simd package: tampered tarball FAILED (a NIF was installed)"
    exit 1
fi
passed=$((passed + 1))
echo "b64simd package: tampered tarball refused, nothing installed: ok"

# 4. The committed checksums.txt against this toolchain's artifacts.
recorded=$(sed -n 's/^# toolchain: //p' checksums.txt)
current=$(sed -n 's/^# toolchain: //p' "$work/artifacts/checksums.txt")
if [ "$recorded" != "$current" ]; then
    echo "b64simd package: SKIPPED checksums.txt against make artifacts: it records the" \
        "toolchain '$recorded', this machine has '$current'"
elif ! diff -u checksums.txt "$work/artifacts/checksums.txt"; then
    echo "b64simd package: checksums.txt is not what make artifacts builds from these sources" \
        "(run make artifacts and commit _build/artifacts/checksums.txt as checksums.txt)"
    exit 1
else
    passed=$((passed + 1))
    echo "b64simd package: checksums.txt is what make artifacts builds: ok"
fi

echo "$passed passed, 0 failed"
