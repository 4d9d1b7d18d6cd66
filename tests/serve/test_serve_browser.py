"""The server's SVG as a README reader's browser draws it: real headless Chromium and Firefox
open the badge URL of a real `pithtex serve` and the screenshot shows each segment's colour,
and the /v/ page (its strict CSP) shows the badge image."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from PIL import Image

from pithtex import brand
from pithtex.number import PithNumber
from pithtex.web import badge

from ..browserkit import BROWSERS, firefox_profile, free_port
from ..conftest import BODY, seed_doc
from ..resolverkit import FakeResolver, Reply
from .servekit import serving

NUMBER = PithNumber(BODY, 2021)


def screenshot(browser: str, url: str, tmp: Path, size: tuple[int, int]) -> Image.Image:
    shot = tmp / f"{browser}.png"
    w, h = size
    if browser == "chromium":
        cmd = [BROWSERS[browser], "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--force-color-profile=srgb", f"--proxy-server=http://127.0.0.1:{free_port()}",
               f"--user-data-dir={tmp / 'chromium'}", f"--window-size={w},{h}",
               f"--screenshot={shot}", url]
    else:
        firefox_profile(tmp / "firefox", 1.0)
        cmd = [BROWSERS[browser], "--headless", "--no-remote", "--profile", str(tmp / "firefox"), "--screenshot",
               str(shot), f"--window-size={w},{h}", url]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "LANG": "C.UTF-8", "MOZ_HEADLESS": "1"}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert shot.exists(), done.stderr[-2000:]
    return Image.open(shot).convert("RGB")


def near(pixel: tuple[int, ...], colour: brand.Colour, tolerance: int = 40) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, colour.rgb, strict=False))


@pytest.mark.parametrize("browser", ["chromium", "firefox"])
@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_served_svg_renders_in_a_real_browser(browser: str, theme: str, fake: FakeResolver, tmp_path: Path):
    fake.record(BODY, Reply.json(seed_doc()))
    lay = badge.layout(NUMBER, brand.VERIFIED)
    colours = brand.THEMES[theme]
    with serving(fake.base, tmp_path / "cache") as served:
        url = f"{served.base}/badge/{BODY}.svg?theme={theme}"
        image = screenshot(browser, url, tmp_path, (400, 300))
    # the label's right edge, the message's middle, the status's right edge: each segment's
    # own colour (rows 3 and 17: above and below the text)
    for y in (3, 17):
        assert near(image.getpixel((lay.label - 2, y)), colours.label_bg), (y, image.getpixel((lay.label - 2, y)))
        assert near(image.getpixel((lay.label + 2, y)), colours.message_bg)
        assert near(image.getpixel((lay.width - 3, y)), colours.verified_bg), image.getpixel((lay.width - 3, y))
    assert near(image.getpixel((lay.width + 5, 10)), brand.Colour("#ffffff"), 8)  # nothing drawn past the badge


@pytest.mark.parametrize("browser", ["chromium", "firefox"])
def test_the_verification_page_shows_the_badge_under_its_own_csp(browser: str, fake: FakeResolver, tmp_path: Path):
    """/v/ID's Content-Security-Policy (img-src 'self') lets its badge image load: the
    verified state's colour is on the screen, which the page's text alone never paints."""
    fake.record(BODY, Reply.json(seed_doc()))
    with serving(fake.base, tmp_path / "cache") as served:
        image = screenshot(browser, f"{served.base}/v/{BODY}", tmp_path, (800, 600))
    verified = brand.THEMES["light"].verified_bg
    colours = image.getcolors(maxcolors=image.width * image.height) or []  # (count, pixel) pairs
    assert any(near(pixel, verified, 12) for _, pixel in colours)
