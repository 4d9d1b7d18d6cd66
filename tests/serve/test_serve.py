"""`pithtex serve` as a README's image host would meet it: a real uvicorn process on 127.0.0.1
against the suite's loopback resolver; each state, ETag/304, the shields.io schema, the
resolver failing, hostile ids and the bounds."""

from __future__ import annotations

import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from xml.etree import ElementTree as ET

from pithtex import brand
from pithtex.client import badge_state
from pithtex.number import PithNumber
from pithtex.web import badge

from ..conftest import BODY, seed_doc
from ..recordkit import TestKey, canonical, full_record
from ..resolverkit import FakeResolver, Reply
from .servekit import serving

SVG_NS = "{http://www.w3.org/2000/svg}"
NUMBER = PithNumber(BODY, 2021)


def title(svg: bytes) -> str:
    return ET.fromstring(svg).find(SVG_NS + "title").text or ""


def test_a_verified_badge_is_the_svg_pithtex_badge_draws(fake: FakeResolver, tmp_path: Path):
    fake.record(BODY, Reply.json(seed_doc()))
    with serving(fake.base, tmp_path / "cache") as served:
        answer = served.get(f"/badge/{BODY}.svg")
        assert answer.status_code == 200 and answer.headers["X-Pith-State"] == "verified"
        assert answer.headers["Content-Type"].startswith("image/svg+xml")
        assert answer.content == badge.svg(NUMBER, badge_state(NUMBER, seed_doc()), "light").encode()
        dark = served.get(f"/badge/pith:2021:{BODY}.svg?theme=dark")
        assert dark.content == badge.svg(NUMBER, badge_state(NUMBER, seed_doc()), "dark").encode()
        png = served.get(f"/badge/{BODY}.png")
        assert png.headers["Content-Type"] == "image/png" and png.content.startswith(b"\x89PNG\r\n\x1a\n")
    # the record is fetched once and kept: the later requests were answered from memory
    assert len(fake.hits(f"/pith/{BODY}.json")) == 1


def test_uvicorn_serves_the_app_configured_by_the_environment(fake: FakeResolver, tmp_path: Path):
    fake.record(BODY, Reply.json(seed_doc()))
    with serving(fake.base, tmp_path / "cache", uvicorn=True) as served:
        answer = served.get(f"/badge/{BODY}.svg")
        assert answer.headers["X-Pith-State"] == "verified"
        assert answer.content == badge.svg(NUMBER, badge_state(NUMBER, seed_doc())).encode()
    assert fake.hits(f"/pith/{BODY}.json")  # the resolver of PITH_BASE_URL, and only it


