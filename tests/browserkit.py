"""Real headless browsers (Debian's chromium and firefox-esr) against pages on 127.0.0.1.

No driver: each browser runs once per page with its own `--screenshot`. The page's
harness (tests/web/harness.js) POSTs what it saw to /report/<token>; until then an image
on the page (/hold/<token>) stays unanswered, which holds the load event, so the
screenshot is taken after the report. Both browsers get a fresh profile and a proxy on a
closed loopback port: nothing but 127.0.0.1 can be reached. A server may speak https, with a
certificate from a test CA made per run (`TestCA`), which the browser's fresh NSS store trusts.
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import http.server
import ipaddress
import json
import secrets
import shutil
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HARNESS = Path(__file__).resolve().parent / "web" / "harness.js"
BROWSERS = {"chromium": "/usr/bin/chromium", "firefox": "/usr/bin/firefox-esr"}
GIF = base64.b64decode("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==")  # 1x1, transparent


@dataclass
class Route:
    body: bytes
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    length: bool = True  # False: no Content-Length, the body ends when the connection closes


class PageServer:
    """Serves routes; /report/<token> (POST) stores a report, /hold/<token> waits for it."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: dict[str, int] = {}  # GET requests per path, answered or not
        self.reports: dict[str, Any] = {}
        self._events: dict[str, threading.Event] = {}
        self._closing = threading.Event()
        self.server = (_TLSServer(tls, self._handler()) if tls else
                       http.server.ThreadingHTTPServer(("127.0.0.1", 0), self._handler()))
        self.server.daemon_threads = True
        self.base = f"{'https' if tls else 'http'}://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        self.route("/harness.js", HARNESS.read_bytes(), "text/javascript")

    def route(self, path: str, body: bytes | str, content_type: str = "text/html; charset=utf-8",
              status: int = 200, headers: dict[str, str] | None = None, delay: float = 0.0, cors: bool = True,
              length: bool = True) -> str:
        data = body.encode("utf-8") if isinstance(body, str) else body
        all_headers = {"Content-Type": content_type, **({"Access-Control-Allow-Origin": "*"} if cors else {}),
                       **(headers or {})}
        self.routes[path] = Route(data, status, all_headers, delay, length)
        return path

    def folder(self, prefix: str, folder: Path, headers: dict[str, str] | None = None) -> None:
        """Serve a built site: each file of `folder` under `prefix`, a folder's index.html at its `/`."""
        import mimetypes

        for file in sorted(p for p in folder.rglob("*") if p.is_file()):
            path = prefix.rstrip("/") + "/" + file.relative_to(folder).as_posix()
            kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
            kind += "; charset=utf-8" if kind.startswith("text/") or kind.endswith(("javascript", "json")) else ""
            self.route(path, file.read_bytes(), kind, headers=headers)
            if file.name == "index.html":
                self.route(path[: -len("index.html")], file.read_bytes(), kind, headers=headers)

    def json(self, path: str, document: Any, **kw: Any) -> str:
        return self.route(path, json.dumps(document), "application/json", **kw)

    def event(self, token: str) -> threading.Event:
        return self._events.setdefault(token, threading.Event())

    def close(self) -> None:
        self._closing.set()
        for event in self._events.values():
            event.set()
        self.server.shutdown()
        self.server.server_close()

    def _handler(self) -> type[http.server.BaseHTTPRequestHandler]:
        kit = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, body: bytes, headers: dict[str, str], length: bool = True) -> None:
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                if length:
                    self.send_header("Content-Length", str(len(body)))
                else:
                    self.send_header("Connection", "close")
                    self.close_connection = True
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

            def do_GET(self) -> None:
                path = self.path.split("?")[0]
                if path.startswith("/hold/"):
                    kit.event(path[6:]).wait(100)
                    return self._send(200, GIF, {"Content-Type": "image/gif"})
                kit.hits[path] = kit.hits.get(path, 0) + 1
                route = kit.routes.get(self.path) or kit.routes.get(path)
                if route is None:
                    return self._send(404, b"not found", {"Content-Type": "text/plain"})
                if route.delay:
                    kit._closing.wait(route.delay)
                self._send(route.status, route.body, route.headers, route.length)

            def do_POST(self) -> None:
                length = min(int(self.headers.get("Content-Length") or 0), 8 * 1024 * 1024)
                data = self.rfile.read(length)
                token = self.path.split("/report/", 1)[-1]
                kit.reports[token] = json.loads(data.decode("utf-8"))
                kit.event(token).set()
                self._send(204, b"", {})

        return Handler


