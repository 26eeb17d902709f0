#!/bin/sh
# `make test-package`: b64simd as its users get it, with the default build
# step: a release uses its prebuilt NIF, verified; anything else builds from
# source with cargo, trying no download (curl and wget on PATH record any
# call where none may be made).
#  1. The package's file list (`files` in src/b64simd.app.src, which mix.exs
#     reads too) copied alone into a fresh directory, neither a git checkout
#     nor a hex package: rebar3 and mix each compile it there from source
#     and call it.
#  2. The minimum Rust the crates declare builds the NIF and passes the
#     Rust tests (a rustup toolchain of exactly that version); the version
#     below it fails the source build with a message naming both.
#  3. macOS and Windows as build_nif.sh sees them (stand-in uname, cargo and
#     rustc): macOS builds from source with no download, a line every 10 s
#     while cargo works, and installs cargo's .dylib under the name the BEAM
#     loads; Windows is refused before cargo, with what to do instead.
#  4. Fresh client projects, a rebar3 app and a mix app, depend on a copy of
#     this repository by git, with the README's own install lines (only the
#     URL pointed at the copy), and by path (rebar3: _checkouts/), compile,
#     and call b64simd:encode/1 (and, from mix, B64Simd.encode64/1):
#     a. on its untagged main, as the README says: cargo, no download tried,
#        the build's progress printed (our line saying why, cargo's lines,
#        what was built where; in mix, under `==> b64simd`); then, with the
#        dependency's library deleted, the command the load failure's
#        message names (rebar3's, mix's) builds it again;
#     b. the release procedure: `make release` in a clone, pushed, and
#        scripts/check_release.sh against its tag, the NIFs of
#        `make artifacts` served on 127.0.0.1;
#     c. main at the release tag, with no cargo on PATH: the prebuilt NIF,
#        verified; and once with cargo on PATH, which it still prefers;
#     d. the release as a hex package: the prebuilt NIF; with a Rust source
#        changed, cargo, saying why;
#     e. a tampered tarball: refused, never installed, and the fallback to
#        cargo says why.
#  5. checksums.txt is what `make artifacts` builds from these sources, when
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
# Nothing answers on this port: a download fails at once, until the
# release's NIFs are served (4b).
export B64SIMD_PREBUILT_URL=http://127.0.0.1:9
passed=0

# check LABEL DIR COMMAND [PATTERN]: runs COMMAND (sh -c) in DIR; its output
# must hold "result=ok", and PATTERN (a shell pattern: `*` for any text).
check() {
    check_start=$(date +%s)
    output=$(cd "$2" && sh -c "$3" 2>&1) || {
        echo "$output"
        echo "b64simd package: $1 FAILED"
        exit 1
    }
    for wanted in "result=ok" "${4:-}"; do
        # shellcheck disable=SC2254 # a pattern
        case "$output" in
            *$wanted*) ;;
            *)
                echo "$output"
                echo "b64simd package: $1 FAILED (the output does not match '$wanted')"
                exit 1
                ;;
        esac
    done
    passed=$((passed + 1))
    echo "b64simd package: $1: ok ($(($(date +%s) - check_start)) s)"
}

# A curl and a wget that record their calls, and fail, first on PATH.
mkdir "$work/no-download"
for tool in curl wget; do
    printf '#!/bin/sh\necho "%s $*" >>"%s/downloads"\nexit 1\n' "$tool" "$work" \
        >"$work/no-download/$tool"
    chmod +x "$work/no-download/$tool"
done
no_download_path="$work/no-download:$PATH"
# no_download LABEL: passes when nothing called them.
no_download() {
    if [ -e "$work/downloads" ]; then
        cat "$work/downloads"
        echo "b64simd package: $1 FAILED (a download was tried)"
        exit 1
    fi
    passed=$((passed + 1))
    echo "b64simd package: $1: no download tried: ok"
}

