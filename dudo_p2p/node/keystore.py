"""Load or create the identity file (the node's I/O; the pure ``dudo_p2p.crypto`` only turns
an identity into bytes and back). The node, the session and the CLI import it.

The file holds ``Identity.to_bytes()`` (73 bytes), mode 0600, in a directory created 0700.
Creation is atomic and race-free: the key is written to a temporary file, fsynced, then
hard-linked into place, so two processes starting at once end with the same identity.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from dudo_p2p import paths
from dudo_p2p.crypto.identity import Identity
from dudo_p2p.errors import InvalidValue

_FILE_MODE = 0o600
_DIR_MODE = 0o700


def default_identity_path() -> Path:
    """The system's per-user data directory + ``identity`` (:func:`dudo_p2p.paths.identity_file`:
    ``$XDG_DATA_HOME/dudo-p2p/identity`` on Linux, the usual places on macOS and Windows)."""
    return paths.identity_file()


def load_or_create(path: Path | str) -> Identity:
    """The identity stored at ``path``, creating a new one (and parent dirs) if absent.

    Raises InvalidValue naming the file when it exists but is not a valid identity (we never
    overwrite it: it may be the only copy of a key other peers know). OSError propagates.
    """
    target = Path(path)
    try:
        return _load(target)
    except FileNotFoundError:
        pass
    target.parent.mkdir(mode=_DIR_MODE, parents=True, exist_ok=True)
    identity = Identity.generate()
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(identity.to_bytes())
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, target)
        except FileExistsError:
            # Another process created it first: theirs wins, so both use one identity.
            return _load(target)
        _fsync_dir(target.parent)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    return identity


def _load(target: Path) -> Identity:
    data = target.read_bytes()
    try:
        return Identity.from_bytes(data)
    except InvalidValue as exc:
        raise InvalidValue(
            f"{target}: not a dudo-p2p identity file ({exc}); move it away to create a new one"
        ) from exc


def _fsync_dir(directory: Path) -> None:
    # Windows cannot open a directory as a file; NTFS journals the link itself there.
    if os.name == "nt":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
