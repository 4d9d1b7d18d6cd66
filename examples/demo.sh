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

# --- pith.sty: rendered, put next to an example paper, compiled ---
step "pith.sty: rendered from its template, put next to a copy of an example paper (pithtex sty), compiled"
RENDER=("$PITHTEX" render)  # `make render`: a developer's command, hidden from `pithtex --help`
"${RENDER[@]}" --check || "${RENDER[@]}"
rm -rf "$OUT/article" && cp -r examples/article "$OUT/article"
"$PITHTEX" sty "$OUT/article"
(cd "$OUT/article" && for pass in 1 2; do pdflatex -interaction=nonstopmode -halt-on-error paper.tex >/dev/null; done)
cp "$OUT/article/paper.pdf" "$OUT/paper.pdf"
tr -d '\n' < "$OUT/article/paper.log" | grep -o 'Package pith [A-Za-z]*: [^.]*\.' || true
"$PITHTEX" inspect "$OUT/paper.pdf"
where "pith.sty" "latex/pith.sty (rendered; \`pithtex sty DIR\` puts it next to a paper)"
where "example paper (PDF)" "$OUT/paper.pdf"

# --- stamp and inspect ---
step "verify of the example paper: it carries the seed's number, but is it the seed's paper?"
# The example's title is not the seed record's, so verify must not say "verified" (1 or 3).
rc=0; "$PITHTEX" verify "$OUT/paper.pdf" --record "$SEED" || rc=$?
case $rc in 1|3) echo "(exit $rc: not verified, as it should be)";; *) exit 1;; esac

step "Stamp a PDF of the seed's paper (one incremental update: the original bytes stay first), inspect it, revert it"
# stamp --record refuses a PDF whose page 1 does not show the record's title, so the demo
# stamps a one-page PDF that does.
TITLE=$("$PITHTEX" verify "$SEED" --json | "$(dirname "$PITHTEX")/python" -c 'import json,sys; print(json.load(sys.stdin)["title"])')
printf '\\pdfoutput=1 \\font\\big=cmr17 {\\big\\noindent %s\\par}\\bigskip A one-page stand-in for the paper.\\bye\n' "$TITLE" > "$OUT/plain.tex"
(cd "$OUT" && pdftex -interaction=batchmode plain.tex >/dev/null)
STAMP_IN="$OUT/plain.pdf"
"$PITHTEX" stamp "$STAMP_IN" --record "$SEED" --badge --attach-record -o "$OUT/stamped.pdf"
"$PITHTEX" inspect "$OUT/stamped.pdf"
"$PITHTEX" verify "$OUT/stamped.pdf" --record "$SEED"
"$PITHTEX" stamp "$OUT/stamped.pdf" --record "$SEED" -o "$OUT/stamped-again.pdf"
"$PITHTEX" stamp --revert "$OUT/stamped.pdf" -o "$OUT/reverted.pdf"
cmp "$STAMP_IN" "$OUT/reverted.pdf" && echo "reverted: byte-identical to $STAMP_IN"
where "stamped PDF" "$OUT/stamped.pdf"

# --- badges ---
step "Badges for web pages: SVG (verified against the seed record), PNG @2x, QR, snippets, self-verifying embed"
B="$OUT/badges"
mkdir -p "$B"
"$PITHTEX" badge "$BODY" --record "$SEED" -o "$B/pith-YBK5PTAK.svg"
"$PITHTEX" badge "$BODY" --record "$SEED" --theme dark -o "$B/pith-YBK5PTAK-dark.svg"
"$PITHTEX" badge "$BODY" --record "$SEED" --format png --scale 2 -o "$B/pith-YBK5PTAK@2x.png"
"$PITHTEX" badge "$BODY" --format qr -o "$B/pith-qr.svg"
"$PITHTEX" badge "$BODY" --format qr -o "$B/pith-qr.png"
for kind in html md rst; do "$PITHTEX" badge "$BODY" --format "$kind" -o "$B/snippet.$kind" 2>/dev/null; done
cat "$B/snippet.md"
cp -f "$SEED" "$B/record.json"
"$PITHTEX" badge "$BODY" --format embed --src record.json -o "$B/embed.html"
where "badges" "$B/pith-YBK5PTAK.svg (-dark.svg, @2x.png), pith-qr.svg/.png"
where "badge snippets" "$B/snippet.html, .md, .rst"
where "self-verifying badge" "$B/embed.html + pith-badge.js (serve it: python3 -m http.server -d $B)"


# --- arXiv check and bundle ---
step "Would arXiv compile the article (with pith.sty beside it), badge and metadata intact? (every route)"
rm -rf "$OUT/article-check" && cp -r examples/article "$OUT/article-check"
"$PITHTEX" sty "$OUT/article-check" >/dev/null
"$PITHTEX" check "$OUT/article-check" --engine all
where "checked paper" "$OUT/article-check"

step "The arXiv upload of examples/article: the files the compile used, the .bbl, and the current pith.sty"
"$PITHTEX" bundle examples/article -o "$OUT/article-upload.tar.gz"
where "arXiv upload" "$OUT/article-upload.tar.gz"

step "Where everything is"
printf '%s\n' "${WHERE[@]}"
