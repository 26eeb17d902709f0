# Sourced, not run: the environment cargo needs to build for
# aarch64-unknown-linux-gnu on an x86_64 Debian host (Debian's aarch64 gcc,
# `sh scripts/ensure_deps.sh cross-arm64`), and to run the result under
# qemu-user with Debian's aarch64 libraries as its root. Used by
# scripts/artifacts.sh and scripts/test_platforms.sh.
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export CXX_aarch64_unknown_linux_gnu=aarch64-linux-gnu-g++
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64-static -L /usr/aarch64-linux-gnu"
