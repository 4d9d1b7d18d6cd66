"""LaTeX: pith.sty and its manual, rendered from one source of truth.

    options.py  the keys, choices, messages and classes pith.sty knows (data, no TeX)
    render.py   the Jinja2 environment: latex/pith.sty (templates/pith.sty.j2 and its parts, sty/), the manual, web/
    sty.py      `pithtex sty`: write the current pith.sty beside a paper
    manual.py   build the manual (latex/pith-doc.tex -> PDF) with the examples' page 1
"""
