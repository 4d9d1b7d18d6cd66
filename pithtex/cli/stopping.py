"""SIGTERM taken the way Ctrl-C is: a `kill` or a CI time-out unwinds the command as Ctrl-C does
(temporary files and scratch folders removed on the way out) and ends it with 143."""

from __future__ import annotations

from ..value import TYPE_CHECKING

if TYPE_CHECKING:
    from types import FrameType

terminated = False  # a SIGTERM came: the interrupt being unwound is a termination (exit 143)


def take_sigterm() -> None:
    """SIGTERM (a `kill`, a CI timeout) is handed to whatever handles Ctrl-C at that moment, so
    where Ctrl-C is deferred (a check's TeX runs, a write's clean-up) SIGTERM waits the same and
    the command unwinds as from Ctrl-C, ending with 143; where Ctrl-C is ignored (a background
    job), SIGTERM still ends the command, by SystemExit."""
    import signal

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        global terminated
        terminated = True
        ctrl_c = signal.getsignal(signal.SIGINT)
        if callable(ctrl_c):
            ctrl_c(signal.SIGINT, frame)  # raises KeyboardInterrupt, or notes it for later
            return
        raise SystemExit(128 + signum)

    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, on_sigterm)
