#!/usr/bin/env bash
# The demo behind `make demo`: every step a user would take, on the seed record.
# Usage: examples/demo.sh PITHTEX OUTDIR
set -euo pipefail
PITHTEX=${1:-.venv/bin/pithtex}
OUT=${2:-out}
mkdir -p "$OUT"
SEED=examples/seed-record.json
BODY=YBK5PTAKOSCXY2WMLIIB7DMYH6
WHERE=()

step() { printf '\n== %s\n' "$*"; }
where() { WHERE+=("$(printf '  %-22s %s' "$1" "$2")"); }

step "The Pith Number of the seed record"
"$PITHTEX" number --record "$SEED"
where "seed record" "$SEED"

step "Its verification (hash, number, Ed25519 receipt)"
"$PITHTEX" verify "$SEED"

# --- pith.sty: render, compile an example paper (issue 3) ---

# --- stamp and inspect (issue 4) ---

# --- badges (issue 5) ---

# --- arXiv check and bundle (issue 6) ---
step "Would arXiv compile examples/article, with the pith badge and metadata intact? (every route)"
"$PITHTEX" check examples/article --engine all
where "checked paper" "examples/article"

step "The arXiv upload: only the files the compile used, plus the .bbl and pith.sty; then checked"
"$PITHTEX" bundle examples/article -o "$OUT/article-upload.tar.gz"
where "arXiv upload" "$OUT/article-upload.tar.gz"

step "Where everything is"
printf '%s\n' "${WHERE[@]}"
