"""arXiv readiness: compile a paper as arXiv would and prove the pith badge survives.

    upload.py    read a folder/.tex/archive as arXiv does; find the main file; safe unpacking
    scan.py      read the sources: what each file loads and references
    rules.py     static rules (missing files, case, shell escape, .bbl, packages, pith ...)
    texlive.py   kpsewhich look-ups and the sandbox environment
    sandbox.py   compile each route in a fresh folder (pdflatex, latex->dvips->ps2pdf, xelatex)
    logparse.py  errors, undefined references, missing characters, overfull boxes
    pdfcheck.py  the compiled PDF: number in Info and XMP, badge link, left margin
    check.py     the whole check; report.py prints it; bundle.py makes the upload
    (every rule id with its severity, meaning and fix: pithtex/arxiv/catalogue.py, docs/arxiv-rules.md)

The routes and the --engine choices live here, where the command line's parsers can read them
without loading the check.
"""

# arXiv's compile routes: pdflatex; latex -> dvips -> ps2pdf; xelatex.
ROUTES = ("pdflatex", "latex", "xelatex")
# `check --engine` / `bundle --engine`: arXiv's own choice, one route, or all of them.
ENGINES = ("auto", *ROUTES, "all")
