#!/bin/sh
# Checks a published release as its users get it, on a machine with
# Erlang/OTP, rebar3 and Elixir (no cargo needed): fresh rebar3 and mix
# projects depend on the tag vVERSION by git, compile with cargo hidden from
# PATH, which they can only do with the release's prebuilt NIF (downloaded,
# its sha256 checked against the checksums.txt of the tagged commit), and
# call it.
#
#   sh scripts/check_release.sh VERSION [REPOSITORY_URL]
#
# REPOSITORY_URL defaults to https://github.com/b64simd/b64simd;
# B64SIMD_PREBUILT_URL, if set, is where the build downloads the NIF from
# (`make test-package` points both at a local copy).
set -eu
[ $# -ge 1 ] || { echo "usage: sh scripts/check_release.sh VERSION [REPOSITORY_URL]" >&2; exit 2; }
tag="v$1"
url=${2:-https://github.com/b64simd/b64simd}
work=$(mktemp -d "${TMPDIR:-/tmp}/b64simd-release.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset B64SIMD_BUILD
say() { echo "b64simd check_release: $*"; }

# Every PATH entry but those holding cargo.
no_cargo=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r dir; do
    [ -x "$dir/cargo" ] || printf '%s:' "$dir"
done)

mkdir -p "$work/rebar3/src" "$work/mix"
printf '{application, client, [{vsn, "0.1.0"}, {applications, [kernel, stdlib, b64simd]}]}.\n' \
    >"$work/rebar3/src/client.app.src"
printf '{deps, [{b64simd, {git, "%s", {tag, "%s"}}}]}.\n' "$url" "$tag" >"$work/rebar3/rebar.config"
printf 'defmodule Client.MixProject do\n  use Mix.Project\n  def project, do: %s\nend\n' \
    "[app: :client, version: \"0.1.0\", deps: [{:b64simd, git: \"$url\", tag: \"$tag\"}]]" \
    >"$work/mix/mix.exs"

run() { # LABEL DIR COMMAND
    if output=$(cd "$2" && PATH=${no_cargo%:} sh -c "$3" 2>&1) &&
        case "$output" in *"using the prebuilt NIF"*"result=ok"*) true ;; *) false ;; esac; then
        say "$1: ok"
    else
        echo "$output"
        say "$1 FAILED"
        exit 1
    fi
}
run "rebar3 project, $tag, prebuilt NIF" "$work/rebar3" \
    'rebar3 compile && erl -noshell $(for d in _build/default/lib/*/ebin; do printf -- "-pa %s " "$d"; done) \
        -eval "<<\"aGk=\">> = b64simd:encode(<<\"hi\">>), io:format(\"result=ok~n\"), halt()."'
run "mix project, $tag, prebuilt NIF" "$work/mix" \
    'mix deps.get && mix compile && mix run -e "\"aGk=\" = B64Simd.encode64(\"hi\"); IO.puts(\"result=ok\")"'
say "$tag as users get it: ok"
