"""Canonical msgpack: one value, one encoding (protocol.md §2.3).

Values on the wire are ``Wire``: int (-2**63 .. 2**64-1), bool, str, bytes, None, lists and
maps with str keys. No floats, no ext types, no bytes keys. The canonical form is msgpack
with the smallest encoding of every int, length and str (what msgpack-python produces),
bin (never str) for bytes, and map keys sorted by their UTF-8 bytes. ``decode`` accepts only
that form: it re-encodes what it parsed and compares, so two peers that hash or sign the
same value always hash or sign the same bytes.

Untrusted input is bounded before and during parsing: the frame size is checked before any
parsing (FrameTooLarge), msgpack's own limits refuse huge declared lengths without
allocating, and nesting depth is checked.
"""

from __future__ import annotations

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
    try:
        canonical = encode(value)
    except LocalProtocolError as exc:
        raise DecodeError(f"value cannot be on the wire: {exc}") from exc
    if canonical != data:
        raise DecodeError("non-canonical msgpack encoding")
    return value  # type: ignore[return-value]  # _check_shape proved it is Wire


def _check_shape(value: object, max_depth: int) -> None:
    """DecodeError unless ``value`` is Wire nested at most ``max_depth`` deep (iterative)."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            raise DecodeError(f"value nests deeper than {max_depth}")
        if item is None or isinstance(item, bool | int | str | bytes):
            continue
        if isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
        elif isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    raise DecodeError("a map key is not a str")
                stack.append((child, depth + 1))
        else:
            raise DecodeError(f"type {type(item).__name__} is not allowed on the wire")
