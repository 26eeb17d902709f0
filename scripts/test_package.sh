#!/bin/sh
# `make test-package`: b64simd as its users get it, with the default build
# step: a release uses its prebuilt NIF, verified; anything else builds from
# source with cargo, trying no download (curl and wget on PATH record any
# call where none may be made).
#  1. The package's file list (`files` in src/b64simd.app.src, which mix.exs
#     reads too) copied alone into a fresh directory, neither a git checkout
#     nor a hex package: rebar3 and mix each compile it there from source
#     and call it. Its checksums.txt, which only a release's tagged commit
#     holds, is left out where this checkout has none.
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
#     b. the release procedure in a scratch clone: `make release` refuses a
#        HEAD that has a checksums.txt; otherwise it builds the artifacts
#        itself and tags a commit off the branch, HEAD plus checksums.txt,
#        leaving the branch and the work tree without one. That checksums.txt
#        is byte for byte the one `make artifacts` builds here, in another
#        directory, from the same sources: the builds are reproducible. Then
#        main and the tag pushed, and scripts/check_release.sh against the
#        tag, the release's own tarballs served on 127.0.0.1; main, after the
#        release, still builds from source with no download tried;
#     c. the release tag (the README's lines with the tag for main, path
#        dependencies checked out at it), with no cargo on PATH: the prebuilt
#        NIF, verified; and once by the tag's commit with cargo on PATH,
#        which it still prefers;
#     d. the release as a hex package: the prebuilt NIF; with a Rust source
#        changed, cargo, saying why;
#     e. a tampered tarball: refused, never installed, and the fallback to
#        cargo says why.
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
    present=""
    for path in $files; do
        # checksums.txt is on a release's tagged commit only; every other
        # listed path must be here (tar fails on a missing one).
        if [ "$path" != checksums.txt ] || [ -e checksums.txt ]; then
            present="$present $path"
        fi
    done
    # shellcheck disable=SC2086 # a list of paths
    tar -cf - $present | tar -C "$1" -xf -
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
# forge's), its branch main as the README's install lines name it, without
# any tag of this version: the release under test is made in 4b.
version=$(sed -n 's/^ *{vsn, "\(.*\)"}.*/\1/p' src/b64simd.app.src)
tag="v$version"
git clone -q --bare --no-hardlinks "$repo" "$work/origin"
git -C "$work/origin" update-ref refs/heads/main "$(git rev-parse HEAD)"
git -C "$work/origin" symbolic-ref HEAD refs/heads/main
git -C "$work/origin" tag -d "$tag" >/dev/null 2>&1 || true

# The README's install lines, the URL pointed at ./origin; and the same lines
# with the release tag for main, as docs/RELEASING.md has users change them.
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
rebar3_tag_deps=$(printf '%s\n' "$rebar3_deps" | sed "s|{branch, \"main\"}|{tag, \"$tag\"}|")
mix_tag_deps=$(printf '%s\n' "$mix_deps" | sed "s|branch: \"main\"|tag: \"$tag\"|")
if [ "$rebar3_tag_deps" = "$rebar3_deps" ] || [ "$mix_tag_deps" = "$mix_deps" ]; then
    echo "b64simd package: the README's install lines FAILED: they name no branch \"main\""
    exit 1
fi

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
# A rebar.config and a mix.exs of the README's lines: LINE is one of them.
readme_rebar3_app() { # DIR LINE
    mkdir -p "$1/src"
    printf '{application, client, [{vsn, "0.1.0"}, {applications, [kernel, stdlib, b64simd]}]}.\n' \
        >"$1/src/client.app.src"
    printf '%s\n' "$2" >"$1/rebar.config"
}
readme_mix_app() { # DIR LINE
    mkdir -p "$1"
    printf 'defmodule Client.MixProject do\n  use Mix.Project\n  %s\n  %s\nend\n' \
        'def project, do: [app: :client, version: "0.1.0", deps: deps()]' "$2" >"$1/mix.exs"
}
# checkout DIR [TAG]: a clone of ./origin in DIR, at its main or at TAG.
checkout() {
    git clone -q --no-hardlinks "$work/origin" "$1"
    [ -z "${2:-}" ] || git -C "$1" -c advice.detachedHead=false checkout -q "$2"
}

