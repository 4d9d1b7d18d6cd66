"""A resolver's redirect stays on its scheme and kind of host: never to a loopback, private or
link-local address (169.254.169.254 is a cloud's metadata service) unless the base URL is one
itself, and a failure names the URL that failed, not the base URL it came from.

Nothing here leaves the machine: the servers listen on 127.0.0.1/127.0.0.2, names are
resolved by a fake getaddrinfo, and every connect() is recorded, so a refused redirect is
shown to have opened no connection at all."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from pithtex import net
from pithtex.number import PithNumber
from pithtex.resolver import Resolver, ResolverError

from .conftest import BODY
from .resolverkit import FakeResolver, Reply, closed_port_url, serving
from .test_resolver import seed_doc

PATH = f"/pith/{BODY}.json"
METADATA = "http://169.254.169.254/latest/meta-data/"


@pytest.fixture
def connects(monkeypatch) -> list[str]:
    """Every address this process connects a socket to, in order; only loopback ones are
    really connected (were the refusal broken, nothing would still leave the machine)."""
    seen: list[str] = []
    real = socket.socket.connect

    def connect(self: socket.socket, address) -> None:
        seen.append(str(address[0]))
        if not str(address[0]).startswith("127."):
            raise ConnectionRefusedError(111, "Connection refused (the test lets nothing leave the machine)")
        real(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    return seen


@pytest.fixture
def second() -> Iterator[FakeResolver]:
    """Another resolver, on 127.0.0.2: loopback too, but another host."""
    with serving("127.0.0.2") as server:
        yield server


def fetch(base: str, tmp_path) -> object:
    return Resolver(base, cache=tmp_path / "cache", timeout=30, retries=0).fetch_record(PithNumber(BODY))


def as_if_public(monkeypatch, *public: str) -> None:
    """Classify these loopback addresses as public: a stand-in for a resolver on the internet."""
    real = net.address_class
    monkeypatch.setattr(net, "address_class", lambda ip: "public" if ip in public else real(ip))


@pytest.mark.parametrize(("ip", "kind"), [
    ("127.0.0.1", "loopback"), ("127.8.9.10", "loopback"), ("::1", "loopback"),
    ("169.254.169.254", "link-local"), ("fe80::1", "link-local"), ("::ffff:169.254.169.254", "link-local"),
    ("10.0.0.1", "private"), ("172.16.5.4", "private"), ("192.168.1.1", "private"), ("fd00::1", "private"),
    ("100.64.0.1", "private"), ("0.0.0.0", "reserved"), ("224.0.0.1", "reserved"),
    ("93.184.216.34", "public"), ("2606:4700::1111", "public"),
])
def test_each_address_has_its_kind(ip: str, kind: str):
    assert net.address_class(ip) == kind


@pytest.mark.parametrize(("base", "target", "refusal"), [
    ("https://93.184.216.34/pith/X.json", METADATA, "from https to http"),
    ("https://93.184.216.34/pith/X.json", "https://169.254.169.254/", "a link-local address (169.254.169.254)"),
    ("https://93.184.216.34/pith/X.json", "https://10.1.2.3/", "a private address (10.1.2.3)"),
    ("https://93.184.216.34/pith/X.json", "https://127.0.0.1:8080/", "a loopback address (127.0.0.1)"),
    ("https://93.184.216.34/pith/X.json", "https://[::1]/", "a loopback address (::1)"),
    ("https://93.184.216.34/pith/X.json", "https://0.0.0.0/", "a reserved address (0.0.0.0)"),
    ("http://127.0.0.1:5000/pith/X.json", METADATA, "a link-local address (169.254.169.254)"),
    ("http://10.0.0.5/pith/X.json", METADATA, "a link-local address (169.254.169.254)"),
    ("http://10.0.0.5/pith/X.json", "http://192.168.0.9/", None),  # private to private: the base is one
    ("https://93.184.216.34/pith/X.json", "https://203.0.113.9.nip.invalid/", None),  # no such name: the connect says
    ("https://93.184.216.34/pith/X.json", "https://8.8.8.8/pith/X.json", None),
    ("http://93.184.216.34/pith/X.json", "https://8.8.8.8/pith/X.json", None),  # http to https is an upgrade
    ("http://127.0.0.1:5000/pith/X.json", "http://127.0.0.2:5000/", None),
    ("http://10.0.0.5/pith/X.json", "http://10.0.0.6/", None),
    ("http://10.0.0.5/pith/X.json", "http://127.0.0.1/", None),  # a private resolver may use loopback
    ("http://169.254.1.1/pith/X.json", "http://169.254.169.254/", None),
])
def test_the_redirect_policy(base: str, target: str, refusal: str | None, monkeypatch):
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: (_ for _ in ()).throw(socket.gaierror("no DNS here")))
    assert net.redirect_refusal(base, target) == refusal


def test_a_name_is_judged_by_the_addresses_it_resolves_to(monkeypatch):
    table = {"pith.example": ["93.184.216.34"], "metadata.example": ["8.8.8.8", "169.254.169.254"]}
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, *a, **k: [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, 0)) for ip in table[host]])
    assert net.redirect_refusal("https://pith.example/x", "https://metadata.example/") == \
        "a link-local address (169.254.169.254)"
    assert net.redirect_refusal("https://pith.example/x", "https://pith.example/y") is None


def test_a_redirect_to_the_metadata_address_is_refused_without_connecting(fake, tmp_path, connects):
    fake.record(BODY, Reply.redirect(METADATA))
    with pytest.raises(ResolverError) as caught:
        fetch(fake.base, tmp_path)
    assert str(caught.value) == (f"{fake.base}{PATH} redirected to {METADATA}, a link-local address "
                                 "(169.254.169.254); a redirect stays on the resolver's scheme and kind of "
                                 "address; cannot decide")
    assert connects == ["127.0.0.1"]  # the resolver itself, and nothing else


def test_a_public_resolver_may_not_redirect_to_loopback(fake, second, tmp_path, connects, monkeypatch):
    # The resolver on 127.0.0.1 plays one on the internet; 127.0.0.2 stays what it is.
    as_if_public(monkeypatch, "127.0.0.1")
    fake.record(BODY, Reply.redirect(second.base + PATH))
    second.record(BODY, Reply.json(seed_doc()))
    with pytest.raises(ResolverError, match=r"a loopback address \(127\.0\.0\.2\)"):
        fetch(fake.base, tmp_path)
    assert connects == ["127.0.0.1"] and second.requests == []


def test_a_name_that_resolves_elsewhere_when_connecting_is_caught_there(fake, second, tmp_path, connects, monkeypatch):
    # DNS rebinding: checked, the name is public; connected, it is loopback. The connection is
    # closed before a request is sent.
    as_if_public(monkeypatch, "127.0.0.1")
    answers = iter([["8.8.8.8"]])
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *a, **k):
        if host != "rebind.example":
            return real(host, port, *a, **k)
        ips = next(answers, ["127.0.0.2"])
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port or 0)) for ip in ips]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    fake.record(BODY, Reply.redirect(f"http://rebind.example:{second.port}{PATH}"))
    second.record(BODY, Reply.json(seed_doc()))
    with pytest.raises(ResolverError, match=r"a redirect's connection reached a loopback address \(127\.0\.0\.2\)"):
        fetch(fake.base, tmp_path)
    assert second.requests == []


def test_a_loopback_resolver_may_redirect_to_another_loopback_host(fake, second, tmp_path):
    fake.record(BODY, Reply.redirect(second.base + PATH))
    second.record(BODY, Reply.json(seed_doc()))
    got = fetch(fake.base, tmp_path)
    assert got.url == second.base + PATH and got.redirected_from == fake.base + PATH


def test_a_failed_redirect_target_is_named_not_the_base(fake, tmp_path):
    dead = closed_port_url() + PATH
    fake.record(BODY, Reply.redirect(dead))
    with pytest.raises(ResolverError) as caught:
        fetch(fake.base, tmp_path)
    assert str(caught.value) == f"cannot reach {dead} (connection refused) after 1 tries; cannot decide"
