"""Value types cheap to define at start-up: `Frozen` and `NamedTuple`.

`Frozen` is an immutable value compared, hashed and shown by its fields, as
`@dataclass(frozen=True)` gives it, for the few value types every command loads (brand
colours, `PithNumber`): importing `dataclasses` pulls in `inspect`, `ast`, `dis` and
`tokenize` and builds each class's methods with `exec`, about a fifth of what a whole
`pithtex stamp` process executed. A subclass lists its fields in `__slots__` and sets them in
its own `__init__` with `object.__setattr__`.
"""

from __future__ import annotations


class Frozen:
    __slots__: tuple[str, ...] = ()

    def _fields(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Frozen) and other.__class__ is self.__class__:
            return self._fields() == other._fields()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__qualname__}({shown})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a frozen {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a frozen {type(self).__name__}")

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        # Rebuilt through __init__ (its checks included) when sent to a --jobs worker.
        return type(self), self._fields()


# The package's one `TYPE_CHECKING`: `typing` is for checkers only, because importing it costs
# every stamp ~1.5 ms. Modules on the start-up path write `from .value import TYPE_CHECKING`
# and put their `typing` imports under `if TYPE_CHECKING:`; checkers take the name as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # checkers see the standard one; at run time the one below stands in
    from typing import NamedTuple as NamedTuple  # (re-exported: the package's modules import it from here)
else:
    from operator import itemgetter

    class _Fields(type):
        """Turns the annotated class attributes into tuple fields, as typing.NamedTuple does."""

        def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict) -> type:
            ns.setdefault("__slots__", ())
            if any(isinstance(base, _Fields) for base in bases):
                fields = tuple(ns.get("__annotations__", {}))
                defaults = {field: ns.pop(field) for field in fields if field in ns}
                if any(field in defaults for field in fields[:len(fields) - len(defaults)]):
                    raise TypeError(f"{name}: a field without a default follows one with a default")
                ns.update({field: property(itemgetter(i)) for i, field in enumerate(fields)},
                          _fields=fields, _field_defaults=defaults, __match_args__=fields)
            return super().__new__(mcls, name, bases, ns)

    class NamedTuple(tuple, metaclass=_Fields):
        """`typing.NamedTuple` without `import typing` (8% of what a whole stamp process
        executes) and without building each class with `eval`. Same use: `class
        Ref(NamedTuple):` with annotated fields and defaults, `_replace`, `_asdict`,
        `_fields`; instances are tuples (equality, hashing, order, unpacking, pickling)."""

        _fields: tuple[str, ...] = ()
        _field_defaults: dict[str, object] = {}  # noqa: RUF012 (each class gets its own)

        def __new__(cls, *args: object, **kwargs: object):
            if kwargs or len(args) != len(cls._fields):
                args = cls._bind(args, kwargs)
            return tuple.__new__(cls, args)

        @classmethod
        def _bind(cls, args: tuple, kwargs: dict) -> tuple:
            if len(args) > len(cls._fields):
                raise TypeError(f"{cls.__name__}() takes {len(cls._fields)} arguments, {len(args)} given")
            values = list(args)
            for field in cls._fields[len(args):]:
                if field in kwargs:
                    values.append(kwargs.pop(field))
                elif field in cls._field_defaults:
                    values.append(cls._field_defaults[field])
                else:
                    raise TypeError(f"{cls.__name__}() missing argument {field!r}")
            if kwargs:
                raise TypeError(f"{cls.__name__}() got unexpected or repeated arguments {sorted(kwargs)}")
            return tuple(values)

        @classmethod
        def _make(cls, iterable):
            return cls(*iterable)

        def _replace(self, **changes: object):
            unknown = set(changes) - set(self._fields)
            if unknown:
                raise TypeError(f"{type(self).__name__} has no fields {sorted(unknown)}")
            return self._make([changes.get(field, value) for field, value in zip(self._fields, self, strict=True)])

        def _asdict(self) -> dict[str, object]:
            return dict(zip(self._fields, self, strict=True))

        def __getnewargs__(self) -> tuple:
            return tuple(self)

        def __repr__(self) -> str:
            shown = ", ".join(f"{field}={value!r}" for field, value in zip(self._fields, self, strict=True))
            return f"{type(self).__name__}({shown})"


if TYPE_CHECKING:
    from typing import Any


class LazyPattern:
    """A regex compiled on first use, for the rare paths (damaged xrefs, `#` in names, tokens
    the one-call atom misses, a link on page 1): compiling costs more than the stamp or the
    `verify` that never needs it. Here, beside the other values cheap to define at start-up,
    so any module may hold one without importing `re`."""

    def __init__(self, source: bytes | str) -> None:
        self.source = source

    def __getattr__(self, name: str) -> Any:
        # Called only while an attribute is missing: the first use compiles and keeps the
        # pattern's methods on the instance, so later calls cost what a compiled one's do.
        import re

        compiled = re.compile(self.source)
        for method in ("match", "fullmatch", "search", "finditer", "findall", "sub"):
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)
