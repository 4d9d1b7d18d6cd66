"""Temporary files that killed pithtex runs left behind: named, or removed with --remove-stale,
by every command that writes files (a kill -9 during a write leaves one as large as the output)."""

from __future__ import annotations

import sys

from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from pathlib import Path


def add_remove_stale(parser: argparse.ArgumentParser) -> None:
    """--remove-stale, on every command that writes files (see `report_stale`)."""
    parser.add_argument("--remove-stale", action="store_true",
                        help="remove the temporary files that killed pithtex runs left in the output folders")


def report_stale(folders: Sequence[Path], remove: bool) -> None:
    """Name (or, with --remove-stale, remove) temporary files of killed runs in the folders
    a command writes into: a kill -9 during a write leaves one as large as the output."""
    from ..files import stale_temporaries
    from ..safetext import line

    for folder in dict.fromkeys(folders):
        for stale in stale_temporaries(folder):
            if not remove:
                print(line(f"pithtex: warning: {stale}: a temporary file left by a killed pithtex run "
                           "(--remove-stale removes it)"), file=sys.stderr)
                continue
            try:
                stale.unlink()
            except FileNotFoundError:
                continue  # another run removed it first
            except OSError as exc:
                print(line(f"pithtex: warning: {stale}: cannot remove it ({exc.strerror})"), file=sys.stderr)
                continue
            print(line(f"pithtex: removed {stale}, a temporary file left by a killed pithtex run"), file=sys.stderr)