# clients LABEL PATH REBAR3_PATTERN MIX_PATTERN [TAG]: the four clients of
# ./origin's main, or of its tag TAG, with PATH; their outputs must match
# the patterns.
clients() {
    label=$1
    client_path=$2
    at=${5:-}
    dir="$work/clients-$passed"
    last_clients=$dir
    if [ -n "$at" ]; then
        rebar3_line=$rebar3_tag_deps mix_line=$mix_tag_deps how="the README's line, $at for main"
    else
        rebar3_line=$rebar3_deps mix_line=$mix_deps how="the README's line"
    fi
    readme_rebar3_app "$dir/rebar3-git" "$rebar3_line"
    check "$label: rebar3 app, git dependency ($how)" "$dir/rebar3-git" \
        "PATH=$client_path; rebar3 compile && $erlang_call" "$3"
    new_rebar3_app "$dir/rebar3-path" "b64simd"
    checkout "$dir/rebar3-path/_checkouts/b64simd" "$at"
    check "$label: rebar3 app, path dependency (_checkouts)" "$dir/rebar3-path" \
        "PATH=$client_path; rebar3 compile && $erlang_call" "$3"
    readme_mix_app "$dir/mix-git" "$mix_line"
    check "$label: mix app, git dependency ($how)" "$dir/mix-git" \
        "PATH=$client_path; mix deps.get && mix compile && $elixir_call" "$4"
    checkout "$dir/b64simd" "$at"
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

# 4b. The release procedure, in scratch clones of ./origin with a changelog
# section for its version. First make artifacts here, in this checkout: the
# reference the release's checksums.txt must equal byte for byte.
sh scripts/artifacts.sh "$work/artifacts" >"$work/artifacts.log" 2>&1 || {
    cat "$work/artifacts.log"
    exit 1
}
grep 'needs GLIBC' "$work/artifacts.log"
release_clone() { # DIR
    git clone -q --no-hardlinks "$work/origin" "$1"
    git -C "$1" config user.name test
    git -C "$1" config user.email test@localhost
    printf '\n## %s\n\nA test release.\n' "$version" >>"$1/CHANGELOG.md"
    git -C "$1" commit -q -am "changelog for $version"
}

# A HEAD that has a checksums.txt is refused, before anything is built.
release_clone "$work/refused"
cp "$work/artifacts/checksums.txt" "$work/refused/checksums.txt"
git -C "$work/refused" add checksums.txt
git -C "$work/refused" commit -q -m "checksums.txt"
check "make release refuses a HEAD that has a checksums.txt" "$work/refused" \
    "make release; test \$? -ne 0 && ! git rev-parse -q --verify refs/tags/$tag && echo result=ok" \
    "HEAD has a checksums.txt"

# make release builds its own artifacts and tags HEAD plus checksums.txt.
release_clone "$work/release"
check "make release in a clone" "$work/release" "make release && echo result=ok" \
    "make artifacts took * s*tagged $tag at *, HEAD plus checksums.txt"
printf '%s\n' "$output" | grep -e '^b64simd release: ' -e '^b64simd artifacts: .*needs'
in_release() { git -C "$work/release" "$@"; }
tagged=$(in_release rev-parse "$tag^{commit}")
if [ "$(in_release rev-parse "$tagged^")" != "$(in_release rev-parse HEAD)" ]; then
    why="the tagged commit's parent is not HEAD"
elif [ "$(in_release diff --name-status HEAD "$tagged" | tr '\t' ' ')" != "A checksums.txt" ]; then
    why="the tagged commit is not HEAD plus checksums.txt alone"
elif in_release cat-file -e HEAD:checksums.txt 2>/dev/null || [ -e "$work/release/checksums.txt" ]; then
    why="the branch or its work tree has a checksums.txt"
elif [ -n "$(in_release status --porcelain)" ]; then
    why="the work tree changed: $(in_release status --porcelain | tr '\n' ' ')"
elif ! in_release show "$tag:checksums.txt" | cmp -s - "$work/release/_build/release/checksums.txt"; then
    why="the tagged checksums.txt is not _build/release/checksums.txt"
else
    why=""
fi
if [ -n "$why" ]; then
    echo "b64simd package: $tag off the branch FAILED ($why)"
    exit 1
fi
passed=$((passed + 1))
echo "b64simd package: $tag is HEAD plus checksums.txt, the branch and work tree without one: ok"

# The reproducibility proof: the release's checksums.txt (its tarballs'
# sha256 and the sources' hash), built in the clone, is the one built here.
in_release show "$tag:checksums.txt" >"$work/release-checksums.txt"
label="$tag's checksums.txt is what make artifacts builds from the same sources"
if ! diff -u "$work/artifacts/checksums.txt" "$work/release-checksums.txt"; then
    if [ "$(sh scripts/build_nif.sh sources)" != "$(sh "$work/release/scripts/build_nif.sh" sources)" ]; then
        echo "b64simd package: $label FAILED: this work tree's NIF sources are not those of" \
            "its HEAD, which the release was made from: commit or stash the change and run again"
    else
        echo "b64simd package: $label FAILED: the same sources gave other bytes (the diff above:" \
            "this checkout's make artifacts, then the release's), so the build is not reproducible"
    fi
    exit 1
fi
passed=$((passed + 1))
echo "b64simd package: $label: ok"

# The maintainer's push (main, the tag), and check_release.sh building the
# tag as users would, with the prebuilt NIF only: the release's own
# tarballs, served on 127.0.0.1.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir "$work/served"
python3 -m http.server --bind 127.0.0.1 --directory "$work/served" "$port" >/dev/null 2>&1 &
server=$!
cp "$work/release/_build/release/"*.tar.gz "$work/served/"
export B64SIMD_PREBUILT_URL="http://127.0.0.1:$port"
check "make release, pushed, then check_release.sh on its tag" "$work/release" \
    "git push -q origin main $tag && sh scripts/check_release.sh $version file://$work/origin &&
     echo result=ok" \
    "$tag as users get it: ok"
if [ "$(git -C "$work/origin" rev-parse main)" != "$(in_release rev-parse HEAD)" ]; then
    echo "b64simd package: the push FAILED (./origin's main is not the release clone's)"
    exit 1
fi

# main after the release: untagged, no checksums.txt, the tag's parent.
readme_rebar3_app "$work/main-after" "$rebar3_deps"
check "main after the release: rebar3 app, git dependency (the README's line)" "$work/main-after" \
    "PATH=$no_download_path; rebar3 compile && test ! -e _build/default/lib/b64simd/checksums.txt &&
     $erlang_call" "$from_source"
no_download "main after the release"

# 4c. The release tag: the prebuilt NIF, cargo or not.
# Every PATH entry but those holding cargo (and rustup's rustc beside it).
no_cargo=$(printf '%s' "$PATH" | tr ':' '\n' | while read -r dir; do
    [ -x "$dir/cargo" ] || printf '%s:' "$dir"
done)
no_cargo=${no_cargo%:}
prebuilt="using the prebuilt NIF libb64simd_nif-v$version-*(sha256 verified), installed as */priv/libb64simd_nif.so"
clients "$tag, no cargo" "$no_cargo" "$prebuilt" "==> b64simd*$prebuilt" "$tag"
dir="$work/with-cargo"
new_rebar3_app "$dir" "{b64simd, {git, \"file://$work/origin\", {ref, \"$tagged\"}}}"
check "$tag, cargo on PATH: rebar3 app, git dependency by the tag's commit" "$dir" \
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
new_rebar3_app "$dir" "{b64simd, {git, \"file://$work/origin\", {ref, \"$tagged\"}}}"
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

echo "$passed passed, 0 failed"
