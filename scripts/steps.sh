# Sourced by the scripts that run steps (`. scripts/steps.sh`): one way to
# time a step and one way to log one. POSIX sh has no pipefail, so a logged
# step's status travels through a file.

# timed LABEL COMMAND...: runs COMMAND, then says how long it took and its
# status; returns that status.
timed() {
    timed_label=$1
    shift
    timed_start=$(date +%s)
    timed_status=0
    "$@" || timed_status=$?
    echo "b64simd: $timed_label took $(($(date +%s) - timed_start)) s (status $timed_status)"
    return "$timed_status"
}

# logged LOG COMMAND...: runs COMMAND, its output on the terminal and in LOG;
# exits with COMMAND's status if it failed.
logged() {
    logged_file=$1
    shift
    { logged_status=0; "$@" || logged_status=$?; echo "$logged_status" >"$logged_file.status"; } |
        tee "$logged_file"
    logged_status=$(cat "$logged_file.status")
    rm -f "$logged_file.status"
    [ "$logged_status" -eq 0 ] || {
        echo "b64simd: $* FAILED (status $logged_status, log $logged_file)" >&2
        exit "$logged_status"
    }
}

# fresh_copy EBIN DIR: copies a build, EBIN and the priv/ beside it, to
# DIR/NAME/{ebin,priv}, NAME that of EBIN's parent (so that
# `code:priv_dir/1` finds the copy's priv/), and prints the copy's ebin. The
# same binary ran faster or slower from one copy than from another, as its
# pages landed in memory (bench/README.md, "Code
# placement"): a run loads copies of its own, so that runs sample that.
fresh_copy() {
    fresh_build=$(cd "$1/.." && pwd)
    fresh_dir=$2/$(basename "$fresh_build")
    mkdir -p "$fresh_dir"
    cp -RL "$1" "$fresh_dir/ebin"
    if [ -d "$fresh_build/priv" ]; then cp -RL "$fresh_build/priv" "$fresh_dir/priv"; fi
    echo "$fresh_dir/ebin"
}