erlang_call='erl -noshell $(for d in _build/default/lib/*/ebin _build/default/checkouts/*/ebin; do
    [ -d "$d" ] && printf -- "-pa %s " "$d"; done) -eval "<<\"aGk=\">> = b64simd:encode(<<\"hi\">>),
    io:format(\"result=ok~n\"), halt()."'
elixir_call='mix run -e "\"aGk=\" = B64Simd.encode64(\"hi\"); \"aGk=\" = :b64simd.encode(\"hi\");
    IO.puts(\"result=ok\")"'

# 1. The file list alone.
files=$(erl -noshell -eval '{ok, [{application, b64simd, App}]} = file:consult("src/b64simd.app.src"),
    io:format("~s", [lists:join(" ", proplists:get_value(files, App))]), halt().')
echo "b64simd package: files: $files"
package_copy() { # DIR: the package's files alone, in DIR
    mkdir "$1"
    # shellcheck disable=SC2086 # a list of paths
    tar -cf - $files | tar -C "$1" -xf -
}
package_copy "$work/package"
check "package alone, rebar3" "$work/package" \
    "PATH=$no_download_path; rebar3 compile && $erlang_call" \
    "building from source (no prebuilt NIF for sources that are neither a git checkout nor a hex package)*built $work/package/priv/libb64simd_nif.so from source"
check "package alone, mix" "$work/package" "PATH=$no_download_path; mix compile && $elixir_call"
no_download "package alone"

# 2. The minimum Rust the crates declare (rust-version): a rustup toolchain
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


# 3. macOS and Windows as build_nif.sh sees them: a stand-in uname names the
#    system; a stand-in cargo makes the library under macOS's name after 12 s
#    of work, and says when it runs.
mkdir "$work/macos-bin" "$work/windows-bin"
printf '#!/bin/sh\ncase "$1" in -s) echo Darwin ;; -m) echo arm64 ;; esac\n' >"$work/macos-bin/uname"
printf '#!/bin/sh\ncase "$1" in -s) echo MINGW64_NT-10.0 ;; -m) echo x86_64 ;; esac\n' \
    >"$work/windows-bin/uname"
printf '#!/bin/sh\necho "rustc %s.0 (stand-in)"\n' "$rust_min" >"$work/macos-bin/rustc"
cat >"$work/macos-bin/cargo" <<'CARGO'
#!/bin/sh
echo "stand-in cargo: building"
sleep 12
mkdir -p "$CARGO_TARGET_DIR/release"
echo "stand-in dylib" >"$CARGO_TARGET_DIR/release/libb64simd_nif.dylib"
CARGO
chmod +x "$work/macos-bin/"* "$work/windows-bin/uname"
package_copy "$work/macos"
check "macOS (stand-ins): cargo, no download, a line while it works, its .dylib installed" \
    "$work/macos" \
    "PATH=$work/macos-bin:$no_download_path; CARGO_TARGET_DIR=$work/macos-target sh scripts/build_nif.sh &&
     grep -qx 'stand-in dylib' priv/libb64simd_nif.so && echo result=ok" \
    "building from source (no prebuilt NIF for Darwin arm64)*cargo is still building (1? s)*built $work/macos/priv/libb64simd_nif.so from source"
no_download "macOS (stand-ins)"
rm -rf "$work/macos/priv"
if output=$(cd "$work/macos" &&
    PATH=$work/windows-bin:$work/macos-bin:$no_download_path sh scripts/build_nif.sh 2>&1); then
    echo "$output"
    echo "b64simd package: Windows (stand-ins) FAILED (the build succeeded)"
    exit 1
fi
case "$output" in
    *"stand-in cargo"*)
        echo "$output"
        echo "b64simd package: Windows (stand-ins) FAILED (cargo ran)"
        exit 1
        ;;
    *"building on Windows (MINGW64_NT-10.0) is not supported: build in WSL 2"*) ;;
    *)
        echo "$output"
        echo "b64simd package: Windows (stand-ins) FAILED (no message saying what to do)"
        exit 1
        ;;
esac
passed=$((passed + 1))
echo "b64simd package: Windows (stand-ins) is refused before cargo, WSL 2 named: ok"

# The committed HEAD as the repository git dependencies fetch (bare, as a
# forge's), its branch main as the README's install lines name it. The
# release under test is made in 4b: a real tag of this version goes.
version=$(sed -n 's/^ *{vsn, "\(.*\)"}.*/\1/p' src/b64simd.app.src)
git clone -q --bare --no-hardlinks "$repo" "$work/origin"
git -C "$work/origin" update-ref refs/heads/main "$(git rev-parse HEAD)"
git -C "$work/origin" symbolic-ref HEAD refs/heads/main
git -C "$work/origin" tag -d "v$version" >/dev/null 2>&1 || true

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

# clients LABEL PATH REBAR3_PATTERN MIX_PATTERN: the four clients of
# ./origin's main, with PATH; their outputs must match the patterns.
clients() {
    label=$1
    client_path=$2
    dir="$work/clients-$passed"
    last_clients=$dir
    readme_rebar3_app "$dir/rebar3-git"
    check "$label: rebar3 app, git dependency (the README's line)" "$dir/rebar3-git" \
        "PATH=$client_path; rebar3 compile && $erlang_call" "$3"
    new_rebar3_app "$dir/rebar3-path" "b64simd"
    git clone -q --no-hardlinks "$work/origin" "$dir/rebar3-path/_checkouts/b64simd"
    check "$label: rebar3 app, path dependency (_checkouts)" "$dir/rebar3-path" \
        "PATH=$client_path; rebar3 compile && $erlang_call" "$3"
    readme_mix_app "$dir/mix-git"
    check "$label: mix app, git dependency (the README's line)" "$dir/mix-git" \
        "PATH=$client_path; mix deps.get && mix compile && $elixir_call" "$4"
    git clone -q --no-hardlinks "$work/origin" "$dir/b64simd"
    new_mix_app "$dir/mix-path" "{:b64simd, path: \"$dir/b64simd\"}"
    check "$label: mix app, path dependency" "$dir/mix-path" \
        "PATH=$client_path; mix compile && $elixir_call" "$4"
}

