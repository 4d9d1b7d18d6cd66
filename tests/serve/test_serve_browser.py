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
