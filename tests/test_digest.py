"""labcore.digest: a checkpoint's identity is its weight bytes and their relative names, nothing else."""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import struct
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labcore.digest import (
    DIGEST_FORMAT,
    CheckpointDigestError,
    DigestProgress,
    checkpoint_digest,
    is_digest,
    weight_files,
)
from labcore.errors import LabcoreError


def make_checkpoint(folder: Path, shards: dict[str, bytes] | None = None) -> Path:
    shards = shards or {
        "model-00001-of-00002.safetensors": b"\x01" * 1000,
        "model-00002-of-00002.safetensors": bytes(range(256)) * 3,
    }
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in shards.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    (folder / "config.json").write_text('{"hidden_size": 64}')
    (folder / "model.safetensors.index.json").write_text("{}")
    return folder


def reference_digest(files: list[tuple[str, bytes]]) -> str:
    """The documented definition, written out independently of the implementation."""
    h = hashlib.sha256(b"labcore.checkpoint_digest/v1\0")
    for rel, data in sorted(files, key=lambda f: f[0].encode()):
        name = rel.encode()
        h.update(struct.pack("<Q", len(name)) + name + struct.pack("<Q", len(data)) + data)
    return "sha256:" + h.hexdigest()


def test_digest_follows_the_documented_definition(tmp_path: Path) -> None:
    folder = make_checkpoint(tmp_path / "ckpt", {"b.safetensors": b"bbb", "a/x.bin": b"", "a.pt": b"p" * 10})
    assert DIGEST_FORMAT == b"labcore.checkpoint_digest/v1\0"
    assert checkpoint_digest(folder) == reference_digest([("b.safetensors", b"bbb"), ("a/x.bin", b""), ("a.pt", b"p" * 10)])
    assert [f.relpath for f in weight_files(folder)] == ["a.pt", "a/x.bin", "b.safetensors"]  # bytewise: '.' < '/'


def test_same_content_in_two_places_gives_the_same_digest(tmp_path: Path) -> None:
    a = make_checkpoint(tmp_path / "one")
    b = make_checkpoint(tmp_path / "elsewhere" / "two")
    assert checkpoint_digest(a) == checkpoint_digest(b)
    assert is_digest(checkpoint_digest(a))


def test_timestamps_and_copies_do_not_change_the_digest(tmp_path: Path) -> None:
    folder = make_checkpoint(tmp_path / "ckpt")
    before = checkpoint_digest(folder)
    for f in folder.iterdir():
        os.utime(f, (1, 1))
    assert checkpoint_digest(folder) == before
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    assert checkpoint_digest(copy) == before


def test_one_changed_byte_changes_the_digest(tmp_path: Path) -> None:
    folder = make_checkpoint(tmp_path / "ckpt")
    before = checkpoint_digest(folder)
    shard = folder / "model-00002-of-00002.safetensors"
    data = bytearray(shard.read_bytes())
    data[500] ^= 0x01
    shard.write_bytes(bytes(data))
    assert checkpoint_digest(folder) != before


def test_renaming_a_weight_file_changes_the_digest(tmp_path: Path) -> None:
    """Names are identity: a sharded checkpoint's index maps tensors to shard names."""
    folder = make_checkpoint(tmp_path / "ckpt")
    before = checkpoint_digest(folder)
    (folder / "model-00001-of-00002.safetensors").rename(folder / "renamed.safetensors")
    assert checkpoint_digest(folder) != before


def test_moving_bytes_between_files_changes_the_digest(tmp_path: Path) -> None:
    a = make_checkpoint(tmp_path / "a", {"x.safetensors": b"ab", "y.safetensors": b"c"})
    b = make_checkpoint(tmp_path / "b", {"x.safetensors": b"a", "y.safetensors": b"bc"})
    assert checkpoint_digest(a) != checkpoint_digest(b)


def test_non_weight_and_hidden_files_are_not_hashed(tmp_path: Path) -> None:
    folder = make_checkpoint(tmp_path / "ckpt")
    before = checkpoint_digest(folder)
    (folder / "config.json").write_text('{"hidden_size": 128}')
    (folder / "README.md").write_text("hello")
    (folder / ".cache").mkdir()
    (folder / ".cache" / "stale.safetensors").write_bytes(b"zzz")
    assert checkpoint_digest(folder) == before
    (folder / "extra.safetensors").write_bytes(b"")
    assert checkpoint_digest(folder) != before  # a new weight file, even an empty one, is new identity


def test_pickle_weight_files_are_hashed_as_bytes_never_loaded(tmp_path: Path) -> None:
    marker = tmp_path / "marker"

    class Payload:
        def __reduce__(self):
            return (Path.write_text, (marker, "pwned"))

    folder = make_checkpoint(tmp_path / "ckpt", {"pytorch_model.bin": pickle.dumps(Payload())})
    assert is_digest(checkpoint_digest(folder))
    assert not marker.exists()


