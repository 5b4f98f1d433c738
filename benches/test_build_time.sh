#!/usr/bin/env bash
# How long mapscope's own test build takes (lib, bin and every test binary), with the
# dependencies already compiled, for two commits side by side:
#
#   benches/test_build_time.sh BEFORE AFTER DEPS_TARGET
#
# DEPS_TARGET: a target directory holding the dependencies' build (e.g. a copy of one after
# `cargo build`, with `cargo clean -p mapscope`). For each commit: a worktree under /tmp, a
# copy of DEPS_TARGET, then `/usr/bin/time cargo test --no-run`. Prints wall, user, sys and
# the target directory's size; removes what it made.
set -eu
BEFORE=${1:?usage: test_build_time.sh BEFORE AFTER DEPS_TARGET}
AFTER=${2:?usage: test_build_time.sh BEFORE AFTER DEPS_TARGET}
DEPS=${3:?usage: test_build_time.sh BEFORE AFTER DEPS_TARGET}
REPO=$(git rev-parse --show-toplevel)
for rev in "$BEFORE" "$AFTER"; do
  wt=/tmp/mapscope-tbt-$rev; tgt=/tmp/mapscope-tbt-target-$rev
  git -C "$REPO" worktree add -f -q "$wt" "$rev"
  rm -rf "$tgt"; cp -a "$DEPS" "$tgt"
  n=$(ls "$wt"/tests/*.rs "$wt"/tests/*/main.rs 2>/dev/null | wc -l)
  (cd "$wt" && /usr/bin/time -f "$rev: $n test binaries: %e s wall, %U s user, %S s sys, load $(cut -d' ' -f1 /proc/loadavg)" \
     env CARGO_TARGET_DIR="$tgt" cargo test --no-run -q 2>&1 | tail -1)
  du -sh "$tgt" | sed "s|^|$rev target size: |"
  git -C "$REPO" worktree remove --force "$wt"; rm -rf "$tgt"
done
