# pithtex: `make demo` and `make test` do all the set-up on a fresh Debian 12 machine.
# The apt package list lives here only; README, demo and .ci/run all use these targets.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PITHTEX := $(BIN)/pithtex
# A developer's command (re-render a checkout's generated files), not in `pithtex --help`.
RENDER := $(PITHTEX) render
OUT := out

# TeX Live for every route arXiv runs (plus LuaLaTeX), LaTeXML (arXiv's HTML route), the PDF
# tools the tests compare against, Chromium and Firefox ESR for the in-browser <pith-badge> tests, and Hugo
# and Jekyll for the site-generator recipes (tests/web/test_site_recipes.py), and Tesseract,
# which reads a title set in fonts whose glyphs the text layer cannot vouch for (pithtex/pdf/ocr.py).
APT_PACKAGES := texlive-latex-base texlive-latex-recommended texlive-latex-extra \
	texlive-fonts-recommended texlive-xetex texlive-luatex texlive-publishers \
	texlive-science texlive-lang-french texlive-lang-german texlive-plain-generic latexmk poppler-utils ghostscript strace qpdf libimage-exiftool-perl \
	chromium firefox-esr fonts-dejavu-core latexml libnss3-tools hugo jekyll tesseract-ocr tesseract-ocr-eng

.PHONY: help demo test lint venv system-packages apt-packages render examples bench clean dist ctan web-deps web-pack \
	texlive-matrix doc

help:
	@echo "make demo   install everything, then run pithtex on the seed record and an example paper"
	@echo "make test   the whole test suite (pytest), ruff and mypy --strict"
	@echo "make render re-render latex/pith.sty and the web assets from the templates"
	@echo "make examples  build every example paper into $(OUT)/examples/<class>/paper.pdf"
	@echo "make bench  the benchmarks in bench/ (ratios, not tests)"
	@echo "make dist   the release: sdist and wheel in dist/ (python -m build), checked by twine"
	@echo "make ctan   $(OUT)/pith.zip, the LaTeX package as CTAN takes it"
	@echo "make web-pack  the npm package of <pith-badge> (web/) as dist/pith-badge-VERSION.tgz"
	@echo "make texlive-matrix  the pith.sty tests on TeX Live 2022 (system), 2024 and 2026 (chroots, root; TEXLIVE_TESTS=FILES for fewer)"
	@echo "make doc    the manual, latex/pith-doc.tex -> $(OUT)/doc/pith-doc.pdf"

$(BIN)/pithtex: pyproject.toml
	@# Debian's python3 needs python3-venv for `-m venv`; install it when we can.
	@$(PYTHON) -c 'import ensurepip' 2>/dev/null || { [ "$$(id -u)" = 0 ] && \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null; } || \
	  { echo "python3 cannot make a venv: sudo apt-get install python3-venv"; exit 1; }
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

venv: $(BIN)/pithtex

apt-packages:
	@echo $(APT_PACKAGES)

# Installs the Debian packages when any is missing and we are root; otherwise says what
# to install and stops.
system-packages:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian packages:" $$missing; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else \
	    echo "missing Debian packages; install them and run make again:"; \
	    echo "  sudo apt-get install --no-install-recommends" $$missing; exit 1; \
	  fi; \
	fi

render: venv
	$(RENDER)

