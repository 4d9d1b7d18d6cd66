"""Work on untrusted files done in worker processes with hard bounds, so that whatever a file
makes a reader do (PDFium parsing a bomb, aborting, looping) costs that file's verdict, never
the command or the other files.

bounded.py: a forked worker making one call a request, each under an address-space limit, a
CPU limit, a deadline and a cap on what it hands back (pithtex/limits.py), reused for up to
100 requests; a worker that dies is its file's verdict. pool.py: many files' verdicts
(`verify FOLDER/`) in such workers, in the files' order, Ctrl-C ending every worker.
"""
