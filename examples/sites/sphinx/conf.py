# Sphinx recipe for a publication list (docs/web.md): the pithtex.sphinx extension resolves and
# verifies every paper at build time and writes the records, badges and pith-badge.js into
# _static/pith/. pith_keys: a mirror's keys, shown as "page key" (leave it out for the registry).
project = "Publications"
extensions = ["pithtex.sphinx"]
pith_keys = "lab-key-1.json"
html_theme = "alabaster"
exclude_patterns = ["_build"]