class _TLSServer(http.server.ThreadingHTTPServer):
    """https: the handshake happens in the request's own thread (a browser's idle speculative
    connection must not stall the accept loop)."""

    def __init__(self, context: ssl.SSLContext, handler: type[http.server.BaseHTTPRequestHandler]) -> None:
        self.context = context
        super().__init__(("127.0.0.1", 0), handler)

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, address = super().get_request()
        return self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), address

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a browser that drops a TLS connection it opened ahead is not an error here


class TestCA:
    """A CA made for one test run, and a certificate for 127.0.0.1 that it signed."""

    __test__ = False

    def __init__(self, folder: Path) -> None:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID

        folder.mkdir(parents=True, exist_ok=True)
        now = datetime.datetime.now(datetime.timezone.utc)
        ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pithtex test CA")])

        def cert(subject, public_key, ca: bool, extra=()):
            builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(ca_name).public_key(public_key)
                       .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
                       .not_valid_after(now + datetime.timedelta(days=2))
                       .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
            for ext in extra:
                builder = builder.add_extension(ext, critical=False)
            return builder.sign(ca_key, hashes.SHA256())

        ca = cert(ca_name, ca_key.public_key(), True)
        leaf = cert(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]), key.public_key(), False,
                    [x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                     x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH])])
        self.ca_pem = folder / "ca.pem"
        self.ca_pem.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
        chain = folder / "server.pem"
        chain.write_bytes(leaf.public_bytes(serialization.Encoding.PEM) + key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(chain)

    def trust_in(self, nssdb: Path) -> None:
        """Add the CA to an NSS store (a Firefox profile, or Chromium's $HOME/.pki/nssdb)."""
        nssdb.mkdir(parents=True, exist_ok=True)
        for cmd in (["certutil", "-N", "-d", f"sql:{nssdb}", "--empty-password"],
                    ["certutil", "-A", "-d", f"sql:{nssdb}", "-n", "pithtex test CA", "-t", "C,,",
                     "-i", str(self.ca_pem)]):
            subprocess.run(cmd, check=True, capture_output=True, timeout=60)


@contextlib.contextmanager
def page_server(tls: ssl.SSLContext | None = None) -> Iterator[PageServer]:
    server = PageServer(tls)
    try:
        yield server
    finally:
        server.close()


def page(server: PageServer, path: str, body_html: str, *, scenario: str = "states", head: str = "",
         script: str = "/pith-badge.js", module: bool = False, headers: dict[str, str] | None = None,
         axe: bool = False, settle_ms: int | None = None) -> tuple[str, str]:
    """Serve a test page (the harness, then the element's script); return (url, token)."""
    token = secrets.token_hex(8)
    kind = ' type="module"' if module else " defer"
    axe_tag = '<script src="/axe.min.js" defer></script>' if axe else ""
    settle = f' data-settle-ms="{settle_ms}"' if settle_ms else ""
    html = (f'<!doctype html><html lang="en" data-token="{token}" data-scenario="{scenario}"{settle}><head>'
            f'<meta charset="utf-8"><title>pith-badge test: {scenario}</title>{head}'
            f'<script src="/harness.js" defer></script>{axe_tag}<script src="{script}"{kind}></script></head>'
            f'<body><main>{body_html}<img src="/hold/{token}" alt="" width="1" height="1"></main></body></html>')
    server.route(path, html, headers=headers)
    return server.base + path, token


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def firefox_profile(folder: Path, scale: float, hosts: tuple[str, ...] = ()) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    dead = free_port()  # nothing listens there: any request off 127.0.0.1 fails at once
    prefs = {
        "network.proxy.type": 1, "network.proxy.http": "127.0.0.1", "network.proxy.http_port": dead,
        "network.proxy.ssl": "127.0.0.1", "network.proxy.ssl_port": dead, "network.proxy.socks_remote_dns": True,
        "network.trr.mode": 5, "network.dns.disablePrefetch": True, "network.prefetch-next": False,
        "browser.safebrowsing.malware.enabled": False, "browser.safebrowsing.phishing.enabled": False,
        "browser.safebrowsing.downloads.enabled": False, "browser.shell.checkDefaultBrowser": False,
        "datareporting.policy.dataSubmissionEnabled": False, "toolkit.telemetry.enabled": False,
        "app.update.auto": False, "app.normandy.enabled": False, "extensions.update.enabled": False,
        "browser.aboutwelcome.enabled": False, "browser.startup.homepage_override.mstone": "ignore",
        "services.settings.server": "http://127.0.0.1:9/", "captivedetect.canonicalURL": "",
        "network.captive-portal-service.enabled": False, "network.connectivity-service.enabled": False,
        "layout.css.devPixelsPerPx": str(scale), "ui.systemUsesDarkTheme": 0,
        # `hosts`: names that resolve to 127.0.0.1 without a proxy (pages on a non-loopback name)
        "network.dns.localDomains": ",".join(hosts), "network.proxy.no_proxies_on": ",".join(hosts),
    }
    lines = [f'user_pref("{k}", {json.dumps(v)});' for k, v in prefs.items()]
    (folder / "user.js").write_text("\n".join(lines) + "\n")


def run(browser: str, server: PageServer, url: str, token: str, tmp: Path, screenshot: Path | None = None,
        size: tuple[int, int] = (900, 700), scale: float = 1.0, ca: TestCA | None = None,
        hosts: tuple[str, ...] = ()) -> dict[str, Any]:
    """Open `url` in `browser` headless; return the page's report (and write the screenshot).
    With `ca`, the browser's certificate store trusts that test CA (for https pages); `hosts`
    are names the browser resolves to 127.0.0.1 (an http page there is not a secure context)."""
    exe = BROWSERS[browser]
    tmp.mkdir(parents=True, exist_ok=True)
    shot = screenshot or tmp / f"{browser}-{token}.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    w, h = size
    if browser == "chromium":
        if ca:
            ca.trust_in(tmp / ".pki" / "nssdb")  # $HOME's NSS store, which Chromium on Linux reads
        cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-quic",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-default-apps", "--disable-extensions", "--hide-scrollbars", "--force-color-profile=srgb",
               f"--proxy-server=http://127.0.0.1:{free_port()}", f"--force-device-scale-factor={scale}",
               *([f"--host-resolver-rules={', '.join(f'MAP {h} 127.0.0.1' for h in hosts)}",
                  f"--proxy-bypass-list={';'.join(hosts)}"] if hosts else []),
               f"--user-data-dir={tmp / 'chromium-profile'}", f"--window-size={w},{h}", f"--screenshot={shot}", url]
    else:
        profile = tmp / "firefox-profile"
        firefox_profile(profile, scale, hosts)
        if ca:
            ca.trust_in(profile)
        cmd = [exe, "--headless", "--no-remote", "--profile", str(profile), "--screenshot", str(shot),
               f"--window-size={w},{h}", url]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "LANG": "C.UTF-8", "MOZ_HEADLESS": "1"}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert token in server.reports, f"{browser} sent no report (rc={proc.returncode}): {proc.stderr[-1500:]}"
    report = server.reports[token]
    report["screenshot"] = str(shot) if shot.exists() else None
    return report


def available(browser: str) -> bool:
    return shutil.which(BROWSERS[browser]) is not None


# The start of an outer page's steps over framed sites: wait for a test to hold, and each
# frame's document and <pith-badge>s by the frame's id (tests/web/test_site_*.py).
FRAMED_STEPS = """\
"use strict";
const wait = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(test, ms = 60000) {
  const end = Date.now() + ms;
  while (Date.now() < end) { try { if (test()) return true; } catch (e) { /* not loaded yet */ } await wait(50); }
  return false;
}
const doc = (name) => document.getElementById(name).contentDocument;
const badgesOf = (name) => Array.from(doc(name).querySelectorAll("pith-badge"));
"""
