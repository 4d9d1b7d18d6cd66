"""The web: static badges and the self-verifying <pith-badge> element.

    metrics.py     text widths (the shipped 11 px table), so a badge is sized without a font
    shape.py       the badge's drawing as data: one table SVG, PNG, PDF and the element share
    badge.py       SVG, PNG, QR and snippets for one Pith Number; the badge's states
    templating.py  the Jinja2 environment of pithtex/templates/web/
    assets.py      pith-badge.js (and its types, the npm package) rendered from those templates
"""
