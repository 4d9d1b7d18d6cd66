"""The signals that stop pithtex (Ctrl-C's SIGINT, a `kill`'s or a CI timeout's SIGTERM),
held while a write cleans up after itself, so that a second one cannot cut the clean-up short.

A signal that comes while `held()` is in force is noted and delivered again when the block
ends, to whatever handler was in force before: Ctrl-C still raises KeyboardInterrupt (exit
130) and SIGTERM still ends the command (exit 143), only after the temporary file is gone or
the in-place update is cut back. Only the main thread can change signal handlers; elsewhere
the block runs as it is (signals reach the main thread only anyway).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .value import TYPE_CHECKING

HELD = (signal.SIGINT, signal.SIGTERM)

if TYPE_CHECKING:
    from typing import Any

    Handler = Any  # what signal.signal returns: a callable, SIG_DFL/SIG_IGN, or None


@contextmanager
def held() -> Iterator[None]:
    """SIGINT and SIGTERM noted during the block, delivered again (once each) when it ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    seen: list[int] = []

    def note(signum: int, frame: object) -> None:
        seen.append(signum)

    before: dict[signal.Signals, Handler] = {}
    try:
        for sig in HELD:
            before[sig] = signal.signal(sig, note)
        yield
    finally:
        for sig, handler in before.items():
            # None: a handler installed outside Python; the default is the nearest we can restore.
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)
        for number in dict.fromkeys(seen):
            signal.raise_signal(number)  # its handler runs here, as if it had just come