# 4a. The new user's path: untagged main, cargo, no download.
from_source="building from source (no prebuilt NIF for this commit)*Compiling b64simd_nif*built */priv/libb64simd_nif.so from source"
clients "untagged main" "$no_download_path" "$from_source" "==> b64simd*$from_source"
no_download "untagged main"

# rebuilt TOOL DIR PRIV CALL: the library of the b64simd dependency of the
# TOOL client in DIR (in its PRIV) deleted, CALL fails with a message that
# names a command of TOOL's, which makes CALL work again.
rebuilt() {
    rm -f "$2/$3/libb64simd_nif.so"
    if output=$(cd "$2" && sh -c "PATH=$no_download_path; $4" 2>&1); then
        echo "$output"
        echo "b64simd package: missing library, $1 FAILED (the call worked)"
        exit 1
    fi
    command=$(printf '%s\n' "$output" | grep -o "\`[^\`]*$1 [^\`]*\`" | head -n 1 | tr -d '\`')
    if [ -z "$command" ]; then
        echo "$output"
        echo "b64simd package: missing library, $1 FAILED (the message names no $1 command)"
        exit 1
    fi
    check "missing library, $1 app: the message's \`$command\`" "$2" \
        "PATH=$no_download_path; $command && $4"
}
rebuilt rebar3 "$last_clients/rebar3-git" _build/default/lib/b64simd/priv "$erlang_call"
rebuilt mix "$last_clients/mix-git" deps/b64simd/priv "$elixir_call"
no_download "missing library"

# 4b. make artifacts, served on 127.0.0.1; the release procedure in a clone
# of ./origin with a changelog section for its version: make release commits
# the artifacts' checksums.txt and tags that commit, the maintainer pushes
# both, and check_release.sh builds the tag as users would, with the
# prebuilt NIF only.
sh scripts/artifacts.sh "$work/artifacts" >"$work/artifacts.log" 2>&1 || {
    cat "$work/artifacts.log"
    exit 1
}
grep 'needs GLIBC' "$work/artifacts.log"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir "$work/served"
python3 -m http.server --bind 127.0.0.1 --directory "$work/served" "$port" >/dev/null 2>&1 &
server=$!
cp "$work/artifacts/"*.tar.gz "$work/served/"
export B64SIMD_PREBUILT_URL="http://127.0.0.1:$port"
git clone -q --no-hardlinks "$work/origin" "$work/release"
(cd "$work/release" && printf '\n## %s\n\nA test release.\n' "$version" >>CHANGELOG.md &&
    git -c user.name=test -c user.email=test@localhost commit -q -am "changelog for $version")
check "make release, pushed, then check_release.sh on its tag" "$work/release" \
    "git config user.name test && git config user.email test@localhost &&
     B64SIMD_ARTIFACTS=$work/artifacts make release && git push -q origin main v$version &&
     sh scripts/check_release.sh $version file://$work/origin && echo result=ok" \
    "v$version as users get it: ok"

# 4c. main at the release tag: the prebuilt NIF, cargo or not.
# Every PATH entry but those holding cargo (and rustup's rustc beside it).
no_cargo=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r dir; do
    [ -x "$dir/cargo" ] || printf '%s:' "$dir"
done)
no_cargo=${no_cargo%:}
prebuilt="using the prebuilt NIF libb64simd_nif-v$version-*(sha256 verified), installed as */priv/libb64simd_nif.so"
clients "main at v$version, no cargo" "$no_cargo" "$prebuilt" "==> b64simd*$prebuilt"
head=$(git -C "$work/origin" rev-parse main)
dir="$work/with-cargo"
new_rebar3_app "$dir" "{b64simd, {git, \"file://$work/origin\", {ref, \"$head\"}}}"
check "v$version, cargo on PATH: rebar3 app, git dependency by ref" "$dir" \
    "rebar3 compile && $erlang_call" "$prebuilt"

# 4d. v$version as a hex package: the tag's files and the hex_metadata.config
# that rebar3 and mix write when they unpack one. A changed Rust source, even
# a comment, is not the release's: cargo builds it, and says why.
mkdir "$work/hex"
# shellcheck disable=SC2086 # a list of paths
git -C "$work/origin" archive "v$version" $files | tar -C "$work/hex" -xf -
printf '{<<"name">>,<<"b64simd">>}.\n{<<"version">>,<<"%s">>}.\n' "$version" \
    >"$work/hex/hex_metadata.config"
check "hex package of v$version, no cargo" "$work/hex" \
    "PATH=$no_cargo; rebar3 compile && $erlang_call" "$prebuilt"
printf '// changed\n' >>"$work/hex/native/b64simd_nif/src/lib.rs"
check "hex package of v$version, a Rust source changed" "$work/hex" \
    "rebar3 compile && test ! -e priv/.prebuilt && $erlang_call" \
    "building from source (the NIF's sources differ from those of the release's prebuilt NIF (checksums.txt))*built $work/hex/priv/libb64simd_nif.so from source"

# 4e. A tampered tarball: refused, not installed, and cargo is not there.
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

# 5. The committed checksums.txt against this toolchain's artifacts.
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
