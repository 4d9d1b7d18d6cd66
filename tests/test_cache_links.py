"""The cache never writes through a symbolic link, at any of its own levels: a link planted
as $XDG_CACHE_HOME/pithtex, records/ or records/HOST makes the fetch go uncached (the fetch
line says why) and leaves the folder it points at untouched. The folders above the cache
($XDG_CACHE_HOME itself) are the user's: a link there is followed, as any other program does."""

from __future__ import annotations

import pytest

from pithtex.number import PithNumber
from pithtex.resolver import Resolver

from .conftest import BODY, pithtex_cli, seed_doc
from .resolverkit import Reply

N = PithNumber(BODY)


def _link(tmp_path, level: str, base: str):
    """A cache at tmp/xdg/pithtex whose `level` folder is a link to tmp/elsewhere; the link."""
    cache = tmp_path / "xdg" / "pithtex"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if level == "pithtex":
        cache.parent.mkdir()
        link = cache
    else:
        probe = Resolver(base, cache=cache)._cache_path(N)  # where the entry goes: records/HOST/BODY.json
        link = probe.parent if level == "host" else probe.parent.parent
        link.parent.mkdir(parents=True)
    link.symlink_to(elsewhere, target_is_directory=True)
    return cache, elsewhere, link


@pytest.mark.parametrize("level", ["pithtex", "records", "host"])
def test_a_linked_cache_folder_is_not_written_through(fake, tmp_path, level):
    fake.record(BODY, Reply.json(seed_doc()))
    cache, elsewhere, link = _link(tmp_path, level, fake.base)
    got = Resolver(fake.base, cache=cache, backoff=0.01).fetch_record(N)
    assert got.source == "network"
    assert f"not cached: {link} is a symbolic link" in got.detail
    assert list(elsewhere.rglob("*")) == []
    assert link.is_symlink()


def test_a_linked_xdg_cache_home_is_the_users_choice(fake, tmp_path):
    fake.record(BODY, Reply.json(seed_doc()))
    (tmp_path / "real").mkdir()
    (tmp_path / "xdg").symlink_to(tmp_path / "real", target_is_directory=True)
    got = Resolver(fake.base, cache=tmp_path / "xdg" / "pithtex", backoff=0.01).fetch_record(N)
    assert "not cached" not in got.detail
    assert len(list((tmp_path / "real" / "pithtex").rglob(f"{BODY}.json"))) == 1


def test_the_command_line_says_once_why_nothing_was_cached(fake, tmp_path):
    fake.record(BODY, Reply.json(seed_doc()))
    _cache, elsewhere, link = _link(tmp_path, "pithtex", fake.base)
    p = pithtex_cli("verify", BODY, "--online", "--base-url", fake.base, env={"XDG_CACHE_HOME": str(tmp_path / "xdg")})
    assert p.returncode == 0, p.stderr
    assert p.stdout.count(f"not cached: {link} is a symbolic link, and pithtex writes its cache through none") == 1
    assert list(elsewhere.rglob("*")) == []
