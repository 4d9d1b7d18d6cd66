"""The server's one way into the library: a target checked at the configured resolver and
verified with the pinned registry keys (plus the added ones, named as added), the same
calls `pithtex badge --online` and `verify --online` make (pithtex.client, pithtex.resolver).
Every call here blocks (requests, under the resolver's one deadline): the app runs them in
worker threads."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from .. import brand
from ..client import Client, badge_state
from ..errors import PithError
from ..web.badge import BadgeState

if TYPE_CHECKING:
    from ..number import PithNumber
    from .config import Settings
    from .ids import Target

# The resolver answered this request (a fresh record, or 304 for the copy it validated); "cache"
# and "stale" are copies the resolver module used because it could not ask or was not answered.
LIVE_SOURCES = ("network", "revalidated")


class Checked(NamedTuple):
    number: PithNumber | None  # None: an arXiv id the resolver named no number for
    state: BadgeState
    document: dict[str, Any] | None  # the record, when it verified (the /v page shows it)
    live: bool  # the resolver answered now; False: it failed, and the answer is no fresh verdict


def client_for(settings: Settings) -> Client:
    """One Client for the process: its resolver (base URL, deadline, record cache) is shared."""
    return Client(settings.keys, base_url=settings.base_url, timeout=settings.timeout,
                  cache=settings.cache / "records")


def check(client: Client, target: Target) -> Checked:
    """Resolve and verify `target`; never raises for what the resolver or the record does."""
    holds = _Holds(client)
    try:
        if target.arxiv is not None:
            number, fetched = client.resolver.fetch_arxiv(target.arxiv, holds)
        else:
            assert target.number is not None
            number, fetched = target.number, client.resolver.fetch_record(target.number, holds)
    except PithError as exc:
        return Checked(target.number, BadgeState(brand.UNCHECKED, str(exc)), None, False)
    state = holds.state(number, fetched.document)
    if target.arxiv is not None and state.verified:
        state = _of_paper(state, fetched.document, target)
    if not state.verified:
        return Checked(number, state, None, fetched.source in LIVE_SOURCES)
    # Verified: the record's own number, with its year, however the request wrote it (one
    # drawing, one ETag per badge), as `pithtex badge pith:YYYY:BODY --online` draws it.
    return Checked(_long(fetched.document, number), state, fetched.document, fetched.source in LIVE_SOURCES)


def recheck(client: Client, number: PithNumber, document: dict[str, Any]) -> BadgeState:
    """A record kept on disk, verified again as it is read back (a cache keeps only what verifies)."""
    try:
        return badge_state(number, document, client.keys)
    except PithError as exc:
        return BadgeState(brand.UNCHECKED, str(exc))


def _long(document: dict[str, Any], number: PithNumber) -> PithNumber:
    from ..record import canonical_of, number_of

    held = number_of(canonical_of(document))
    return held if held.body == number.body else number


class _Holds:
    """The resolver's cache asks whether a record holds; the answer is kept for the badge, so
    each record is verified once per check."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.states: dict[tuple[str, int], BadgeState] = {}

    def state(self, number: PithNumber, document: dict[str, Any]) -> BadgeState:
        key = (number.body, id(document))
        if key not in self.states:
            self.states[key] = recheck(self.client, number, document)
        return self.states[key]

    def __call__(self, number: PithNumber, document: dict[str, Any]) -> bool:
        return self.state(number, document).verified


def _of_paper(state: BadgeState, document: dict[str, Any], target: Target) -> BadgeState:
    """An arXiv id's badge says verified only when the record is of that paper (and version)."""
    from ..arxiv.ids import source_problem
    from ..record import canonical_of

    assert target.arxiv is not None
    try:
        status, detail = source_problem(canonical_of(document), target.arxiv)
    except PithError as exc:
        return BadgeState(brand.INVALID, str(exc))
    return state if status == "pass" else BadgeState(brand.INVALID, detail)
