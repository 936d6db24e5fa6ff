"""Canonical msgpack: one value, one encoding (protocol.md §2.3).

Values on the wire are ``Wire``: int (-2**63 .. 2**64-1), bool, str, bytes, None, lists and
maps with str keys. No floats, no ext types, no bytes keys. The canonical form is msgpack
with the smallest encoding of every int, length and str (what msgpack-python produces),
bin (never str) for bytes, and map keys sorted by their UTF-8 bytes. ``decode`` accepts only
that form: it checks that every map's keys are in that order, re-encodes what it parsed and
compares, so two peers that hash or sign the same value always hash or sign the same bytes.

Untrusted input is bounded before and during parsing: the frame size is checked before any
parsing (FrameTooLarge), msgpack's own limits refuse huge declared lengths without
allocating, and nesting depth is checked.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, TypeAlias

import msgpack

from dudo_p2p.errors import DecodeError, FrameTooLarge, LocalProtocolError

Wire: TypeAlias = "int | bool | str | bytes | list[Wire] | dict[str, Wire] | None"

MAX_FRAME: Final = 65536
MAX_DEPTH: Final = 16
MAX_CONTAINER_LEN: Final = 1024
_INT_MIN: Final = -(2**63)
_INT_MAX: Final = 2**64 - 1


def encode(obj: object) -> bytes:
    """The canonical msgpack encoding of ``obj`` (tuples encode as lists).

    Raises LocalProtocolError for a value the wire cannot carry: a float, a non-str map key,
    an int out of range, nesting deeper than MAX_DEPTH, any other type.
    """
    return bytes(msgpack.packb(_canonical(obj, 0), use_bin_type=True))


def _canonical(obj: object, depth: int) -> Wire:
    if depth > MAX_DEPTH:
        raise LocalProtocolError(f"value nests deeper than {MAX_DEPTH}")
    # the exact types nearly every value has, by one type() each (what the isinstance
    # chain below gives them, with a tenth of its calls: every frame we seal comes here)
    kind = type(obj)
    if kind is bytes or kind is str:
        return obj  # type: ignore[return-value]  # bytes | str: Wire
    if kind is int:
        if not _INT_MIN <= obj <= _INT_MAX:  # type: ignore[operator]  # an int
            raise LocalProtocolError(f"int {obj} does not fit msgpack")
        return obj  # type: ignore[return-value]  # an int: Wire
    if kind is list:
        return [_canonical(item, depth + 1) for item in obj]  # type: ignore[attr-defined]
    if obj is None or isinstance(obj, bool | str):
        return obj
    if isinstance(obj, int):
        if not _INT_MIN <= obj <= _INT_MAX:
            raise LocalProtocolError(f"int {obj} does not fit msgpack")
        return obj
    if isinstance(obj, bytes | bytearray | memoryview):
        return bytes(obj)
    if isinstance(obj, list | tuple):
        return [_canonical(item, depth + 1) for item in obj]
    if isinstance(obj, dict):
        for key in obj:
            if not isinstance(key, str):
                raise LocalProtocolError(f"map key {key!r} is not a str")
        # Sorting str keys by code point equals sorting their UTF-8 bytes.
        return {key: _canonical(obj[key], depth + 1) for key in sorted(obj)}
    raise LocalProtocolError(f"type {type(obj).__name__} cannot go on the wire")


def decode(
    data: bytes,
    *,
    max_size: int = MAX_FRAME,
    max_depth: int = MAX_DEPTH,
    max_container_len: int = MAX_CONTAINER_LEN,
) -> Wire:
    """Parse one canonical msgpack value that fills ``data`` exactly.

    Raises FrameTooLarge when len(data) > max_size (checked before parsing), DecodeError for
    anything else wrong: not msgpack, truncated, trailing bytes, a declared length over the
    limits, nesting deeper than ``max_depth``, a float/ext/non-str key, or a non-canonical
    encoding of an acceptable value.
    """
    if not isinstance(data, bytes):
        raise DecodeError(f"a frame is bytes, not {type(data).__name__}")
    if len(data) > max_size:
        raise FrameTooLarge(f"frame of {len(data)} bytes exceeds the limit of {max_size}")
    try:
        value: object = msgpack.unpackb(
            data,
            raw=False,
            use_list=True,
            strict_map_key=True,
            max_str_len=max_size,
            max_bin_len=max_size,
            max_array_len=max_container_len,
            max_map_len=max_container_len,
            max_ext_len=0,
        )
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        # ValueError covers truncated input, trailing data, limits, bad UTF-8 and msgpack's
        # own stack limit; TypeError an unhashable (list or map) map key.
        raise DecodeError(f"not a msgpack value: {type(exc).__name__}: {exc}") from exc
    _check_shape(value, max_depth)
    # encode(value) would be packb(value) with every map's keys sorted; _check_shape proved
    # they already are (and that value is Wire: the ints unpackb makes are all in range), so
    # msgpack's C packer alone rebuilds the canonical bytes, without a Python copy of the
    # value. Any other difference (a longer int, length or header, a duplicate key that
    # unpackb folded, str for bin) makes the bytes differ.
    if msgpack.packb(value, use_bin_type=True) != data:
        raise DecodeError("non-canonical msgpack encoding")
    return value  # type: ignore[return-value]  # _check_shape proved it is Wire


_SCALAR_TYPES: Final = frozenset({type(None), bool, int, str, bytes})


def _check_shape(value: object, max_depth: int) -> None:
    """DecodeError unless ``value`` (from msgpack.unpackb) is Wire nested at most
    ``max_depth`` deep, with every map's keys str and in canonical (sorted) order.

    Exact types: unpackb makes only these, never subclasses."""
    kind = type(value)
    if kind is list or kind is dict:
        _check_container(value, 0, max_depth)  # type: ignore[arg-type]
    elif kind not in _SCALAR_TYPES:
        raise DecodeError(f"type {kind.__name__} is not allowed on the wire")


def _check_container(value: list[object] | dict[object, object], depth: int,
                     max_depth: int) -> None:
    """``value`` sits at ``depth``; its items at ``depth + 1`` (recursion is bounded by
    ``max_depth``, checked before going down)."""
    items: Iterable[object]
    if type(value) is dict:
        keys = list(value)
        for key in keys:
            if type(key) is not str:
                raise DecodeError("a map key is not a str")
        # str order is code point order, the order of the UTF-8 bytes (the canonical one);
        # a duplicate key cannot show here (unpackb folded it) but changes the re-encoding
        if keys != sorted(keys):  # type: ignore[type-var]  # all str, checked above
            raise DecodeError("non-canonical msgpack encoding: map keys out of order")
        items = value.values()
    else:
        items = value
    if not value:
        return
    if depth >= max_depth:
        raise DecodeError(f"value nests deeper than {max_depth}")
    for item in items:
        kind = type(item)
        if kind is list or kind is dict:
            _check_container(item, depth + 1, max_depth)  # type: ignore[arg-type]
        elif kind not in _SCALAR_TYPES:
            raise DecodeError(f"type {kind.__name__} is not allowed on the wire")
