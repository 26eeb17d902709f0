#!/bin/sh
# `make release`: a release of the version in src/b64simd.app.src, made in
# this checkout (docs/RELEASING.md has the whole procedure):
#  1. the tree must be clean and the tag vVERSION new;
#  2. `make artifacts` into _build/release: the prebuilt NIFs and checksums.txt;
#  3. checksums.txt committed (the package ships it, and every download is
#     verified against it), and the annotated tag vVERSION made on that commit;
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
if [ -n "${B64SIMD_ARTIFACTS:-}" ]; then
    # Artifacts already built from these sources (make test-package checks
    # this script without building them twice).
    mkdir -p "$out"
    cp "$B64SIMD_ARTIFACTS"/*.tar.gz "$B64SIMD_ARTIFACTS/checksums.txt" "$out/"
else
    sh scripts/artifacts.sh "$out"
fi
cp "$out/checksums.txt" checksums.txt
if [ -n "$(git status --porcelain checksums.txt)" ]; then
    git commit -q -m "checksums.txt for $tag" checksums.txt
fi
git tag -a "$tag" -m "b64simd $version"
say "tagged $tag at $(git rev-parse --short HEAD)"
cat <<DONE

Now:
  1. push the commit and the tag:   git push origin main $tag
  2. make a release named $tag on https://github.com/b64simd/b64simd/releases
     and upload these files to it (the build downloads them from
     https://github.com/b64simd/b64simd/releases/download/$tag/):
$(for f in "$out"/*.tar.gz; do echo "       $f"; done)
  3. check it from a clean machine (no cargo needed there):
       sh scripts/check_release.sh $version
DONE
