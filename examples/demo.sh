#!/usr/bin/env bash
# The demo behind `make demo`: every step a user would take, on the seed record.
# Usage: examples/demo.sh PITHTEX OUTDIR
set -euo pipefail
PITHTEX=${1:-.venv/bin/pithtex}
OUT=${2:-out}
mkdir -p "$OUT"
SEED=examples/seed-record.json

step() { printf '\n== %s\n' "$*"; }

step "The Pith Number of the seed record"
"$PITHTEX" number --record "$SEED"

step "Its verification (hash, number, Ed25519 receipt)"
"$PITHTEX" verify "$SEED"

step "Where everything is"
echo "  seed record      $SEED"
