"""Digest a base checkpoint's tensors, so an adapter can be bound to the exact weights it was trained on.

A model *name* says nothing about which weights sit behind it, and PEFT records only that name.
``checkpoint_digest`` identifies the weights by their content: the tensors of the checkpoint's
safetensors files, not the files themselves.

**Definition (format v2).** The digest of a checkpoint is ``'sha256:'`` followed by the SHA-256,
in hex, of ``b"labcore.checkpoint_digest/v2\\0"``, then ``u64le(n)`` for the number of tensors,
then, for every tensor in order of its name (UTF-8, bytewise), ``u64le(len(name)) + name +
u64le(len(dtype)) + dtype + u64le(ndim) + u64le(dim) for each dimension + sha256(tensor bytes)``
(the 32-byte digest of the tensor's raw little-endian data as the safetensors header places it;
names and dtypes UTF-8). So two checkpoints have the same digest exactly when they hold the same
tensors (names, dtypes, shapes, bytes), whatever the sharding, the file names, the order of the
tensors in the files, the safetensors ``__metadata__``, and the other files in the folder
(``config.json``, ``training_args.bin``, a stray ``.pth``, a README); any changed weight, dtype,
shape or tensor name gives another digest. Tensor data is streamed in fixed-size chunks, so memory
stays bounded however large the checkpoint is. Pickle-based weights (``.bin``, ``.pt``, ``.pth``)
are never opened: their tensors cannot be read without unpickling, so a checkpoint that has only
those is refused rather than digested by its file layout.

>>> import pathlib, tempfile
>>> from labcore.peft_files import safetensors_bytes
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "model.safetensors").write_bytes(safetensors_bytes({"w": ("F32", [2], bytes(8))}))
>>> _ = (d / "training_args.bin").write_bytes(b"not weights")
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

from ._validate import count
from .errors import AdapterFileError, CheckpointDigestError
from .peft_files import SafetensorsHeader, TensorInfo, read_safetensors_header

__all__ = [
    "DIGEST_FORMAT",
    "WEIGHT_SUFFIXES",
    "PICKLE_SUFFIXES",
    "DEFAULT_CHUNK_BYTES",
    "CheckpointDigestError",
    "DigestProgress",
    "WeightFile",
    "TensorDigest",
    "weight_files",
    "tensor_digests",
    "checkpoint_digest",
    "is_digest",
]

DIGEST_FORMAT = b"labcore.checkpoint_digest/v2\0"
#: Files whose tensors the digest covers (found recursively in a checkpoint folder).
WEIGHT_SUFFIXES = (".safetensors",)
#: Pickle-based weight files: never opened, only named in the error when nothing else is there.
PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt")
DEFAULT_CHUNK_BYTES = 8 * 2**20
_DIGEST_RE = re.compile(r"sha256:[0-9a-f]{64}")
_U64 = struct.Struct("<Q")


@dataclass(frozen=True, slots=True)
class WeightFile:
    """Name one safetensors file by its path relative to the checkpoint and its size in bytes."""

    relpath: str
    path: str
    size: int


@dataclass(frozen=True, slots=True)
class DigestProgress:
    """Report how far a digest has got, in tensor-data bytes: in the current file and over the checkpoint."""

    relpath: str
    file_bytes_done: int
    file_bytes: int
    bytes_done: int
    bytes_total: int

    @property
    def fraction(self) -> float:
        """Return the fraction of the checkpoint hashed so far (1.0 for a checkpoint of empty tensors)."""
        return self.bytes_done / self.bytes_total if self.bytes_total else 1.0


@dataclass(frozen=True, slots=True)
class TensorDigest:
    """Identify one tensor by name, dtype, shape and the SHA-256 of its bytes; ``relpath`` says where it was.

    >>> TensorDigest("w", "F32", (2,), hashlib.sha256(bytes(8)).hexdigest(), "model.safetensors").record()[:9]
    b'\\x01\\x00\\x00\\x00\\x00\\x00\\x00\\x00w'
    """

    name: str
    dtype: str
    shape: tuple[int, ...]
    sha256: str
    relpath: str

    def record(self) -> bytes:
        """Return the bytes this tensor contributes to the checkpoint digest (the file it sat in is not part of them)."""
        name, dtype = self.name.encode("utf-8"), self.dtype.encode("utf-8")
        dims = b"".join(_U64.pack(d) for d in self.shape)
        return (
            _U64.pack(len(name))
            + name
            + _U64.pack(len(dtype))
            + dtype
            + _U64.pack(len(self.shape))
            + dims
            + bytes.fromhex(self.sha256)
        )


def is_digest(value: object) -> bool:
    """Return whether ``value`` is a digest as this module writes it: ``'sha256:'`` + 64 hex digits.

    >>> is_digest("sha256:" + "0" * 64), is_digest("sha256:abc")
    (True, False)
    """
    return isinstance(value, str) and _DIGEST_RE.fullmatch(value) is not None


def weight_files(path_or_files: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> tuple[WeightFile, ...]:
    """List the safetensors files a digest covers, sorted by relative path.

    A directory is searched recursively for ``*.safetensors`` files (folders whose name starts with
    ``.``, such as ``.git`` or ``.cache``, are skipped); a single file is named by its base name; an
    explicit list of files is named relative to the folder that contains them all (every listed
    file must be a safetensors file, whatever its suffix). The names only label progress reports
    and errors: they are not part of the digest.
    """
    if isinstance(path_or_files, (str, os.PathLike)):
        root = Path(path_or_files)
        if root.is_dir():
            found: list[tuple[str, Path]] = []
            pickled: list[str] = []
            for folder, dirs, names in os.walk(root):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                for name in names:
                    full = Path(folder) / name
                    if name.endswith(WEIGHT_SUFFIXES) and full.is_file():
                        found.append((full.relative_to(root).as_posix(), full))
                    elif name.endswith(PICKLE_SUFFIXES):
                        pickled.append(full.relative_to(root).as_posix())
            if not found:
                hint = (
                    f" it has only pickle-based files {sorted(pickled)[:4]}, whose tensors cannot be read without "
                    "unpickling: convert the checkpoint to safetensors"
                    if pickled
                    else " is this the checkpoint folder?"
                )
                raise CheckpointDigestError(f"{root}: no weight files (*{', *'.join(WEIGHT_SUFFIXES)}) found;{hint}")
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


def _headers(files: tuple[WeightFile, ...]) -> list[tuple[WeightFile, SafetensorsHeader]]:
    out = []
    seen: dict[str, str] = {}
    for f in files:
        try:
            header = read_safetensors_header(f.path)
        except AdapterFileError as exc:
            raise CheckpointDigestError(f"{f.path}: not a valid safetensors file: {exc.problem}") from exc
        for t in header.tensors:
            if t.name in seen:
                raise CheckpointDigestError(
                    f"tensor {t.name!r} is in both {seen[t.name]!r} and {f.relpath!r}; a checkpoint holds each tensor once "
                    "(are two copies of the weights in this folder?)"
                )
            seen[t.name] = f.relpath
        out.append((f, header))
    return out


def _hash_file(
    f: WeightFile,
    header: SafetensorsHeader,
    buf: bytearray,
    *,
    done: int,
    total: int,
    progress: Callable[[DigestProgress], None] | None,
) -> list[TensorDigest]:
    """Stream one file's data region once, in data order, switching hashers at tensor boundaries."""
    start = 8 + header.header_bytes
    data = header.data_bytes
    view = memoryview(buf)
    tensors: list[TensorInfo] = list(header.tensors)  # sorted by offset, tiling the data exactly
    out: list[TensorDigest] = []
    index, h = 0, hashlib.sha256()
    while index < len(tensors) and tensors[index].nbytes == 0:
        t = tensors[index]
        out.append(TensorDigest(name=t.name, dtype=t.dtype, shape=t.shape, sha256=h.hexdigest(), relpath=f.relpath))
        index, h = index + 1, hashlib.sha256()
    pos = 0
    if progress is not None:
        progress(
            DigestProgress(relpath=f.relpath, file_bytes_done=0, file_bytes=data, bytes_done=done, bytes_total=total)
        )
    try:
        with open(f.path, "rb") as fh:
            if os.fstat(fh.fileno()).st_size != header.file_bytes:
                raise CheckpointDigestError(
                    f"{f.path}: changed size after its header was read; it changed while being hashed"
                )
            fh.seek(start)
            while pos < data:
                n = fh.readinto(view[: min(len(buf), data - pos)])
                if not n:
                    raise CheckpointDigestError(
                        f"{f.path}: ended {data - pos} bytes early (read {pos} of {data} data bytes); it changed while being hashed"
                    )
                lo = 0
                while lo < n:
                    t = tensors[index]
                    take = min(n - lo, t.end - pos)
                    h.update(view[lo : lo + take])
                    lo += take
                    pos += take
                    while index < len(tensors) and pos == tensors[index].end:
                        t = tensors[index]
                        out.append(
                            TensorDigest(
                                name=t.name, dtype=t.dtype, shape=t.shape, sha256=h.hexdigest(), relpath=f.relpath
                            )
                        )
                        index, h = index + 1, hashlib.sha256()
                if progress is not None:
                    progress(
                        DigestProgress(
                            relpath=f.relpath,
                            file_bytes_done=pos,
                            file_bytes=data,
                            bytes_done=done + pos,
                            bytes_total=total,
                        )
                    )
            if os.fstat(fh.fileno()).st_size != header.file_bytes:
                raise CheckpointDigestError(
                    f"{f.path}: was {header.file_bytes} bytes when its header was read but is "
                    f"{os.fstat(fh.fileno()).st_size} now; it changed while being hashed"
                )
    except OSError as exc:
        raise CheckpointDigestError(f"{f.path}: cannot read: {exc.strerror or exc}") from exc
    return out


