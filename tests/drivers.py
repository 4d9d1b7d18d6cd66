"""Just enough browser automation for real key presses: CDP over a pipe (Chromium), Marionette (Firefox).

Synthetic KeyboardEvents never activate a button, so the panel's Enter/Space opening is
tested with the browsers' own input: Chromium's DevTools protocol over
`--remote-debugging-pipe` (fds 3 and 4, NUL-terminated JSON; no socket, no port) and
Firefox's Marionette (length-prefixed JSON over TCP on 127.0.0.1, port chosen by Firefox
and written to the profile). Both expose the same three calls: evaluate, press, close.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from .browserkit import BROWSERS, firefox_profile, free_port

# Key names as the page sees them, with CDP's and WebDriver's codes for each.
KEYS = {
    "Enter": {"cdp": {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"}, "wd": "\ue007"},
    " ": {"cdp": {"key": " ", "code": "Space", "windowsVirtualKeyCode": 32, "text": " "}, "wd": " "},
    "Escape": {"cdp": {"key": "Escape", "code": "Escape", "windowsVirtualKeyCode": 27}, "wd": "\ue00c"},
    "Tab": {"cdp": {"key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9}, "wd": "\ue004"},
}


class Chromium:
    def __init__(self, url: str, tmp: Path) -> None:
        to_child_r, self._w = os.pipe()
        self._r, from_child_w = os.pipe()

        def fds() -> None:  # the child reads commands on fd 3 and answers on fd 4 (kept by pass_fds)
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_child_r, from_child_w)]  # clear of 3 and 4
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        cmd = [BROWSERS["chromium"], "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--remote-debugging-pipe", f"--proxy-server=http://127.0.0.1:{free_port()}",
               f"--user-data-dir={tmp / 'chromium-driven'}", "--window-size=800,600", url]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, preexec_fn=fds, pass_fds=(3, 4))
        os.close(to_child_r)
        os.close(from_child_w)
        self._id, self._buffer = 0, b""
        page = next(t for t in self._call("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self._session = self._call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]

    def _call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._id += 1
        message = {"id": self._id, "method": method, "params": params, **({"sessionId": session} if session else {})}
        os.write(self._w, json.dumps(message).encode() + b"\0")
        while True:
            while b"\0" not in self._buffer:
                chunk = os.read(self._r, 65536)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self._buffer += chunk
            raw, self._buffer = self._buffer.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self._id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]

    def evaluate(self, expression: str) -> Any:
        result = self._call("Runtime.evaluate", self._session, expression=expression, returnByValue=True,
                            awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(str(result["exceptionDetails"])[:500])
        return result["result"].get("value")

    def press(self, key: str) -> None:
        codes = KEYS[key]["cdp"]
        self._call("Input.dispatchKeyEvent", self._session, type="keyDown", **codes)
        self._call("Input.dispatchKeyEvent", self._session, type="keyUp", **{k: v for k, v in codes.items()
                                                                            if k != "text"})

    def color_scheme(self, scheme: str) -> None:
        self._call("Emulation.setEmulatedMedia", self._session,
                   features=[{"name": "prefers-color-scheme", "value": scheme}])

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self._call("Browser.close")
        _end(self.proc)
        for fd in (self._r, self._w):
            with contextlib.suppress(OSError):
                os.close(fd)


class Firefox:
    def __init__(self, url: str, tmp: Path) -> None:
        profile = tmp / "firefox-driven"
        firefox_profile(profile, 1.0)
        with (profile / "user.js").open("a") as f:
            f.write('user_pref("marionette.port", 0);\n')  # Firefox picks a free port and writes it down
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "LANG": "C.UTF-8", "MOZ_HEADLESS": "1"}
        self.proc = subprocess.Popen([BROWSERS["firefox"], "--headless", "--marionette", "--no-remote",
                                      "--profile", str(profile), "--window-size=800,600", "about:blank"],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, env=env)
        port_file = profile / "MarionetteActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.is_file() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                _end(self.proc)
                raise RuntimeError("Firefox did not start Marionette")
            time.sleep(0.1)
        self._sock = socket.create_connection(("127.0.0.1", int(port_file.read_text())), timeout=60)
        self._buffer, self._id = b"", 0
        self._read()  # the greeting
        self._call("WebDriver:NewSession", capabilities={})
        self._call("WebDriver:Navigate", url=url)

    def _read(self) -> Any:
        while b":" not in self._buffer:
            self._buffer += self._recv()
        size, rest = self._buffer.split(b":", 1)
        while len(rest) < int(size):
            rest += self._recv()
        self._buffer = rest[int(size):]
        return json.loads(rest[:int(size)])

    def _recv(self) -> bytes:
        chunk = self._sock.recv(65536)
        if not chunk:
            raise RuntimeError("Marionette closed the connection")
        return chunk

    def _call(self, command: str, **params: Any) -> Any:
        self._id += 1
        data = json.dumps([0, self._id, command, params]).encode()
        self._sock.sendall(str(len(data)).encode() + b":" + data)
        while True:
            kind, msg_id, error, result = self._read()
            if kind == 1 and msg_id == self._id:
                if error:
                    raise RuntimeError(f"{command}: {error}")
                return result

    def evaluate(self, expression: str) -> Any:
        return self._call("WebDriver:ExecuteAsyncScript", args=[],
                          script=f"const done = arguments[arguments.length - 1]; "
                                 f"Promise.resolve({expression}).then(done, (e) => done(String(e)));")["value"]

    def press(self, key: str) -> None:
        value = KEYS[key]["wd"]
        self._call("WebDriver:PerformActions", actions=[{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": value}, {"type": "keyUp", "value": value}]}])
        self._call("WebDriver:ReleaseActions")

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self._call("Marionette:Quit", flags=["eForceQuit"])
        with contextlib.suppress(OSError):
            self._sock.close()
        _end(self.proc)


def _end(proc: subprocess.Popen) -> None:
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def open_browser(browser: str, url: str, tmp: Path) -> Chromium | Firefox:
    return Chromium(url, tmp) if browser == "chromium" else Firefox(url, tmp)
