"""One frozen dataclass per message kind, and the machinery that checks them (protocol.md §2.4).

Defining a kind::

    @message("bid")
    @dataclass(frozen=True)
    class BidMsg(Message):
        count: Annotated[int, Range(1, 30)]
        face: Annotated[int, Range(1, 6)]
        commitment: Annotated[bytes, Size(32)]
        note: str | None = None

Field types: ``int``, ``bool``, ``str``, ``bytes``; ``tuple[T, ...]`` and fixed
``tuple[T1, T2]`` of field types; ``dict[str, int | bool | str]`` (the rule set); ``T | None``;
unions of the scalar types. Constraints ride on ``typing.Annotated``: ``Size(n)`` (bytes of
exactly n), ``MaxLen(n)`` (str characters, bytes, tuple items at most n), ``Range(lo, hi)``
(int in lo..hi inclusive). An unsupported type or a misplaced constraint raises
LocalProtocolError when the class is decorated (at import), never at run time.

On the wire a body is a map from field name to value (tuples as lists, every field present,
defaults included). ``from_wire`` refuses an unknown kind, a missing or extra field and any
value of the wrong type or outside its constraint with DecodeError naming kind and field;
``to_wire`` refuses the same mistakes in our own messages with LocalProtocolError.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, ClassVar, Final, TypeVar, Union

from dudo_p2p.errors import DecodeError, LocalProtocolError, ProtocolError
from dudo_p2p.protocol.codec import Wire


@dataclasses.dataclass(frozen=True)
class Size:
    """Constraint: a bytes field of exactly ``n`` bytes."""

    n: int


@dataclasses.dataclass(frozen=True)
class MaxLen:
    """Constraint: at most ``n`` str characters, bytes, or tuple items."""

    n: int


@dataclasses.dataclass(frozen=True)
class Range:
    """Constraint: an int in ``lo..hi`` inclusive."""

    lo: int
    hi: int


class Message:
    """What a wire message is: a frozen dataclass registered with ``@message`` that names
    this class as its base; ``kind_of`` gives a message's kind. A plain base class, not a
    ``typing.Protocol``: every ``isinstance`` and ``match`` against a message class went
    through ``_ProtocolMeta.__instancecheck__`` in Python, about 7,000 calls a game per
    peer (issue 19's profile)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]


T = TypeVar("T")
_KIND_RE: Final = re.compile(r"[a-z][a-z0-9-]{0,31}")
_SCALARS: Final = (int, bool, str, bytes)

_MSGPACK_INTS: Final = Range(-(2**63), 2**64 - 1)

_REGISTRY: dict[str, type[Message]] = {}
_KINDS: dict[type, str] = {}
_FIELDS: dict[type, tuple[tuple[str, _Spec], ...]] = {}
# per class: its field names, and each field's path in error messages ("kind.field"), made
# once at registration rather than for every field of every frame
_NAMES: dict[type, frozenset[str]] = {}
_PATHS: dict[type, tuple[tuple[str, _Spec, str], ...]] = {}


class _Spec:
    """A compiled field type: checks a value and converts between Python and wire form."""

    def convert(self, value: object, path: str, incoming: bool) -> object:
        raise NotImplementedError


def _fail(incoming: bool, path: str, why: str) -> ProtocolError:
    # A bad value from a peer is its fault (DecodeError); in our own message it is a bug.
    return (DecodeError if incoming else LocalProtocolError)(f"{path}: {why}")


def _type_name(value: object) -> str:
    return type(value).__name__


class _Scalar(_Spec):
    def __init__(
        self, kind: type, size: int | None, max_len: int | None, bounds: Range | None
    ) -> None:
        self.kind, self.size, self.max_len, self.bounds = kind, size, max_len, bounds
        # which checks apply follows from the exact type alone: decided once here, not
        # for every field of every frame (a value that matches is of type ``kind``)
        self._sized = kind is str or kind is bytes
        self._ranged = issubclass(kind, int)  # bool too, as isinstance(value, int) said

    def matches(self, value: object) -> bool:
        # Exact type: True must not pass as an int, nor 1 as a bool.
        return type(value) is self.kind

    def convert(self, value: object, path: str, incoming: bool) -> object:
        if type(value) is not self.kind:  # matches(), inlined: once per field of a frame
            raise _fail(incoming, path, f"expected {self.kind.__name__}, got {_type_name(value)}")
        if self._sized:
            n = len(value)  # type: ignore[arg-type]  # a str or bytes
            if self.size is not None and n != self.size:
                raise _fail(incoming, path, f"expected {self.size} bytes, got {n}")
            if self.max_len is not None and n > self.max_len:
                raise _fail(incoming, path, f"longer than {self.max_len}")
        elif self._ranged:
            bounds = self.bounds or _MSGPACK_INTS
            if not bounds.lo <= value <= bounds.hi:  # type: ignore[operator]  # an int
                raise _fail(incoming, path, f"{value} outside {bounds.lo}..{bounds.hi}")
        return value


class _Optional(_Spec):
    def __init__(self, inner: _Spec) -> None:
        self.inner = inner

    def convert(self, value: object, path: str, incoming: bool) -> object:
        return None if value is None else self.inner.convert(value, path, incoming)


class _ScalarUnion(_Spec):
    def __init__(self, options: tuple[_Scalar, ...]) -> None:
        self.options = options

    def convert(self, value: object, path: str, incoming: bool) -> object:
        for option in self.options:
            if option.matches(value):
                return option.convert(value, path, incoming)
        names = " | ".join(option.kind.__name__ for option in self.options)
        raise _fail(incoming, path, f"expected {names}, got {_type_name(value)}")


class _Tuple(_Spec):
    """tuple[T, ...] (``items`` has one spec, ``variadic``) or a fixed tuple[T1, T2, ...]."""

    def __init__(self, items: tuple[_Spec, ...], variadic: bool, max_len: int | None) -> None:
        self.items, self.variadic, self.max_len = items, variadic, max_len

    def convert(self, value: object, path: str, incoming: bool) -> object:
        # Peers send lists (msgpack arrays); our own dataclasses hold tuples (hashable).
        expected = list if incoming else tuple
        if not isinstance(value, expected):
            raise _fail(incoming, path, f"expected a sequence, got {_type_name(value)}")
        if self.variadic:
            if self.max_len is not None and len(value) > self.max_len:
                raise _fail(incoming, path, f"more than {self.max_len} items")
            specs = [self.items[0]] * len(value)
        else:
            if len(value) != len(self.items):
                raise _fail(incoming, path, f"expected {len(self.items)} items, got {len(value)}")
            specs = list(self.items)
        converted = [spec.convert(v, f"{path}[{i}]", incoming) for i, (spec, v) in
                     enumerate(zip(specs, value, strict=True))]
        return tuple(converted) if incoming else converted


class _StrMap(_Spec):
    def __init__(self, values: _Spec) -> None:
        self.values = values

    def convert(self, value: object, path: str, incoming: bool) -> object:
        if not isinstance(value, dict):
            raise _fail(incoming, path, f"expected a map, got {_type_name(value)}")
        out: dict[str, object] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _fail(incoming, path, f"map key {key!r} is not a str")
            out[key] = self.values.convert(item, f"{path}[{key!r}]", incoming)
        return out


def _compile(hint: object, where: str, constraints: tuple[object, ...] = ()) -> _Spec:
    """Turn a field's type hint into a _Spec; LocalProtocolError if unsupported."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is Annotated:
        return _compile(args[0], where, constraints + tuple(hint.__metadata__))  # type: ignore[attr-defined]
    if origin is Union or origin is types.UnionType:
        present = tuple(arg for arg in args if arg is not type(None))
        if len(present) < len(args):
            inner = present[0] if len(present) == 1 else Union[present]  # noqa: UP007
            return _Optional(_compile(inner, where, constraints))
        options = tuple(_compile(arg, where, constraints) for arg in present)
        if not all(isinstance(option, _Scalar) for option in options):
            raise LocalProtocolError(f"{where}: unions may only join int, bool, str, bytes")
        return _ScalarUnion(typing.cast(tuple[_Scalar, ...], options))
    if origin is tuple:
        max_len = _pick(constraints, MaxLen, where, allowed=(MaxLen,))
        if len(args) == 2 and args[1] is Ellipsis:
            return _Tuple((_compile(args[0], where),), True, max_len.n if max_len else None)
        if not args or Ellipsis in args:
            raise LocalProtocolError(f"{where}: use tuple[T, ...] or tuple[T1, T2, ...]")
        return _Tuple(tuple(_compile(arg, where) for arg in args), False, None)
    if origin is dict:
        _pick(constraints, MaxLen, where, allowed=())
        if args[0] is not str:
            raise LocalProtocolError(f"{where}: map keys must be str")
        values = _compile(args[1], where)
        if not isinstance(values, _Scalar | _ScalarUnion):
            raise LocalProtocolError(f"{where}: map values must be int, bool, str or a union")
        return _StrMap(values)
    if hint in _SCALARS:
        allowed: tuple[type, ...] = {
            bytes: (Size, MaxLen),
            str: (MaxLen,),
            int: (Range,),
            bool: (),
        }[typing.cast(type, hint)]
        size = _pick(constraints, Size, where, allowed)
        max_len = _pick(constraints, MaxLen, where, allowed)
        bounds = _pick(constraints, Range, where, allowed)
        return _Scalar(
            typing.cast(type, hint),
            size.n if size else None,
            max_len.n if max_len else None,
            bounds,
        )
    raise LocalProtocolError(f"{where}: unsupported field type {hint!r}")


C = TypeVar("C")


def _pick(
    constraints: tuple[object, ...], wanted: type[C], where: str, allowed: tuple[type, ...]
) -> C | None:
    for item in constraints:
        if not isinstance(item, Size | MaxLen | Range):
            raise LocalProtocolError(f"{where}: unknown constraint {item!r}")
        if type(item) not in allowed:
            raise LocalProtocolError(f"{where}: {type(item).__name__} does not apply here")
    found = [item for item in constraints if isinstance(item, wanted)]
    return found[-1] if found else None


def message(kind: str) -> Callable[[type[T]], type[T]]:
    """Class decorator: register a frozen dataclass as the message of ``kind``.

    ``kind`` is 1-32 chars of ``[a-z0-9-]`` starting with a letter, unique in the program.
    The class is returned unchanged (no attribute is added: a field may be called "kind").
    Raises LocalProtocolError (at import) on a bad or duplicate kind, a class that is not a
    frozen dataclass, or an unsupported field type.
    """
    if not _KIND_RE.fullmatch(kind):
        raise LocalProtocolError(f"message kind {kind!r} is not 1-32 chars of [a-z0-9-]")

    def register(cls: type[T]) -> type[T]:
        if kind in _REGISTRY:
            raise LocalProtocolError(f"message kind {kind!r} is already registered")
        params = getattr(cls, "__dataclass_params__", None)
        if params is None or not params.frozen:
            raise LocalProtocolError(f"{cls.__name__}: a message is a frozen dataclass")
        hints = typing.get_type_hints(cls, include_extras=True)
        _FIELDS[cls] = tuple(
            (field.name, _compile(hints[field.name], f"{kind}.{field.name}"))
            for field in dataclasses.fields(typing.cast(type[Message], cls))
        )
        _NAMES[cls] = frozenset(name for name, _ in _FIELDS[cls])
        _PATHS[cls] = tuple((name, spec, f"{kind}.{name}") for name, spec in _FIELDS[cls])
        _KINDS[cls] = kind
        _REGISTRY[kind] = typing.cast(type[Message], cls)
        return cls

    return register


def kind_of(msg: object) -> str:
    """The registered kind of a message (or message class); LocalProtocolError if none."""
    cls = msg if isinstance(msg, type) else type(msg)
    kind = _KINDS.get(cls)
    if kind is None:
        raise LocalProtocolError(f"{cls.__name__} is not a registered message")
    return kind


def registered_kinds() -> frozenset[str]:
    """Every kind registered so far."""
    return frozenset(_REGISTRY)


def message_class(kind: str) -> type[Message]:
    """The class registered for ``kind``; DecodeError if there is none."""
    cls = _REGISTRY.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise DecodeError(f"unknown message kind {kind!r}")
    return cls


def to_wire(msg: Message) -> dict[str, Wire]:
    """The wire body of ``msg`` (every field, tuples as lists).

    Raises LocalProtocolError if ``msg`` is not a registered message or a field holds a value
    its type or constraint forbids (we never send what a peer would refuse).
    """
    kind_of(msg)  # LocalProtocolError for an unregistered message
    return {
        name: typing.cast(Wire, spec.convert(getattr(msg, name), path, False))
        for name, spec, path in _PATHS[type(msg)]
    }


def from_wire(kind: str, body: object) -> Message:
    """Rebuild a message from its kind and wire body, checking everything.

    Raises DecodeError naming the kind and field for an unknown kind, a body that is not a
    map, a missing or extra field, or a value of the wrong type or outside its constraint.
    """
    cls = message_class(kind)
    if not isinstance(body, dict):
        raise DecodeError(f"{kind}: body is not a map")
    names = _NAMES[cls]
    if body.keys() != names:  # else neither extra nor missing: the one check of every frame
        extra = sorted(str(key) for key in body if key not in names)
        if extra:
            raise DecodeError(f"{kind}: unexpected field {extra[0]!r}")
        missing = [name for name, _ in _FIELDS[cls] if name not in body]
        if missing:
            raise DecodeError(f"{kind}: missing field {missing[0]!r}")
    values = {name: spec.convert(body[name], path, True) for name, spec, path in _PATHS[cls]}
    return cls(**values)
