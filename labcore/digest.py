"""Digest a base checkpoint's weights, so an adapter can be bound to the exact weights it was trained on.

A model *name* says nothing about which weights sit behind it, and PEFT records only that name.
``checkpoint_digest`` hashes the weight files themselves, streamed in fixed-size chunks (a real
checkpoint is tens of GB: memory stays constant), in an order that does not depend on the file
system, so equal content gives an equal digest wherever and whenever the files were written.

What is hashed (format ``v1``), exactly::

    sha256( b"labcore.checkpoint_digest/v1\\0"
            + for each weight file, sorted by its relative path (POSIX '/', UTF-8, bytewise):
                  u64le(len(path)) + path + u64le(size) + content )

* Weight files are regular files (symlinks to files are followed, as in a Hugging Face cache
  snapshot) whose names end in ``.safetensors``, ``.bin``, ``.pt`` or ``.pth``, found recursively;
  folders whose name starts with ``.`` (``.git``, ``.cache``) are skipped. ``.bin``/``.pt`` files are
  hashed as bytes, never loaded.
* Relative paths are part of the identity: renaming a shard changes the digest (a sharded
  checkpoint's index maps tensors to shard *names*). Timestamps, permissions and the folder the
  checkpoint sits in are not hashed.
* ``config.json``, tokenizer files and ``*.index.json`` are not hashed: the digest identifies the
  weights, and two checkpoints with equal weights but different configs get the same digest.

>>> import pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "model.safetensors").write_bytes(b"weights")
>>> checkpoint_digest(d) == checkpoint_digest([d / "model.safetensors"])
True
>>> checkpoint_digest(d)[:7]
'sha256:'
"""

from __future__ import annotations

import hashlib
import os
import re
import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .errors import CheckpointDigestError

__all__ = [
    "DIGEST_FORMAT",
    "WEIGHT_SUFFIXES",
    "DEFAULT_CHUNK_BYTES",
    "CheckpointDigestError",
    "DigestProgress",
    "WeightFile",
    "weight_files",
    "checkpoint_digest",
    "is_digest",
]

DIGEST_FORMAT = b"labcore.checkpoint_digest/v1\0"
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth")
DEFAULT_CHUNK_BYTES = 8 * 2**20
_DIGEST_RE = re.compile(r"sha256:[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class WeightFile:
    """Name one weight file by its path relative to the checkpoint and its size in bytes."""

    relpath: str
    path: str
    size: int


@dataclass(frozen=True, slots=True)
class DigestProgress:
    """Report how far a digest has got: in the current file and over the whole checkpoint."""

    relpath: str
    file_bytes_done: int
    file_bytes: int
    bytes_done: int
    bytes_total: int

    @property
    def fraction(self) -> float:
        """Return the fraction of the checkpoint hashed so far (1.0 for an all-empty checkpoint)."""
        return self.bytes_done / self.bytes_total if self.bytes_total else 1.0


def is_digest(value: object) -> bool:
    """Return whether ``value`` is a digest as this module writes it: ``'sha256:'`` + 64 hex digits.

    >>> is_digest("sha256:" + "0" * 64), is_digest("sha256:abc")
    (True, False)
    """
    return isinstance(value, str) and _DIGEST_RE.fullmatch(value) is not None


def _is_weight(name: str) -> bool:
    return name.endswith(WEIGHT_SUFFIXES)


def weight_files(path_or_files: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> tuple[WeightFile, ...]:
    """List the files a digest covers, in digest order.

    A directory is searched recursively for weight files; a single file is named by its base name;
    an explicit list of files is named relative to the folder that contains them all (every listed
    file is hashed, whatever its suffix).
    """
    if isinstance(path_or_files, (str, os.PathLike)):
        root = Path(path_or_files)
        if root.is_dir():
            found: list[tuple[str, Path]] = []
            for folder, dirs, names in os.walk(root):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                for name in names:
                    full = Path(folder) / name
                    if _is_weight(name) and full.is_file():
                        found.append((full.relative_to(root).as_posix(), full))
            if not found:
                raise CheckpointDigestError(
                    f"{root}: no weight files (*{', *'.join(WEIGHT_SUFFIXES)}) found; is this the checkpoint folder?"
                )
        elif root.is_file():
            found = [(root.name, root)]
        else:
            raise CheckpointDigestError(f"{root}: no such file or directory")
    else:
        paths = [Path(p) for p in path_or_files]
        if not paths:
            raise CheckpointDigestError("no files given to digest")
        for p in paths:
            if not p.is_file():
                raise CheckpointDigestError(f"{p}: not a file")
        absolute = [Path(os.path.abspath(p)) for p in paths]  # abspath, not resolve: keep symlink names
        common = Path(os.path.commonpath([str(p.parent) for p in absolute]))
        found = [(p.relative_to(common).as_posix(), p) for p in absolute]
        names = [rel for rel, _ in found]
        if len(set(names)) != len(names):
            raise CheckpointDigestError(f"the same file is listed twice: {sorted(names)}")
    found.sort(key=lambda item: item[0].encode("utf-8"))
    return tuple(WeightFile(rel, str(full), full.stat().st_size) for rel, full in found)


def checkpoint_digest(
    path_or_files: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    progress: Callable[[DigestProgress], None] | None = None,
) -> str:
    """Return ``'sha256:<hex>'`` over a checkpoint's weight files, streamed ``chunk_bytes`` at a time.

    ``progress``, if given, is called with a :class:`DigestProgress` at the start of each file and
    after every chunk. A file whose size changes while it is read raises ``CheckpointDigestError``.

    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> checkpoint_digest(d)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    labcore.errors.CheckpointDigestError: ...: no weight files (*.safetensors, *.bin, *.pt, *.pth) found; is this the checkpoint folder?
    """
    if isinstance(chunk_bytes, bool) or not isinstance(chunk_bytes, int) or chunk_bytes <= 0:
        raise ValueError(f"chunk_bytes must be a positive int, got {chunk_bytes!r}")
    files = weight_files(path_or_files)
    total = sum(f.size for f in files)
    h = hashlib.sha256(DIGEST_FORMAT)
    done = 0
    buf = bytearray(chunk_bytes)
    view = memoryview(buf)
    for f in files:
        rel = f.relpath.encode("utf-8")
        h.update(struct.pack("<Q", len(rel)) + rel + struct.pack("<Q", f.size))
        read = 0
        if progress is not None:
            progress(DigestProgress(f.relpath, 0, f.size, done, total))
        try:
            with open(f.path, "rb") as fh:
                while True:
                    n = fh.readinto(buf)
                    if not n:
                        break
                    h.update(view[:n])
                    read += n
                    done += n
                    if read > f.size:
                        break
                    if progress is not None:
                        progress(DigestProgress(f.relpath, read, f.size, done, total))
        except OSError as exc:
            raise CheckpointDigestError(f"{f.path}: cannot read: {exc.strerror or exc}") from exc
        if read != f.size:
            raise CheckpointDigestError(
                f"{f.path}: was {f.size} bytes when listed but {read} bytes were read; it changed while being hashed"
            )
    return "sha256:" + h.hexdigest()