# Every example paper (examples/<class>/paper.tex, an arXiv upload each) built with
# pdflatex into $(OUT)/examples/<class>/, beside the current pith.sty, so the upload
# folders stay clean.
examples: venv system-packages
	$(RENDER) --check
	@for dir in examples/*/; do \
	  cls=$$(basename $$dir); [ -f $$dir/paper.tex ] || continue; \
	  rm -rf $(OUT)/examples/$$cls && mkdir -p $(OUT)/examples && cp -r $$dir $(OUT)/examples/$$cls; \
	  $(PITHTEX) sty $(OUT)/examples/$$cls >/dev/null; \
	  for pass in 1 2; do \
	    (cd $(OUT)/examples/$$cls && pdflatex -interaction=nonstopmode -halt-on-error paper.tex >/dev/null) \
	      || { echo "failed: $$cls (see $(OUT)/examples/$$cls/paper.log)"; exit 1; }; \
	  done; \
	  echo "built $(OUT)/examples/$$cls/paper.pdf"; \
	done

demo: venv system-packages
	@bash examples/demo.sh $(PITHTEX) $(OUT)

test: venv system-packages web-deps
	$(BIN)/pytest -n auto -q
	$(BIN)/ruff check .
	$(BIN)/mypy

lint: venv
	$(BIN)/ruff check .
	$(BIN)/mypy

# Every bench/*.py with its defaults, in turn (bench/measure.py runs them), into the log
# bench/runs/<UTC date>-<short commit>.txt that docs/performance.md names. 1,131 s (19 minutes)
# on 2 cores shared at load 2-8 (2026-12-05): concurrency 339 s, latexml 286 s, latex 133 s,
# serve 76 s, stamp 48 s, the other 16 under 30 s each (docs/performance.md lists all; the
# log's last lines too). A bench stops at 15 minutes; one that cannot run here is counted.
bench: venv system-packages
	$(BIN)/python bench/measure.py

# The release: sdist and wheel from pyproject.toml (version from pithtex/brand.py, the same
# one pith.sty declares), then twine's check of what PyPI would show. Built with the venv's
# own setuptools (a dev dependency), so a release needs no network (tests/test_release.py).
dist: venv
	$(RENDER) --check
	rm -rf dist
	$(BIN)/python -m build --no-isolation --outdir dist .
	$(BIN)/python -m twine check --strict dist/*
	$(MAKE) --no-print-directory web-pack

# pith.zip as CTAN expects a package: one top folder pith/ with the README, the .sty, the
# manual's source and PDF, and the licence statement. No hidden files, no executable bits.
CTAN_DIR := $(OUT)/ctan/pith
ctan: venv doc
	$(RENDER) --check
	rm -rf $(OUT)/ctan $(OUT)/pith.zip && mkdir -p $(CTAN_DIR)
	install -m 644 latex/README.md latex/pith.sty latex/pith-doc.tex latex/LICENSE $(OUT)/doc/pith-doc.pdf $(CTAN_DIR)/
	cd $(OUT)/ctan && $(CURDIR)/$(BIN)/python -m zipfile -c ../pith.zip pith
	@echo "wrote $(OUT)/pith.zip:"; $(BIN)/python -m zipfile -l $(OUT)/pith.zip

# The web package (web/, rendered by `make render`): its devDependencies (axe-core, pinned
# in web/package.json) for the browser tests, from the npm registry; and its tarball.
web-deps: web/node_modules/axe-core/axe.min.js

web/node_modules/axe-core/axe.min.js: web/package.json
	@command -v npm >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; }
	cd web && npm install --no-audit --no-fund --no-package-lock --silent
	touch $@

web-pack: venv
	$(RENDER) --check
	mkdir -p dist
	cd web && npm pack --pack-destination ../dist

clean:
	rm -rf $(OUT) dist build *.egg-info .pytest_cache .ruff_cache .mypy_cache

# TeX Live generations for pith.sty (not part of `make test`: a few GB, minutes, root).
# Debian trixie carries TeX Live 2024 and forky 2026; each is a debootstrap chroot under
# TEXLIVE_CACHE, built once from the Debian mirror apt already uses. cm-super and lmodern
# give T1/TS1 text Type 1 fonts there (microtype's expansion refuses bitmap fonts); latexml
# there is 0.8.8 on forky (bench/latexml.py compares it with the system's 0.8.7).
TEXLIVE_CACHE ?= /var/cache/pithtex-texlive
TEXLIVE_SUITES ?= system trixie forky
TEXLIVE_CHROOT_PACKAGES := $(filter texlive-%,$(APT_PACKAGES)) ghostscript cm-super lmodern latexml

texlive-matrix: venv system-packages
	@for suite in $(filter-out system,$(TEXLIVE_SUITES)); do \
	  tools/texlive-chroot.sh $$suite $(TEXLIVE_CACHE)/$$suite $(TEXLIVE_CHROOT_PACKAGES) || exit 1; \
	done
	tools/texlive-matrix.sh $(TEXLIVE_CACHE) $(BIN)/pytest $(TEXLIVE_SUITES)

# The manual: latex/pith-doc.tex (rendered with pith.sty by `make render`) compiled
# beside a fresh pith.sty into $(OUT)/doc/pith-doc.pdf (not in git), where `make ctan`
# takes it from.
doc: venv system-packages
	$(RENDER) --check
	$(BIN)/python -m pithtex.latex.manual $(OUT)/doc
