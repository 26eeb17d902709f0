#!/bin/sh
# Debian roots for the platform tests (make test-otp, make test-arm64): one
# per SUITE and ARCH, made once with debootstrap and reused by later runs.
#
#   sh scripts/root.sh ensure SUITE ARCH          make the root if missing
#   sh scripts/root.sh run SUITE ARCH COMMAND...  run COMMAND (sh -c) in it,
#                                                 in a fresh copy of this tree
#
# `run` copies the libraries in B64SIMD_NIFS, a directory, when set, to the
# copy's priv/ (NIFs built for the root's architecture), and passes B64SIMD_BUILD, B64SIMD_EMULATED,
# SIMDUTF_FORCE_IMPLEMENTATION and ERL_FLAGS through when they are set.
#
# Each root holds Erlang/OTP, rebar3, PropEr and Elixir from that suite's own
# packages. Roots live under B64SIMD_ROOTS (default /var/cache/b64simd/roots);
# a root is complete once its stamp file exists, so an interrupted build is
# started again. The mirror is the host's own (its apt sources), read at run
# time. A foreign ARCH runs under qemu-user through binfmt_misc.
set -eu
root_dir=$(cd "$(dirname "$0")/.." && pwd)
roots=${B64SIMD_ROOTS:-/var/cache/b64simd/roots}
packages="erlang-nox erlang-dev rebar3 erlang-proper elixir"

usage() {
    echo "usage: sh scripts/root.sh ensure SUITE ARCH | run SUITE ARCH COMMAND" >&2
    exit 2
}
[ $# -ge 3 ] || usage
action=$1
suite=$2
arch=$3
shift 3
target="$roots/$suite-$arch"
stamp="$target/.b64simd-root-ready"

say() { echo "b64simd root $suite/$arch: $*" >&2; }

need_root_user() {
    [ "$(id -u)" = 0 ] || {
        say "needs root (debootstrap, chroot and mounts)"
        exit 1
    }
}

# The host packages roots need (debootstrap, qemu-user-static, binfmt-support).
host_packages() {
    sh "$root_dir/scripts/ensure_deps.sh" roots
}

# The host's Debian mirror: the first non-security URI of its apt sources.
host_mirror() {
    {
        sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null
        awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; break } }' \
            /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null
    } | tr ' ' '\n' | grep -v -e security -e '^$' | head -n 1
}

# binfmt_misc with qemu's handlers, so that the root's binaries run.
enable_foreign_arch() {
    host_packages
    [ -e /proc/sys/fs/binfmt_misc/register ] ||
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    update-binfmts --enable >/dev/null 2>&1 || true
    qemu_name=$(case "$arch" in arm64) echo aarch64 ;; *) echo "$arch" ;; esac)
    [ -e "/proc/sys/fs/binfmt_misc/qemu-$qemu_name" ] || {
        say "binfmt_misc has no qemu-$qemu_name handler"
        exit 1
    }
}

host_arch=$(dpkg --print-architecture)

# Unmounts whatever an interrupted run left mounted in the root (its /dev is
# the host's, bound): nothing may delete through it.
unmount_leftovers() {
    awk -v root="$target/" 'index($2, root) == 1 { print $2 }' /proc/mounts | sort -r |
        while read -r point; do umount -l "$point"; done
}

# mounted COMMAND...: runs COMMAND with /proc and /dev mounted in the root,
# unmounting them however COMMAND ends.
mounted() {
    unmount_leftovers
    mount -t proc proc "$target/proc"
    mount --bind /dev "$target/dev"
    status=0
    "$@" || status=$?
    umount "$target/dev" "$target/proc"
    return "$status"
}

ensure() {
    [ -e "$stamp" ] && return 0
    need_root_user
    host_packages
    [ "$arch" = "$host_arch" ] || enable_foreign_arch
    mirror=$(host_mirror)
    [ -n "$mirror" ] || {
        say "no Debian mirror in the host's apt sources"
        exit 1
    }
    start=$(date +%s)
    say "making it in $target from $mirror (once; later runs reuse it)"
    unmount_leftovers
    rm -rf --one-file-system "$target"
    mkdir -p "$target"
    # A second try for a mirror that drops a connection once.
    for try in 1 2; do
        debootstrap --variant=minbase --arch="$arch" "$suite" "$target" "$mirror" \
            >"$target.debootstrap.log" 2>&1 && break
        tail -n 20 "$target.debootstrap.log" >&2
        say "debootstrap failed, try $try of 2 (log: $target.debootstrap.log)"
        [ "$try" = 2 ] && exit 1
        rm -rf --one-file-system "$target"
        mkdir -p "$target"
    done
    # A mirror that serves a dated snapshot has Release files past their
    # Valid-Until date (sid's, seen here): accept them.
    mounted chroot "$target" sh -c "
        export DEBIAN_FRONTEND=noninteractive
        apt-get -o Acquire::Check-Valid-Until=false update -qq &&
        apt-get install -y -qq --no-install-recommends $packages >/dev/null" || {
        say "installing $packages failed"
        exit 1
    }
    touch "$stamp"
    say "ready in $(($(date +%s) - start)) s"
}

run() {
    ensure
    need_root_user
    [ "$arch" = "$host_arch" ] || enable_foreign_arch
    # A fresh copy of the tree, without the host's build products (other OTP
    # releases compile the sources themselves); priv/ is kept, so a NIF built
    # on the host comes along.
    rm -rf "$target/b64simd"
    mkdir -p "$target/b64simd"
    tar -C "$root_dir" --exclude=./.git --exclude=./_build \
        --exclude='./native/target' --exclude='./native/*/target' -cf - . | tar -C "$target/b64simd" -xf -
    # B64SIMD_NIFS: a directory of NIF libraries built for this root's
    # architecture (cross-built for a foreign one), in place of the host's.
    if [ -n "${B64SIMD_NIFS:-}" ]; then
        mkdir -p "$target/b64simd/priv"
        cp "$B64SIMD_NIFS"/*.so "$target/b64simd/priv/"
    fi
    # The variables that steer the tests cross into the root only when set
    # (an empty SIMDUTF_FORCE_IMPLEMENTATION would name no kernel).
    : >"$target/b64simd.env"
    for name in B64SIMD_BUILD B64SIMD_EMULATED SIMDUTF_FORCE_IMPLEMENTATION ERL_FLAGS; do
        eval "value=\${$name-}"
        eval "set_=\${$name+yes}"
        [ "$set_" = yes ] && printf "export %s='%s'\n" "$name" "$value" >>"$target/b64simd.env"
    done
    mounted chroot "$target" env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 TERM=dumb sh -c ". /b64simd.env && cd /b64simd && $*"
}

case "$action" in
    ensure) ensure ;;
    run)
        [ $# -ge 1 ] || usage
        run "$@"
        ;;
    *) usage ;;
esac
