#!/usr/bin/env bash
# The commit a benchmark run was built from, for its provenance (scripts/bench.sh): the short hash,
# followed by " + uncommitted changes" when any input of the build differs from that commit
# (modified, staged, deleted or untracked): the core and native sources, every CMake file of the
# configured tree (top-level, tests' and any module), the presets, the Makefile, and scripts/ (the
# run script and the converter that writes the site data). Posts, figures and site data are not
# inputs: editing them leaves a run clean.
#
#   scripts/bench-provenance.sh [repository root, default: the current directory]
set -euo pipefail
root=${1:-.}
inputs=(core native scripts Makefile CMakePresets.json ':(glob)**/CMakeLists.txt' ':(glob)**/*.cmake')
commit=$(git -C "$root" rev-parse --short HEAD)
if [ -n "$(git -C "$root" status --porcelain --untracked-files=all -- "${inputs[@]}")" ]; then
  commit+=" + uncommitted changes"
fi
echo "$commit"
