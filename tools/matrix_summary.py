#!/usr/bin/env python3
"""One line per route from a pytest JUnit report: how many pith.sty cases passed.

    python3 tools/matrix_summary.py REPORT.xml

A case's route is the first route name in its test id (test_example_route[article-dvips]);
cases without one (option and message tests, mostly pdflatex) count as `options`.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET  # our own pytest report, not outside input

ROUTES = ("pdflatex", "dvipdfmx", "dvips", "xelatex", "lualatex")


def route_of(name: str) -> str:
    params = name.partition("[")[2]
    for word in params.replace("]", "").replace(",", "-").split("-"):
        if word in ROUTES:
            return word
    return "options"


def summary(report: str) -> dict[str, list[int]]:
    counts: dict[str, list[int]] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        passed, total = counts.setdefault(route_of(case.get("name", "")), [0, 0])
        failed = any(child.tag in ("failure", "error", "skipped") for child in case)
        counts[route_of(case.get("name", ""))] = [passed + (not failed), total + 1]
    return counts


def main() -> int:
    counts = summary(sys.argv[1])
    order = [r for r in (*ROUTES, "options") if r in counts]
    print("   " + ", ".join(f"{r} {counts[r][0]}/{counts[r][1]}" for r in order))
    return 0


if __name__ == "__main__":
    sys.exit(main())
