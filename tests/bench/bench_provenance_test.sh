#!/usr/bin/env bash
# scripts/bench-provenance.sh in a scratch repository laid out like this one: a run is clean at the
# commit, dirty after a change to any build input (not only core/ and native/: the converter in
# scripts/, the Makefile, presets, any CMake file, an untracked source), and still clean after a
# change to a post. Exits non-zero naming the first expectation that fails.
set -euo pipefail
script=$(cd "$(dirname "$0")/../.." && pwd)/scripts/bench-provenance.sh
repo=$(mktemp -d)
trap 'rm -rf "$repo"' EXIT
cd "$repo"
git init -q
git config user.email test@example.invalid
git config user.name test
mkdir -p core/src native/bench scripts tests/core cmake content/posts site/data
for f in CMakeLists.txt CMakePresets.json Makefile core/src/a.cpp native/bench/b.cpp scripts/bench.sh \
         scripts/bench-to-site.mjs tests/core/CMakeLists.txt cmake/Flags.cmake content/posts/p.md site/data/x.json; do
  echo original > "$f"
done
git add -A
git commit -qm scratch

expect() {  # expect <clean|dirty> <what changed>
  local got
  got=$("$script" "$repo")
  case "$1:$got" in
    clean:*" + uncommitted changes") echo "FAIL: $2 should leave the run clean, got '$got'"; exit 1 ;;
    dirty:*" + uncommitted changes") ;;
    dirty:*) echo "FAIL: $2 should mark the run dirty, got '$got'"; exit 1 ;;
  esac
  echo "ok: $2 -> $got"
}

expect clean "nothing"
for f in scripts/bench-to-site.mjs Makefile CMakePresets.json CMakeLists.txt tests/core/CMakeLists.txt \
         cmake/Flags.cmake core/src/a.cpp native/bench/b.cpp; do
  echo changed >> "$f"
  expect dirty "a change to $f"
  git checkout -q -- "$f"
done
echo new > native/bench/new_source.cpp
expect dirty "an untracked native/bench/new_source.cpp"
rm native/bench/new_source.cpp
echo staged >> scripts/bench.sh && git add scripts/bench.sh
expect dirty "a staged change to scripts/bench.sh"
git reset -q --hard
echo changed >> content/posts/p.md
echo changed >> site/data/x.json
expect clean "a change to a post and to site data"
