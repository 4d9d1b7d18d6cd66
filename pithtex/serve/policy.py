"""What the server answers for a target: the last verified answer while it is recent, else the
resolver's verdict now; the resolver failing → the last verified answer (with its age) for
`stale_for` seconds, then unchecked. Runs in worker threads (disk and network)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, NamedTuple

from .. import brand
from ..web.badge import BadgeState
from . import checking
from .ledger import Ledger, Verified

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..client import Client
    from ..number import PithNumber
    from .config import Settings
    from .ids import Target


class Answer(NamedTuple):
    number: PithNumber | None  # None: an arXiv id no number could be had for
    state: BadgeState
    document: dict[str, Any] | None  # the verified record (the /v page), else None
    verified_at: float | None  # when the resolver last confirmed it
    stale_age: float | None = None  # seconds: the resolver failed, this is the last verified answer
    checked: bool = False  # the resolver was asked for this answer (a cache miss)

    @classmethod
    def of(cls, held: Verified, stale_age: float | None = None, checked: bool = False) -> Answer:
        return cls(held.number, held.state, held.document, held.verified_at, stale_age, checked)


class Policy:
    def __init__(self, settings: Settings, client: Client, clock: Callable[[], float] = time.time) -> None:
        self.settings, self.client, self.clock = settings, client, clock
        self.ledger = Ledger(settings.cache / "verified", settings.remembered)

    def recent(self, target: Target) -> Answer | None:
        """A verified answer younger than `recheck`, from memory only (the fast path)."""
        held = self.ledger.recent(target.key)
        if held is None or self.clock() - held.verified_at > self.settings.recheck:
            return None
        return Answer.of(held)

    def answer(self, target: Target) -> Answer:
        """Blocking: the disk, then the resolver (under its deadline), then the rules above."""
        key = target.key
        held = self.ledger.get(key, self._recheck)
        now = self.clock()
        if held is not None and now - held.verified_at <= self.settings.recheck:
            return Answer.of(held)
        checked = checking.check(self.client, target)
        if checked.live and checked.state.verified and checked.number and checked.document is not None:
            fresh = Verified(checked.number, checked.state, checked.document, now)
            self.ledger.put(key, fresh)
            return Answer.of(fresh, checked=True)
        if checked.live:  # the resolver answered, and its record does not verify (now): forget ours
            self.ledger.drop(key)
            return Answer(checked.number, checked.state, None, None, checked=True)
        if held is not None and now - held.verified_at <= self.settings.stale_for:
            return Answer.of(held, stale_age=now - held.verified_at, checked=True)
        state = checked.state if checked.state.word == brand.UNCHECKED else BadgeState(
            brand.UNCHECKED, "the resolver did not answer now, and no verified answer of it is recent enough")
        return Answer(checked.number, state, None, None, checked=True)

    def _recheck(self, number: PithNumber, document: dict[str, Any]) -> BadgeState:
        return checking.recheck(self.client, number, document)
