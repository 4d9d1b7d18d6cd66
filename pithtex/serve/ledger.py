"""The verified answers: what the resolver last confirmed for each target, and when.

In memory (bounded, the least recently used go first) for speed, and on disk (one small
file per target, written atomically through pithtex/files.py) so a restarted process keeps
every answer that verified: read back, it is verified again before it is served. Only
verified answers are kept; an answer the resolver now calls invalid is dropped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import InputError, OutputError, PithError
from ..files import read_input, write_atomic
from ..limits import MAX_RESPONSE_BYTES
from ..number import PithNumber

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..web.badge import BadgeState

    Recheck = Callable[[PithNumber, dict[str, Any]], BadgeState]


class Verified(NamedTuple):
    number: PithNumber
    state: BadgeState
    document: dict[str, Any]
    verified_at: float  # when the resolver last answered with this record (seconds since the epoch)


class Ledger:
    def __init__(self, folder: Path, size: int) -> None:
        self.folder, self.size = folder, size
        self.memory: OrderedDict[str, Verified] = OrderedDict()
        self.lock = threading.Lock()  # the event loop reads while worker threads write

    def recent(self, key: str) -> Verified | None:
        """The answer in memory, if any (no disk: the event loop calls this on every request)."""
        with self.lock:
            held = self.memory.get(key)
            if held is not None:
                self.memory.move_to_end(key)
            return held

    def get(self, key: str, recheck: Recheck) -> Verified | None:
        """The last verified answer for `key`: from memory, else from disk (verified again)."""
        held = self.recent(key)
        if held is not None:
            return held
        held = self._read(key, recheck)
        if held is not None:
            self._remember(key, held)
        return held

    def put(self, key: str, answer: Verified) -> None:
        """Keep a verified answer (memory now; disk too, unless the record there is the same)."""
        with self.lock:
            before = self.memory.get(key)
        self._remember(key, answer)
        if before is None or before.document != answer.document or answer.verified_at - before.verified_at > 60:
            self._write(key, answer)

    def drop(self, key: str) -> None:
        with self.lock:
            self.memory.pop(key, None)
        with contextlib.suppress(OSError):  # a read-only or vanished cache folder: nothing to drop there
            self._path(key).unlink(missing_ok=True)

    def _remember(self, key: str, answer: Verified) -> None:
        with self.lock:
            self.memory[key] = answer
            self.memory.move_to_end(key)
            while len(self.memory) > self.size:
                self.memory.popitem(last=False)

    def _path(self, key: str) -> Path:
        return self.folder / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")

    def _write(self, key: str, answer: Verified) -> None:
        entry = {"key": key, "number": answer.number.long or answer.number.body, "verified_at": answer.verified_at,
                 "document": answer.document}
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            # No fsync: a restarted process reads the renamed file whole; a machine that crashes
            # may lose the newest entries, which the resolver then answers again.
            write_atomic(self._path(key), json.dumps(entry, ensure_ascii=False), follow=False, sync=False)
        except (OSError, OutputError):  # a full or read-only disk: the answer is still served from memory
            pass

    def _read(self, key: str, recheck: Recheck) -> Verified | None:
        try:
            entry = json.loads(read_input(self._path(key), 2 * MAX_RESPONSE_BYTES, "a verified answer", follow=False))
            number = PithNumber.parse(entry["number"])
            document, verified_at = entry["document"], float(entry["verified_at"])
            if entry["key"] != key or not isinstance(document, dict):
                return None
        except (OSError, InputError, PithError, ValueError, RecursionError, KeyError, TypeError):
            return None  # missing, planted or not ours: as if never verified
        state = recheck(number, document)
        return Verified(number, state, document, verified_at) if state.verified else None
