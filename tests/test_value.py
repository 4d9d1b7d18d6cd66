"""pithtex.value: the start-up-cheap stand-ins for frozen dataclasses and typing.NamedTuple
behave as those did for every use pithtex makes of them (and a stamp loads neither)."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

from pithtex.brand import LIGHT, LOGO, Circle, Colour
from pithtex.number import PithNumber
from pithtex.pdf.objects import Ref
from pithtex.pdf.stamp import Options, Outcome

from .conftest import BODY


def test_frozen_values_compare_hash_show_and_refuse_changes():
    n = PithNumber(BODY, 2021)
    assert n == PithNumber.parse(f"pith:2021:{BODY}") and n != PithNumber(BODY)
    assert len({n, PithNumber(BODY, 2021), PithNumber(BODY)}) == 2
    assert repr(n) == f"PithNumber(body='{BODY}', year=2021)"
    assert repr(LOGO[1]) == "Circle(cx=8.0, cy=8.0, r=2.6, stroke=0.0)" and LOGO[1] == Circle(8.0, 8.0, 2.6)
    assert LIGHT.message_bg == Colour("#0b7a75") and hash(LIGHT) == hash(LIGHT)
    with pytest.raises(AttributeError):
        n.body = "X"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        n.extra = 1  # type: ignore[attr-defined]
    assert pickle.loads(pickle.dumps(n)) == n  # --jobs sends numbers to worker processes


def test_named_tuples_are_tuples_with_fields_defaults_and_replace():
    ref = Ref(12)
    assert ref == (12, 0) and ref.num == 12 and Ref(3, 1) < Ref(12) and {Ref(1): "a"}[Ref(1, 0)] == "a"
    assert repr(Ref(5, 2)) == "Ref(num=5, gen=2)"
    opts = Options(PithNumber(BODY), badge=True)
    assert opts.force is False and opts._replace(force=True).force is True and opts.badge is True
    out = Outcome("a.pdf", None, "stamped")
    assert out._replace(output="b.pdf").output == "b.pdf" and out.changed == () and Outcome._fields[:3] == (
        "source", "output", "status")
    assert pickle.loads(pickle.dumps(opts)) == opts
    for bad in (lambda: Ref(), lambda: Ref(1, 2, 3), lambda: Ref(1, num=2), lambda: opts._replace(colour=1)):
        with pytest.raises(TypeError):
            bad()
    with pytest.raises(AttributeError):
        ref.num = 3  # type: ignore[misc]


def test_a_stamp_loads_no_heavy_module():
    """What the stamp path imports, checked in a fresh interpreter (start-up is most of a stamp)."""
    code = ("import sys; import pithtex.cli.stamp, pithtex.pdf.batch, pithtex.pdf.update, pithtex.pdf.xmp; "
            "print(sorted({'typing', 'dataclasses', 'inspect', 'hashlib', 'xml.etree.ElementTree', 'json', "
            "'pypdf', 'cryptography', 'jinja2', 'pithtex.latex.render', "
            "'pithtex.arxiv.catalogue'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