def _check_chunk(chunk_bytes: object) -> int:
    return count("chunk_bytes", chunk_bytes)


def tensor_digests(
    path_or_files: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    progress: Callable[[DigestProgress], None] | None = None,
) -> tuple[TensorDigest, ...]:
    """Return one :class:`TensorDigest` per tensor of the checkpoint, sorted by name.

    This is what :func:`checkpoint_digest` combines; comparing two checkpoints' lists names the
    tensors that differ.

    >>> import pathlib, tempfile
    >>> from labcore.peft_files import safetensors_bytes
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "m.safetensors"
    >>> _ = p.write_bytes(safetensors_bytes({"b": ("BF16", [1], b"ab"), "a": ("U8", [0], b"")}))
    >>> [(t.name, t.dtype, t.shape) for t in tensor_digests(p)]
    [('a', 'U8', (0,)), ('b', 'BF16', (1,))]
    """
    _check_chunk(chunk_bytes)
    headers = _headers(weight_files(path_or_files))
    total = sum(h.data_bytes for _, h in headers)
    buf = bytearray(chunk_bytes)
    done = 0
    out: list[TensorDigest] = []
    for f, header in headers:
        out.extend(_hash_file(f, header, buf, done=done, total=total, progress=progress))
        done += header.data_bytes
    out.sort(key=lambda t: t.name.encode("utf-8"))
    return tuple(out)


def checkpoint_digest(
    path_or_files: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    progress: Callable[[DigestProgress], None] | None = None,
) -> str:
    """Return ``'sha256:<hex>'`` over a checkpoint's tensors (see the module docstring), streamed ``chunk_bytes`` at a time.

    ``progress``, if given, is called with a :class:`DigestProgress` at the start of each file and
    after every chunk. A file that changes size while it is read raises ``CheckpointDigestError``,
    and so do a malformed safetensors file and a tensor name found in two files.

    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> checkpoint_digest(d)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    labcore.errors.CheckpointDigestError: ...: no weight files (*.safetensors) found; is this the checkpoint folder?
    """
    digests = tensor_digests(path_or_files, chunk_bytes=chunk_bytes, progress=progress)
    h = hashlib.sha256(DIGEST_FORMAT)
    h.update(_U64.pack(len(digests)))
    for t in digests:
        h.update(t.record())
    return "sha256:" + h.hexdigest()