def test_etag_gives_304_and_proxies_revalidate(fake: FakeResolver, tmp_path: Path):
    fake.record(BODY, Reply.json(seed_doc()))
    with serving(fake.base, tmp_path / "cache") as served:
        first = served.get(f"/badge/{BODY}.svg")
        etag = first.headers["ETag"]
        assert etag.startswith('"') and not etag.startswith("W/")
        assert "no-cache" in first.headers["Cache-Control"]
        again = served.get(f"/badge/{BODY}.svg", headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.content == b"" and again.headers["ETag"] == etag
        assert again.headers["X-Pith-State"] == "verified"
        other = served.get(f"/badge/{BODY}.svg", headers={"If-None-Match": '"something-else"'})
        assert other.status_code == 200 and other.content == first.content
        assert served.get(f"/badge/{BODY}.svg?theme=dark").headers["ETag"] != etag


def test_invalid_and_unchecked_states(fake: FakeResolver, tmp_path: Path):
    tampered = seed_doc()
    tampered["canonical_record"]["metadata"]["primary_cat"] = "cs.LG"
    fake.record(BODY, Reply.json(tampered))
    other = "A" * 26  # the resolver has no record of it: 404
    with serving(fake.base, tmp_path / "cache") as served:
        bad = served.get(f"/badge/{BODY}.svg")
        assert bad.status_code == 200 and bad.headers["X-Pith-State"] == "invalid"
        assert "invalid" in title(bad.content) and "verified:" not in title(bad.content)
        unknown = served.get(f"/badge/{other}.svg")
        assert unknown.headers["X-Pith-State"] == "unchecked" and "unchecked" in title(unknown.content)
        # an arXiv id the resolver names no number for: no badge to draw, and no claim
        nameless = served.get("/badge/arxiv/2401.00001.svg")
        assert nameless.status_code == 404 and nameless.headers["X-Pith-State"] == "unchecked"
        assert served.get("/badge/arxiv/2401.00001.json").json()["message"] == "unchecked"
        # an invalid record is never kept: asking again asks the resolver again
        served.get(f"/badge/{BODY}.svg")
    assert len(fake.hits(f"/pith/{BODY}.json")) == 2


def test_an_unpinned_key_verifies_only_when_added_and_is_named_as_added(fake: FakeResolver, tmp_path: Path):
    key = TestKey("lab-key")
    document = full_record(canonical(), key)
    body = PithNumber.parse(document["pith_number"]).body
    fake.record(body, Reply.json(document))
    with serving(fake.base, tmp_path / "a") as served:
        assert served.get(f"/badge/{body}.svg").headers["X-Pith-State"] == "unchecked"
    with serving(fake.base, tmp_path / "b", "--keys", str(key.key_file(tmp_path))) as served:
        answer = served.get(f"/badge/{body}.svg")
        assert answer.headers["X-Pith-State"] == "verified"
        assert "not the Pith registry" in title(answer.content)
        assert "not the Pith registry" in served.get(f"/v/{body}").text


def test_shields_endpoint_schema(fake: FakeResolver, tmp_path: Path):
    fake.record(BODY, Reply.json(seed_doc()))
    with serving(fake.base, tmp_path / "cache") as served:
        answer = served.get(f"/badge/{BODY}.json")
        document = answer.json()
        assert answer.headers["Content-Type"] == "application/json"
        assert document["schemaVersion"] == 1 and document["label"] == "pith"
        assert document["message"] == f"{BODY[:8]} verified"
        assert document["color"] == brand.THEMES["light"].verified_bg.hex
        assert set(document) <= {"schemaVersion", "label", "message", "color", "cacheSeconds"}
        assert served.get("/badge/" + "B" * 26 + ".json").json()["message"].endswith("unchecked")


def test_an_arxiv_id_badge_is_of_that_paper(fake: FakeResolver, tmp_path: Path):
    fake.route("/api/pith-number/resolve", Reply.json(seed_doc()))
    with serving(fake.base, tmp_path / "cache") as served:
        paper = seed_doc()["canonical_record"]["source"]["id"]
        right = served.get(f"/badge/arxiv/{paper}.svg")
        assert right.headers["X-Pith-State"] == "verified"
        assert right.content == badge.svg(NUMBER, badge_state(NUMBER, seed_doc())).encode()
        wrong = served.get("/badge/arxiv/2401.00001.svg")  # the resolver names the seed's number for it
        assert wrong.headers["X-Pith-State"] == "invalid" and "2401.00001" in title(wrong.content)


def test_the_verification_page_says_what_was_verified_and_escapes(fake: FakeResolver, tmp_path: Path):
    fake.record(BODY, Reply.json(seed_doc()))
    with serving(fake.base, tmp_path / "cache") as served:
        page = served.get(f"/v/{BODY}")
        assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
        assert served.get(f"/badge/{BODY}.svg").headers["X-Pith-State"] == "verified"  # from memory: a hit
        assert "pith-v1-2026-05, a pinned Pith registry key" in page.text
        assert f'href="{fake.base}/pith/{BODY}"' in page.text
        assert f'src="/badge/{BODY}.svg"' in page.text
        assert page.headers["X-Pith-State"] == "verified"
        assert "default-src 'none'" in page.headers["Content-Security-Policy"]
        assert served.get("/healthz").text == "ok\n"
        metrics = served.get("/metrics").text
        assert 'pith_verdicts_total{state="verified"} 1' in metrics
        assert 'pith_cache_total{result="hit"}' in metrics and "pith_resolver_seconds_count 1" in metrics


HOSTILE = ["/badge/..%2F..%2Fetc%2Fpasswd.svg", "/badge/%2e%2e/x.svg", "/badge/evil.com%2Fpith.svg",
           "/badge/http:%2F%2Fevil.com.svg", "/badge/<script>alert(1)<%2Fscript>.svg", "/badge/" + "A" * 300 + ".svg",
           "/badge/arxiv/../../etc/passwd.svg", "/badge/YBK5PTAK.svg", "/badge/" + BODY + ".exe",
           "/v/<img src=x onerror=alert(1)>", "/badge/" + BODY + ".svg?theme=<b>",
           "/badge/arxiv/hep-th/9901001/../x.svg"]


def raw_get(port: int, target: str) -> tuple[int, bytes]:
    """A request line sent as written (a client library would normalise `..` and escapes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def test_hostile_ids_are_refused_before_any_io_and_never_reflected(fake: FakeResolver, tmp_path: Path):
    with serving(fake.base, tmp_path / "cache") as served:
        for target in HOSTILE:
            status, body = raw_get(served.port, target)
            assert status in (400, 404, 414), (target, status)
            assert b"<" not in body and b"evil" not in body and b"passwd" not in body, (target, body)
        status, _ = raw_get(served.port, "/badge/" + BODY + ".svg")
        assert status == 200
        with socket.create_connection(("127.0.0.1", served.port), timeout=60) as sock:
            sock.sendall(b"POST /badge/x.svg HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
                         b"Connection: close\r\n\r\nhello")
            assert b" 405 " in sock.recv(4096).split(b"\r\n")[0] + b" "
    # only the one record asked for reached the resolver; nothing hostile did
    assert {r.path for r in fake.requests} == {f"/pith/{BODY}.json", f"/pith/{BODY}"}  # a 404, then its page


def test_a_request_head_over_16_kib_is_refused(fake: FakeResolver, tmp_path: Path):
    with serving(fake.base, tmp_path / "cache") as served:
        assert served.get("/healthz", headers={"X-Pad": "a" * 8000}).status_code == 200
        with socket.create_connection(("127.0.0.1", served.port), timeout=60) as sock:
            try:
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\nX-Pad: " + b"a" * 100_000 + b"\r\n\r\n")
                answer = sock.recv(4096)
            except ConnectionResetError:  # closed before all was sent: refused all the same
                answer = b"HTTP/1.1 400 "
        assert answer.startswith(b"HTTP/1.1 400 ")
        assert served.get("/healthz").status_code == 200  # the server goes on


def test_the_resolver_down_serves_the_last_verified_answer_with_its_age_then_unchecked(tmp_path: Path):
    cache = tmp_path / "cache"
    fake = FakeResolver()
    fake.record(BODY, Reply.json(seed_doc()))
    with serving(fake.base, cache, env={"PITH_SERVE_RECHECK": "0"}) as served:
        fresh = served.get(f"/badge/{BODY}.svg")
        assert fresh.headers["X-Pith-State"] == "verified" and "X-Pith-Stale-Age" not in fresh.headers
        fake.record(BODY, Reply(503))  # the resolver fails now; recheck 0: every request asks it
        stale = served.get(f"/badge/{BODY}.svg")
        assert stale.headers["X-Pith-State"] == "verified" and int(stale.headers["X-Pith-Stale-Age"]) >= 0
        assert stale.content == fresh.content
    fake.close()
    # a restart with the resolver gone: the verified answer kept on disk is still served, with its age
    with serving(fake.base, cache, env={"PITH_SERVE_RECHECK": "0", "PITH_SERVE_TIMEOUT": "2"}) as served:
        again = served.get(f"/badge/{BODY}.svg")
        assert again.headers["X-Pith-State"] == "verified" and "X-Pith-Stale-Age" in again.headers
    # past the stated time (0 s here): unchecked
    with serving(fake.base, cache, env={"PITH_SERVE_RECHECK": "0", "PITH_SERVE_STALE": "0"}) as served:
        late = served.get(f"/badge/{BODY}.svg")
        assert late.headers["X-Pith-State"] == "unchecked" and "X-Pith-Stale-Age" not in late.headers


def test_checks_are_bounded_and_one_per_target(fake: FakeResolver, tmp_path: Path):
    """A resolver that hangs: at most PITH_SERVE_CHECKS calls reach it, PITH_SERVE_QUEUE wait,
    the rest are answered 503 at once; many requests for one id make one call."""
    bodies = [PithNumber.from_sha256(bytes([i]) * 32).body for i in range(12)]
    for body in bodies:
        fake.record(body, Reply(404, delay=600))  # held until the resolver closes
    env = {"PITH_SERVE_CHECKS": "2", "PITH_SERVE_QUEUE": "2", "PITH_SERVE_TIMEOUT": "60"}
    with serving(fake.base, tmp_path / "cache", env=env) as served, ThreadPoolExecutor(16) as pool:
        same = [pool.submit(served.get, f"/badge/{bodies[0]}.svg") for _ in range(3)]
        held = [pool.submit(served.get, f"/badge/{b}.svg") for b in bodies[1:4]]
        for _ in range(2400):  # until all four places are taken, as the server itself counts them
            if "pith_checks_pending 4\n" in served.get("/metrics").text:
                break
            threading.Event().wait(0.05)
        assert "pith_checks_pending 4\n" in served.get("/metrics").text
        refused = [served.get(f"/badge/{b}.svg") for b in bodies[4:]]
        assert [r.status_code for r in refused] == [503] * len(refused)
        assert all(r.headers["Retry-After"] for r in refused)
        assert fake.peak <= 2
        fake.close()  # the held answers end now
        answers = [f.result() for f in same + held]
    assert {a.headers["X-Pith-State"] for a in answers} == {"unchecked"}
    # three requests for one id, one check: no record was asked for twice (the checks still
    # waiting when the resolver closed found it gone and asked nothing)
    paths = [r.path for r in fake.requests]
    assert len(paths) == len(set(paths)) and set(paths) <= {f"/pith/{b}.json" for b in bodies[:4]}


def test_per_client_rate_is_bounded(fake: FakeResolver, tmp_path: Path):
    fake.record(BODY, Reply.json(seed_doc()))
    with serving(fake.base, tmp_path / "cache", env={"PITH_SERVE_RATE": "0.001", "PITH_SERVE_BURST": "3"}) as served:
        codes = [served.get(f"/badge/{BODY}.svg").status_code for _ in range(5)]
        assert codes == [200, 200, 200, 429, 429]


def test_without_the_extra_one_line_says_how_to_install_it(tmp_path: Path):
    import subprocess
    import sys

    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text("import sys\nsys.modules['starlette'] = None\n")
    code = "import sys; from pithtex.cli import main; sys.exit(main(['serve']))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 2 and done.stderr == "pithtex: pithtex serve needs Starlette and uvicorn: " \
        "pip install 'pithtex[serve]'\n"
