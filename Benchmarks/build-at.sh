#!/usr/bin/env bash
# Builds one commit for Benchmarks/goals.py: its Debian package (`make deb`, what a board runs)
# and its release treeline-bench, in a git worktree of its own, and lays them out in OUT:
#
#   OUT/treeline.deb     the package
#   OUT/treeline         /usr/bin/treeline from the package
#   OUT/treelined        /usr/bin/treelined from it: a link to treeline since b2822a2 (one
#                        executable for both commands), a program of its own before
#   OUT/treeline-bench   the release benchmark (`swift build -c release`: not the package's
#                        flags, so the commit is built twice)
#   OUT/commit           the commit's hash; OUT/build.log, the build's output
#
# Usage: Benchmarks/build-at.sh COMMIT OUT [WORKTREE]
# WORKTREE (default OUT/src, some GB once built) is a worktree of this repository, added if
# missing, where the commit is checked out and built; one that already holds the commit, with no
# change to its tracked files, keeps its build caches. A build from nothing takes some 30
# minutes on two cores; `make deb` installs debhelper and lintian with apt-get when missing. An
# OUT that holds all of the above for COMMIT is kept as it is.
set -euo pipefail
[ $# -ge 2 ] && [ $# -le 3 ] || { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
commit=$1
repo=$(cd "$(dirname "$0")/.." && pwd)
sha=$(git -C "$repo" rev-parse --verify --quiet "$commit^{commit}") \
  || { echo "build-at.sh: $commit is not a commit of $repo (git fetch it first)" >&2; exit 2; }
mkdir -p "$2"
out=$(cd "$2" && pwd)
tree=$(realpath -m "${3:-$out/src}")
if [ -x "$out/treeline" ] && [ -e "$out/treelined" ] && [ -x "$out/treeline-bench" ] && [ -s "$out/treeline.deb" ] \
   && [ "$(cat "$out/commit" 2>/dev/null)" = "$sha" ]; then
  echo "build-at.sh: $out already holds $commit (${sha:0:9})"; exit 0
fi
if [ ! -e "$tree/.git" ]; then
  git -C "$repo" worktree add --detach "$tree" "$sha" >/dev/null
fi
held=$(git -C "$tree" rev-parse HEAD)
[ "$held" = "$sha" ] || { echo "build-at.sh: $tree holds ${held:0:9}, not $commit: give another OUT or WORKTREE," \
  "or check $commit out there (git -C $tree checkout --detach $sha)" >&2; exit 2; }
[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] \
  || { echo "build-at.sh: $tree has changes to its tracked files, which $commit does not hold: commit or stash them" >&2; exit 2; }
# Nothing in OUT says it holds a commit until all of it is in place.
rm -f "$out/commit"
log=$out/build.log
echo "build-at.sh: building $commit (${sha:0:9}) in $tree; the log is $log"
if ! { make -C "$tree" deb && (cd "$tree" && swift build -c release --product treeline-bench); } >"$log" 2>&1; then
  tail -40 "$log" >&2; echo "build-at.sh: the build of $commit failed (above; all of it in $log)" >&2; exit 1
fi
deb=$(ls "$tree"/dist/treeline_*.deb | head -1)
new=$out/.new
rm -rf "$new"
mkdir -p "$new/x"
trap 'rm -rf "$new"' EXIT
dpkg-deb -x "$deb" "$new/x"
cp "$deb" "$new/treeline.deb"
cp "$new/x/usr/bin/treeline" "$new/treeline"
if [ -L "$new/x/usr/bin/treelined" ]; then ln -s treeline "$new/treelined"; else cp "$new/x/usr/bin/treelined" "$new/treelined"; fi
cp "$tree/.build/release/treeline-bench" "$new/treeline-bench"
for f in treeline.deb treeline treelined treeline-bench; do
  rm -f "$out/$f"
  mv "$new/$f" "$out/$f"
done
echo "$sha" >"$out/commit"
echo "build-at.sh: $out holds $commit (${sha:0:9}): $(dpkg-deb -f "$out/treeline.deb" Installed-Size) KiB installed"