def test_chunk_size_does_not_change_the_digest(tmp_path: Path) -> None:
    folder = make_checkpoint(tmp_path / "ckpt")
    digests = {checkpoint_digest(folder, chunk_bytes=n) for n in (1, 7, 256, 10**6)}
    assert len(digests) == 1


def test_progress_reports_every_chunk_and_reaches_the_total(tmp_path: Path) -> None:
    folder = make_checkpoint(tmp_path / "ckpt")  # shards of 768 and 1000 bytes
    seen: list[DigestProgress] = []
    checkpoint_digest(folder, chunk_bytes=100, progress=seen.append)
    assert [p.relpath for p in seen].count("model-00001-of-00002.safetensors") == 1 + 10
    assert [p.relpath for p in seen].count("model-00002-of-00002.safetensors") == 1 + 8
    done = [p.bytes_done for p in seen]
    assert done == sorted(done) and done[-1] == seen[-1].bytes_total == 1768
    assert seen[-1].fraction == 1.0 and seen[0].fraction == 0.0
    assert all(0 <= p.file_bytes_done <= p.file_bytes for p in seen)


def test_a_single_file_or_a_list_of_files_can_be_digested(tmp_path: Path) -> None:
    folder = make_checkpoint(tmp_path / "ckpt")
    shards = sorted(folder.glob("*.safetensors"))
    assert checkpoint_digest(shards) == checkpoint_digest(folder)
    assert checkpoint_digest(shards[0]) == checkpoint_digest([shards[0]])
    assert checkpoint_digest(str(folder)) == checkpoint_digest(folder)


def test_symlinked_files_are_named_by_the_link_and_hashed_by_content(tmp_path: Path) -> None:
    """A Hugging Face cache snapshot is symlinks to blobs named by hash."""
    real = make_checkpoint(tmp_path / "real", {"model.safetensors": b"weights"})
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    (blobs / "e3b0c442").write_bytes(b"weights")
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    (snapshot / "model.safetensors").symlink_to(blobs / "e3b0c442")
    assert checkpoint_digest(snapshot) == checkpoint_digest(real)
    assert checkpoint_digest([snapshot / "model.safetensors"]) == checkpoint_digest(real)


def test_nothing_to_digest_is_a_clear_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "config.json").write_text("{}")
    with pytest.raises(CheckpointDigestError, match=r"empty: no weight files \(\*\.safetensors") as info:
        checkpoint_digest(empty)
    assert isinstance(info.value, LabcoreError) and isinstance(info.value, ValueError)
    with pytest.raises(CheckpointDigestError, match="no such file or directory"):
        checkpoint_digest(tmp_path / "missing")
    with pytest.raises(CheckpointDigestError, match="no files given"):
        checkpoint_digest([])
    with pytest.raises(CheckpointDigestError, match="not a file"):
        checkpoint_digest([empty])
    with pytest.raises(CheckpointDigestError, match="listed twice"):
        checkpoint_digest([empty / "config.json", empty / "config.json"])


@pytest.mark.parametrize("chunk", [0, -1, 1.5, True])
def test_chunk_bytes_must_be_a_positive_int(tmp_path: Path, chunk: object) -> None:
    folder = make_checkpoint(tmp_path / "ckpt")
    with pytest.raises(ValueError, match="chunk_bytes"):
        checkpoint_digest(folder, chunk_bytes=chunk)  # type: ignore[arg-type]


def test_a_file_growing_while_hashed_is_detected(tmp_path: Path) -> None:
    folder = make_checkpoint(tmp_path / "ckpt", {"model.safetensors": b"x" * 100})

    def grow(p: DigestProgress) -> None:
        if p.file_bytes_done == 0:
            with open(folder / "model.safetensors", "ab") as fh:
                fh.write(b"more")

    with pytest.raises(CheckpointDigestError, match="changed while being hashed"):
        checkpoint_digest(folder, chunk_bytes=10, progress=grow)


@given(st.dictionaries(st.sampled_from(["a.safetensors", "b.bin", "sub/c.pt", "d.pth"]), st.binary(max_size=64), min_size=1))
def test_digest_is_a_function_of_names_and_bytes_only(tmp_path_factory: pytest.TempPathFactory, shards: dict[str, bytes]) -> None:
    one = make_checkpoint(tmp_path_factory.mktemp("one"), shards)
    two = make_checkpoint(tmp_path_factory.mktemp("two"), dict(reversed(list(shards.items()))))
    expected = reference_digest(list(shards.items()))
    assert checkpoint_digest(one) == checkpoint_digest(two, chunk_bytes=5) == expected


def test_is_digest() -> None:
    assert is_digest("sha256:" + "ab" * 32)
    assert not is_digest("sha256:" + "AB" * 32) and not is_digest("md5:00") and not is_digest(None)
