#!/usr/bin/env bash
# Builds one commit for Benchmarks/goals.py: its Debian package (`make deb`, what a board runs)
# and its release treeline-bench, in a git worktree of its own, and lays them out in OUT:
#
#   OUT/treeline.deb     the package
#   OUT/treeline         /usr/bin/treeline from the package
#   OUT/treelined        /usr/bin/treelined from it (a separate executable in packages before
#                        0.7; from 0.7 on a link to treeline, which is what it is here too)
#   OUT/treeline-bench   the release benchmark executable
#
# Usage: Benchmarks/build-at.sh COMMIT OUT [WORKTREE]
# A build from nothing takes some 30 minutes on two cores; an OUT that holds all four is kept.
# WORKTREE (default OUT/src) is where the commit is checked out and built; give one that already
# holds the commit to reuse its builds.
set -euo pipefail
[ $# -ge 2 ] && [ $# -le 3 ] || { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
commit=$1 out=$2
repo=$(cd "$(dirname "$0")/.." && pwd)
sha=$(git -C "$repo" rev-parse --verify --quiet "$commit^{commit}") \
  || { echo "build-at.sh: $commit is not a commit of $repo (git fetch it first)" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
tree=${3:-$out/src}
if [ -x "$out/treeline" ] && [ -e "$out/treelined" ] && [ -x "$out/treeline-bench" ] && [ -s "$out/treeline.deb" ] \
   && [ "$(cat "$out/commit" 2>/dev/null)" = "$sha" ]; then
  echo "build-at.sh: $out already holds $sha"; exit 0
fi
if [ ! -e "$tree/.git" ]; then
  git -C "$repo" worktree add --detach "$tree" "$sha" >/dev/null
fi
[ "$(git -C "$tree" rev-parse HEAD)" = "$sha" ] \
  || { echo "build-at.sh: $tree holds $(git -C "$tree" rev-parse --short HEAD), not $commit" >&2; exit 2; }
log=$out/build.log
echo "build-at.sh: building $commit (${sha:0:9}) in $tree; the log is $log"
if ! { make -C "$tree" deb && (cd "$tree" && swift build -c release --product treeline-bench); } >"$log" 2>&1; then
  tail -40 "$log" >&2; echo "build-at.sh: the build of $commit failed (above; all of it in $log)" >&2; exit 1
fi
deb=$(ls "$tree"/dist/treeline_*.deb | head -1)
x=$(mktemp -d)
dpkg-deb -x "$deb" "$x"
cp "$deb" "$out/treeline.deb.part" && mv "$out/treeline.deb.part" "$out/treeline.deb"
cp "$x/usr/bin/treeline" "$out/treeline"
rm -f "$out/treelined"
if [ -L "$x/usr/bin/treelined" ]; then ln -s treeline "$out/treelined"; else cp "$x/usr/bin/treelined" "$out/treelined"; fi
cp "$tree/.build/release/treeline-bench" "$out/treeline-bench"
rm -rf "$x"
echo "$sha" >"$out/commit"
echo "build-at.sh: $out holds $commit: $(dpkg-deb -f "$out/treeline.deb" Installed-Size) KiB installed"
