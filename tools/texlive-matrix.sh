#!/bin/bash
# `make texlive-matrix`: the pith.sty suite on each TeX Live generation.
#   tools/texlive-matrix.sh CACHE PYTEST [SUITE...]    (SUITE: system, trixie, forky)
# TEXLIVE_TESTS (the environment) names other test files to run instead of the list below,
# e.g. tests/latex/test_sty_issue33.py alone: issue 33's minimal reproductions.
# system is the machine's own TeX Live (2022 on Debian 12); trixie (2024) and forky (2026)
# are chroots built once under CACHE by tools/texlive-chroot.sh. TeX runs in the chroot on a
# folder bind-mounted at the same path; the PDFs are read back out here with the venv.
# Prints one line per generation and route (passed/failed), then exits non-zero on failure.
set -uo pipefail
cache=$1; pytest=$2; shift 2
suites=${*:-system trixie forky}
work=${TMPDIR:-/tmp}/pithtex-matrix
mkdir -p "$work"
status=0
tests=${TEXLIVE_TESTS:-tests/latex/test_sty_routes.py tests/latex/test_sty_coexist.py tests/latex/test_sty_placement.py
  tests/latex/test_sty_options.py tests/latex/test_sty_matrix.py tests/latex/test_sty_titles.py
  tests/latex/test_sty_position.py tests/latex/test_sty_cost.py tests/latex/test_sty_issue33.py}
for suite in $suites; do
  root=""; mounted=""
  if [ "$suite" != system ]; then
    root=$cache/$suite
    [ -f "$root/.pithtex-ready" ] || { echo "texlive-matrix: $root is not built"; status=1; continue; }
    mkdir -p "$root$work"
    mountpoint -q "$root$work" || { mount --bind "$work" "$root$work" && mounted=$root$work; }
  fi
  # Debian's texlive-base version names the TeX Live release (2024.20250309 in trixie).
  version="TeX Live $(${root:+chroot "$root"} dpkg-query -W -f '${Version}' texlive-base)"
  rm -rf "${work:?}/$suite"
  report=$work/$suite.xml
  # shellcheck disable=SC2086  # a list of files, split on spaces
  PITH_TEXLIVE_ROOT=$root "$pytest" $tests -q -n 2 -p no:cacheprovider \
    --basetemp="$work/$suite" --junitxml="$report" > "$work/$suite.out" 2>&1 || status=1
  [ -n "$mounted" ] && umount "$mounted"
  echo "== $suite ($version): $(tail -1 "$work/$suite.out")"
  python3 tools/matrix_summary.py "$report"
done
exit $status
