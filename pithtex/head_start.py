"""`verify one.pdf`'s head start: its page is read in a bounded worker from the first moment,
while this process imports what judges the page (issue 32, "fast for one file")."""

from __future__ import annotations

from contextlib import contextmanager

from .value import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

    from .client import Client


@contextmanager
def reading_one_pdf_early(targets: list[str], password: bytes | None) -> Iterator[None]:
    """With one PDF among `targets` (a file named .pdf, before even its header is read, or one
    whose header says PDF), start its bounded reader now; on the way out, end a read nobody took
    (the command failed before it)."""
    import os

    from .workers import bounded

    one = targets[0] if len(targets) == 1 and os.path.isfile(targets[0]) else None
    if one is not None and (one.lower().endswith(".pdf") or _is_pdf(one)):
        bounded.read_early(one, password)
    try:
        yield
    finally:
        bounded.drop_early()


def meanwhile(client: Client, fetching: bool) -> None:
    """While the early reader works, import here, side by side with it, what follows its reading:
    the checks, the identification, the resolver (when a record is to be fetched) and each key's
    verifier. Nothing when no read was started early."""
    from .workers import bounded

    if not bounded.reading_early():
        return
    from . import verify  # noqa: F401
    from .arxiv import identify  # noqa: F401
    from .pdf import facts, shown  # noqa: F401  (the worker's answer is of their types)

    if fetching and not client.offline:
        import http.client  # noqa: F401  # (and ssl) net.get imports it at its first fetch: here, meanwhile

        client.resolver  # noqa: B018  (made now: its imports)
    for key in client.keys:
        key.ready()


def _is_pdf(name: str) -> bool:
    from pathlib import Path

    from .target import kind_of

    return kind_of(Path(name)) == "pdf"
