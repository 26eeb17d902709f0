#!/bin/sh
# `make release`: a release of the version in src/b64simd.app.src, made in
# this checkout (docs/RELEASING.md has the whole procedure):
#  1. the tree must be clean, without checksums.txt, and the tag vVERSION new;
#  2. `make artifacts` into _build/release: the prebuilt NIFs and checksums.txt;
#  3. a commit whose parent is HEAD and whose tree is HEAD's plus that
#     checksums.txt (the package ships it, and every download is verified
#     against it), and the annotated tag vVERSION on it. The branch and the
#     work tree stay as they are: checksums.txt is on the tagged commit alone;
#  4. what to push and upload, and how to check the release, printed.
# Nothing leaves this machine: pushing and uploading are the maintainer's.
set -eu
cd "$(dirname "$0")/.."
version=$(sed -n 's/^ *{vsn, "\(.*\)"}.*/\1/p' src/b64simd.app.src)
tag="v$version"
say() { echo "b64simd release: $*"; }

[ -z "$(git status --porcelain)" ] || {
    say "the tree has uncommitted changes; commit or stash them first" >&2
    exit 1
}
if git cat-file -e HEAD:checksums.txt 2>/dev/null; then
    say "HEAD has a checksums.txt, which only the commit make release tags may hold:" \
        "git rm checksums.txt, commit, and run make release again" >&2
    exit 1
fi
if git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then
    say "the tag $tag exists already: bump the version in src/b64simd.app.src" >&2
    exit 1
fi
grep -q "^## $version" CHANGELOG.md || {
    say "CHANGELOG.md has no section '## $version': write what this release changes" >&2
    exit 1
}

out=_build/release
rm -rf "$out"
started=$(date +%s)
sh scripts/artifacts.sh "$out"
say "make artifacts took $(($(date +%s) - started)) s"
blob=$(git hash-object -w "$out/checksums.txt")
tree=$({ git ls-tree HEAD; printf '100644 blob %s\tchecksums.txt\n' "$blob"; } | git mktree)
commit=$(git commit-tree -p HEAD -m "checksums.txt for $tag" "$tree")
git tag -a "$tag" -m "b64simd $version" "$commit"
say "tagged $tag at $(git rev-parse --short "$commit"), HEAD plus checksums.txt"
cat <<DONE

Now:
  1. push the tag (and the branch, if it is not pushed yet):   git push origin main $tag
  2. make a release named $tag on https://github.com/b64simd/b64simd/releases
     and upload these files to it (the build downloads them from
     https://github.com/b64simd/b64simd/releases/download/$tag/):
$(for f in "$out"/*.tar.gz; do echo "       $f"; done)
  3. check it from a clean machine (no cargo needed there):
       sh scripts/check_release.sh $version
DONE
