"""Work on untrusted files done in worker processes with hard bounds, so that whatever a file
makes a reader do (PDFium parsing a bomb, aborting, looping) costs that file's verdict, never
the command or the other files.

bounded.py: one call in a forked child under an address-space limit, a CPU limit, a deadline
and a cap on what it hands back (pithtex/limits.py); a child that dies is the file's verdict.
pool.py: many files' verdicts (`verify FOLDER/`), each file in its own bounded child, in the
files' order, Ctrl-C ending every child.
"""
