"""Reading a target: what a user's argument names (a number, an arXiv id, a record, a PDF or a
folder), and the PDFs a list of targets holds.

A new kind of target is added here, in `kind_of`; `Client.verify` dispatches on its answer.
"""

from __future__ import annotations

from pathlib import Path

from .value import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator


def kind_of(target: str | Path) -> str:
    """What a user's argument names: "pdf", "folder", "record" (a file), "arxiv" or "number".
    An existing file is a PDF when it starts like one or is named .pdf; a saved web page named
    .pdf is refused here, in one sentence."""
    text, path = str(target), Path(target)
    if text.strip().lower().startswith("arxiv:") or (not path.exists() and _looks_like_arxiv(text)):
        return "arxiv"
    if path.is_dir():
        return "folder"
    if path.exists():
        return "pdf" if is_pdf(path) else "record"
    if path.suffix.lower() in (".pdf", ".json") or "/" in text or "." in text:
        return "pdf" if path.suffix.lower() == ".pdf" else "record"
    return "number"


def _looks_like_arxiv(text: str) -> bool:
    from .arxiv.ids import looks_like  # (imported only for a name that is no file: a file is read first)

    return looks_like(text)


def is_pdf(path: Path) -> bool:
    """Whether a file starts like a PDF or is named .pdf; InputError for a web page saved as .pdf.
    Its first KiB is read once for the file asked last: the command line, the client and the
    reader of the PDF each ask in turn."""
    import os

    from .errors import InputError

    try:
        status = os.stat(path)
    except OSError:
        return _header_says_pdf(path)
    seen = (str(path), status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)
    if not _LAST_HEADER or _LAST_HEADER[0] != seen:
        try:
            answer: bool | InputError = _header_says_pdf(path)
        except InputError as exc:
            answer = exc
        _LAST_HEADER[:] = [seen, answer]  # one file's: a folder of 600 holds no more than one of 60
    last = _LAST_HEADER[1]
    if isinstance(last, InputError):
        raise InputError(str(last))
    return bool(last)


_LAST_HEADER: list[object] = []


def _header_says_pdf(path: Path) -> bool:
    from .errors import InputError
    from .files import open_input
    from .pdf.reader import html_problem

    try:
        with open_input(path) as handle:  # a FIFO is not waited on: load_document refuses it
            head = handle.read(1024)
    except (OSError, InputError):
        return path.suffix.lower() == ".pdf"
    problem = html_problem(head)
    if problem is not None and path.suffix.lower() == ".pdf":
        raise InputError(f"{path}: {problem}")
    return head.lstrip().startswith(b"%PDF-") or path.suffix.lower() == ".pdf"


def pdf_files(targets: Iterable[str | Path]) -> Iterator[Path]:
    """Each target that is a file, and the PDFs (by name, .pdf in any case) in each folder's
    tree, in name order; a folder is listed one level at a time, so memory stays bounded. A
    folder that cannot be listed raises its OSError (`pdf_entries` names it instead)."""
    for path, unlisted in pdf_entries(targets):
        if unlisted is not None:
            raise unlisted
        yield path


def pdf_entries(targets: Iterable[str | Path]) -> Iterator[tuple[Path, OSError | None]]:
    """`pdf_files`' walk, each file as (path, None) and each folder that cannot be listed (no
    permission, a path too long) as (folder, its OSError), in its place: the walk goes on."""
    import os

    for target in targets:
        path = Path(target)
        if not path.is_dir():
            yield path, None
            continue
        stack = [path]
        while stack:
            folder = stack.pop()
            try:
                with os.scandir(folder) as entries:
                    names = sorted((entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries)
            except OSError as exc:
                yield folder, exc
                continue
            stack.extend(folder / name for name, is_dir in reversed(names) if is_dir)
            yield from ((folder / name, None) for name, is_dir in names if not is_dir and name.lower().endswith(".pdf"))
