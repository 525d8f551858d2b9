#!/bin/sh
# The strace test-program measure (issue 25; HACKING.md "The strace
# test-program measure"). A local measure, not a CI test: strace's sources
# and its built tests live OUTSIDE this repository, in $STRACE_SRC.
#
#   tools/strace_tests/run.sh [REGEX]
#
# 1. Checks out strace's sources at the tag of the installed strace
#    (`strace -V`) into $STRACE_SRC (default /tmp/strace-src) from a git
#    repository of strace ($STRACE_GIT: a path or URL; default
#    https://github.com/strace/strace), unless that directory exists.
# 2. ./bootstrap, ./configure --enable-mpers=no and builds the test
#    programs (make -C tests -k check TESTS=, i.e. the check programs
#    without running strace's own suite); needs autoconf and automake.
#    A program that does not build is reported as "not built".
# 3. Builds target/debug/rtrace and runs compare.py, which runs each
#    program of tests/gen_tests.in (those matching REGEX) under strace
#    twice and rtrace once and compares the information per call. Results:
#    $OUT (default /tmp/strace-tests-results.jsonl), one JSON object per
#    program; the summary by family on stdout.
#
# Needs root (each run is in its own pid namespace: unshare -pf) and
# setarch. JOBS (default 2) programs run at once.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
STRACE_SRC=${STRACE_SRC:-/tmp/strace-src}
STRACE_GIT=${STRACE_GIT:-https://github.com/strace/strace}
OUT=${OUT:-/tmp/strace-tests-results.jsonl}
JOBS=${JOBS:-2}

case "$STRACE_SRC" in
"$repo"|"$repo"/*)
	echo "run.sh: STRACE_SRC must be outside the repository" >&2
	exit 1 ;;
esac

version=$(strace -V | sed -n '1s/.*version \([0-9.]*\).*/\1/p')
[ -n "$version" ] || { echo "run.sh: cannot read strace -V" >&2; exit 1; }

if [ ! -d "$STRACE_SRC" ]; then
	git clone -q --no-checkout "$STRACE_GIT" "$STRACE_SRC"
	git -C "$STRACE_SRC" checkout -q "v$version"
fi

cd "$STRACE_SRC"
[ -x configure ] || ./bootstrap
[ -f Makefile ] || ./configure --enable-mpers=no
# -k: a program that does not build here is reported, not fatal.
make -C tests -k -j"$JOBS" check TESTS= >build-tests.log 2>&1 ||
	echo "run.sh: some test programs did not build (see $STRACE_SRC/build-tests.log)" >&2

cd "$repo"
cargo build -q
python3 "$here/compare.py" --strace-src "$STRACE_SRC" \
	--rtrace "$repo/target/debug/rtrace" --out "$OUT" --jobs "$JOBS" \
	${1:+--only "$1"}
