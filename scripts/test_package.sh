#!/bin/sh
# `make test-package`: b64simd as its users get it.
#  1. The package's file list (`files` in src/b64simd.app.src, which mix.exs
#     reads too) copied alone into a fresh directory: rebar3 and mix each
#     compile it there and call it.
#  2. Fresh client projects, a rebar3 app and a mix app, depend on this
#     repository by git (its committed HEAD) and by path (rebar3:
#     _checkouts/), compile, and call b64simd:encode/1 (and, from mix,
#     B64Simd.encode64/1).
# One cargo target directory serves every build, so simdutf's C++ is
# compiled once.
set -eu
cd "$(dirname "$0")/.."
repo=$(pwd)
sh scripts/ensure_deps.sh elixir
work=$(mktemp -d "${TMPDIR:-/tmp}/b64simd-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
export CARGO_TARGET_DIR="$work/cargo-target"
passed=0

# check LABEL DIR COMMAND: runs COMMAND (sh -c) in DIR; it must print "ok".
check() {
    label=$1
    output=$(cd "$2" && sh -c "$3" 2>&1) || {
        echo "$output"
        echo "b64simd package: $label FAILED"
        exit 1
    }
    case "$output" in
        *"result=ok"*) ;;
        *)
            echo "$output"
            echo "b64simd package: $label FAILED (no result=ok)"
            exit 1
            ;;
    esac
    passed=$((passed + 1))
    echo "b64simd package: $label: ok"
}

erlang_call='erl -noshell $(for d in _build/default/lib/*/ebin _build/default/checkouts/*/ebin; do
    [ -d "$d" ] && printf -- "-pa %s " "$d"; done) -eval "<<\"aGk=\">> = b64simd:encode(<<\"hi\">>),
    io:format(\"result=ok~n\"), halt()."'
elixir_call='mix run -e "\"aGk=\" = B64Simd.encode64(\"hi\"); \"aGk=\" = :b64simd.encode(\"hi\");
    IO.puts(\"result=ok\")"'

files=$(erl -noshell -eval '{ok, [{application, b64simd, App}]} = file:consult("src/b64simd.app.src"),
    io:format("~s", [lists:join(" ", proplists:get_value(files, App))]), halt().')
mkdir "$work/package"
# shellcheck disable=SC2086 # a list of paths
tar -cf - $files | tar -C "$work/package" -xf -
echo "b64simd package: files: $files"
check "package alone, rebar3" "$work/package" "rebar3 compile && $erlang_call"
check "package alone, mix" "$work/package" "mix compile && $elixir_call"

# The committed HEAD as a git repository that git dependencies can fetch.
git clone -q --no-hardlinks "$repo" "$work/origin"
head=$(git -C "$work/origin" rev-parse HEAD)

new_rebar3_app() {
    mkdir -p "$1/src"
    printf '{application, client, [{vsn, "0.1.0"}, {applications, [kernel, stdlib, b64simd]}]}.\n' \
        >"$1/src/client.app.src"
    printf '%s\n' "$2" >"$1/rebar.config"
}
new_rebar3_app "$work/rebar3-git" "{deps, [{b64simd, {git, \"file://$work/origin\", {ref, \"$head\"}}}]}."
check "rebar3 client, git dependency" "$work/rebar3-git" "rebar3 compile && $erlang_call"
new_rebar3_app "$work/rebar3-path" "{deps, [b64simd]}."
mkdir "$work/rebar3-path/_checkouts"
git clone -q --no-hardlinks "$work/origin" "$work/rebar3-path/_checkouts/b64simd"
check "rebar3 client, path dependency (_checkouts)" "$work/rebar3-path" \
    "rebar3 compile && $erlang_call"

new_mix_app() {
    mkdir -p "$1"
    cat >"$1/mix.exs" <<EOF
defmodule Client.MixProject do
  use Mix.Project
  def project, do: [app: :client, version: "0.1.0", deps: [$2]]
end
EOF
}
new_mix_app "$work/mix-git" "{:b64simd, git: \"file://$work/origin\", ref: \"$head\"}"
check "mix client, git dependency" "$work/mix-git" "mix deps.get && mix compile && $elixir_call"
git clone -q --no-hardlinks "$work/origin" "$work/b64simd-path"
new_mix_app "$work/mix-path" "{:b64simd, path: \"$work/b64simd-path\"}"
check "mix client, path dependency" "$work/mix-path" "mix compile && $elixir_call"

echo "$passed passed, 0 failed"
