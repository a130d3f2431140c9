"""labcore.digest: a checkpoint's identity is its tensors (names, dtypes, shapes, bytes), not its file layout."""

from __future__ import annotations

import hashlib
import itertools
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
    tensor_digests,
    weight_files,
)
from labcore.errors import LabcoreError
from labcore.peft_files import safetensors_bytes

# name -> (dtype, shape, bytes): a tiny "model" of four tensors
TENSORS = {
    "model.embed.weight": ("F32", [4, 8], bytes(range(128))),
    "model.layers.0.q.weight": ("BF16", [8, 8], bytes(range(1, 129))),
    "model.layers.0.norm.weight": ("F32", [8], b"\x01" * 32),
    "model.empty": ("F16", [0, 3], b""),
}


def shard(tensors: dict, names: list[str], **kw) -> bytes:
    return safetensors_bytes({n: tensors[n] for n in names}, **kw)


def make_checkpoint(folder: Path, files: dict[str, bytes] | None = None) -> Path:
    files = files if files is not None else {"model.safetensors": shard(TENSORS, list(TENSORS))}
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    (folder / "config.json").write_text('{"hidden_size": 8}')
    return folder


def reference_digest(tensors: dict) -> str:
    """The documented definition, written out independently of the implementation."""
    h = hashlib.sha256(b"labcore.checkpoint_digest/v2\0" + struct.pack("<Q", len(tensors)))
    for name in sorted(tensors, key=lambda n: n.encode()):
        dtype, shape, data = tensors[name]
        h.update(struct.pack("<Q", len(name.encode())) + name.encode())
        h.update(struct.pack("<Q", len(dtype)) + dtype.encode() + struct.pack("<Q", len(shape)))
        h.update(b"".join(struct.pack("<Q", d) for d in shape) + hashlib.sha256(data).digest())
    return "sha256:" + h.hexdigest()


def test_digest_follows_the_documented_definition(tmp_path: Path) -> None:
    assert DIGEST_FORMAT == b"labcore.checkpoint_digest/v2\0"
    assert checkpoint_digest(make_checkpoint(tmp_path / "c")) == reference_digest(TENSORS)
    assert [t.name for t in tensor_digests(tmp_path / "c")] == sorted(TENSORS)


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
    shutil.copytree(folder, tmp_path / "copy")
    assert checkpoint_digest(tmp_path / "copy") == before


def test_sharding_file_names_tensor_order_and_metadata_do_not_change_the_digest(tmp_path: Path) -> None:
    names = list(TENSORS)
    one = make_checkpoint(tmp_path / "one")
    layouts = {
        "two shards": {
            "model-00001-of-00002.safetensors": shard(TENSORS, names[:2]),
            "model-00002-of-00002.safetensors": shard(TENSORS, names[2:]),
        },
        "four shards, other names": {f"part{i}.safetensors": shard(TENSORS, [n]) for i, n in enumerate(names)},
        "tensors in reverse order": {"model.safetensors": shard(TENSORS, names[::-1])},
        "with metadata": {"model.safetensors": shard(TENSORS, names, metadata={"format": "pt", "note": "x"})},
        "in a subfolder": {"weights/w.safetensors": shard(TENSORS, names)},
    }
    expected = checkpoint_digest(one)
    for label, files in layouts.items():
        assert checkpoint_digest(make_checkpoint(tmp_path / label, files)) == expected, label


def test_unrelated_files_in_the_folder_are_not_hashed(tmp_path: Path) -> None:
    folder = make_checkpoint(tmp_path / "ckpt")
    before = checkpoint_digest(folder)
    (folder / "config.json").write_text('{"hidden_size": 128}')
    (folder / "README.md").write_text("hello")
    (folder / "training_args.bin").write_bytes(b"\x80\x04 not really a pickle")
    (folder / "optimizer.pt").write_bytes(b"state")
    (folder / "consolidated.00.pth").write_bytes(b"other format")
    (folder / "model.safetensors.index.json").write_text("{}")
    (folder / ".cache").mkdir()
    (folder / ".cache" / "stale.safetensors").write_bytes(b"zzz")
    assert checkpoint_digest(folder) == before


@pytest.mark.parametrize(
    ("change", "tensors"),
    [
        ("one byte", {**TENSORS, "model.layers.0.norm.weight": ("F32", [8], b"\x01" * 31 + b"\x02")}),
        ("dtype, same bytes", {**TENSORS, "model.layers.0.q.weight": ("F16", [8, 8], bytes(range(1, 129)))}),
        ("shape, same bytes", {**TENSORS, "model.embed.weight": ("F32", [8, 4], bytes(range(128)))}),
        ("empty shape", {**TENSORS, "model.empty": ("F16", [3, 0], b"")}),
        (
            "tensor renamed",
            {("model.embed2.weight" if k == "model.embed.weight" else k): v for k, v in TENSORS.items()},
        ),
        ("tensor added", {**TENSORS, "extra": ("U8", [1], b"\0")}),
        ("tensor removed", {k: v for k, v in TENSORS.items() if k != "model.empty"}),
    ],
)
def test_any_changed_weight_dtype_shape_or_name_changes_the_digest(tmp_path: Path, change: str, tensors: dict) -> None:
    before = checkpoint_digest(make_checkpoint(tmp_path / "a"))
    after = make_checkpoint(tmp_path / "b", {"model.safetensors": shard(tensors, list(tensors))})
    assert checkpoint_digest(after) != before
    assert checkpoint_digest(after) == reference_digest(tensors)


def test_a_tensor_in_two_files_is_refused(tmp_path: Path) -> None:
    names = list(TENSORS)
    folder = make_checkpoint(
        tmp_path / "c", {"a.safetensors": shard(TENSORS, names), "b.safetensors": shard(TENSORS, names[:1])}
    )
    with pytest.raises(
        CheckpointDigestError, match="'model.embed.weight' is in both 'a.safetensors' and 'b.safetensors'"
    ):
        checkpoint_digest(folder)


def test_a_malformed_safetensors_file_is_refused(tmp_path: Path) -> None:
    folder = make_checkpoint(tmp_path / "c", {"model.safetensors": b"weights, not a safetensors file"})
    with pytest.raises(CheckpointDigestError, match="not a valid safetensors file: header length"):
        checkpoint_digest(folder)
    truncated = make_checkpoint(tmp_path / "t", {"model.safetensors": shard(TENSORS, list(TENSORS))[:-5]})
    with pytest.raises(CheckpointDigestError, match="not a valid safetensors file: tensor data ends"):
        checkpoint_digest(truncated)


def test_pickle_only_checkpoints_are_refused_and_never_unpickled(tmp_path: Path) -> None:
    marker = tmp_path / "marker"

    class Payload:
        def __reduce__(self):
            return (Path.write_text, (marker, "pwned"))

    folder = make_checkpoint(tmp_path / "ckpt", {"pytorch_model.bin": pickle.dumps(Payload())})
    with pytest.raises(CheckpointDigestError, match=r"only pickle-based files \['pytorch_model.bin'\].*convert"):
        checkpoint_digest(folder)
    with pytest.raises(CheckpointDigestError, match="not a valid safetensors file"):
        checkpoint_digest(folder / "pytorch_model.bin")
    assert not marker.exists()


def test_chunk_size_does_not_change_the_digest(tmp_path: Path) -> None:
    folder = make_checkpoint(tmp_path / "ckpt")
    assert len({checkpoint_digest(folder, chunk_bytes=n) for n in (1, 7, 32, 100, 10**6)}) == 1


def test_progress_reports_every_chunk_and_reaches_the_total(tmp_path: Path) -> None:
    names = list(TENSORS)
    folder = make_checkpoint(
        tmp_path / "ckpt",
        {
            "a.safetensors": shard(TENSORS, names[:1]),  # 128 data bytes
            "b.safetensors": shard(TENSORS, names[1:]),
        },
    )  # 160 data bytes
    seen: list[DigestProgress] = []
    checkpoint_digest(folder, chunk_bytes=50, progress=seen.append)
    assert [p.relpath for p in seen].count("a.safetensors") == 1 + 3
    assert [p.relpath for p in seen].count("b.safetensors") == 1 + 4
    done = [p.bytes_done for p in seen]
    assert done == sorted(done) and done[-1] == seen[-1].bytes_total == 288
    assert seen[-1].fraction == 1.0 and seen[0].fraction == 0.0
    assert all(0 <= p.file_bytes_done <= p.file_bytes for p in seen)


def test_memory_is_one_chunk_whatever_the_tensor_size(tmp_path: Path) -> None:
    big = {"w": ("U8", [3 * 2**20 + 5], bytes(3 * 2**20 + 5))}
    folder = make_checkpoint(tmp_path / "c", {"model.safetensors": shard(big, ["w"])})
    sizes: list[int] = []
    checkpoint_digest(folder, chunk_bytes=2**20, progress=lambda p: sizes.append(p.file_bytes_done))
    assert [b - a for a, b in itertools.pairwise(sizes)] == [2**20] * 3 + [5]
    assert checkpoint_digest(folder) == reference_digest(big)


def test_a_single_file_or_a_list_of_files_can_be_digested(tmp_path: Path) -> None:
    names = list(TENSORS)
    folder = make_checkpoint(
        tmp_path / "ckpt", {"x.safetensors": shard(TENSORS, names[:2]), "y.safetensors": shard(TENSORS, names[2:])}
    )
    shards = sorted(folder.glob("*.safetensors"))
    assert checkpoint_digest(shards) == checkpoint_digest(folder) == checkpoint_digest(str(folder))
    assert (
        checkpoint_digest(shards[0])
        == checkpoint_digest([shards[0]])
        == reference_digest({n: TENSORS[n] for n in names[:2]})
    )
    assert [f.relpath for f in weight_files(folder)] == ["x.safetensors", "y.safetensors"]


def test_symlinked_files_are_hashed_by_content(tmp_path: Path) -> None:
    """A Hugging Face cache snapshot is symlinks to blobs named by hash."""
    real = make_checkpoint(tmp_path / "real")
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    (blobs / "e3b0c442").write_bytes((real / "model.safetensors").read_bytes())
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    (snapshot / "model.safetensors").symlink_to(blobs / "e3b0c442")
    assert checkpoint_digest(snapshot) == checkpoint_digest(real) == checkpoint_digest([snapshot / "model.safetensors"])


def test_nothing_to_digest_is_a_clear_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "config.json").write_text("{}")
    with pytest.raises(
        CheckpointDigestError, match=r"empty: no weight files \(\*\.safetensors\) found; is this"
    ) as info:
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


def test_a_file_changing_while_hashed_is_detected(tmp_path: Path) -> None:
    folder = make_checkpoint(tmp_path / "ckpt")

    def grow(p: DigestProgress) -> None:
        if p.file_bytes_done == 0:
            with open(folder / "model.safetensors", "ab") as fh:
                fh.write(b"more")

    with pytest.raises(CheckpointDigestError, match="changed while being hashed"):
        checkpoint_digest(folder, chunk_bytes=10, progress=grow)

    def shrink(p: DigestProgress) -> None:
        if p.file_bytes_done == 0:
            os.truncate(folder / "model.safetensors", 100)

    make_checkpoint(folder)
    with pytest.raises(CheckpointDigestError, match="changed while being hashed"):
        checkpoint_digest(folder, chunk_bytes=10, progress=shrink)


_tensor = st.tuples(st.sampled_from(["U8", "F16", "F32"]), st.integers(0, 6)).map(
    lambda t: (t[0], [t[1]], bytes(range(t[1] * {"U8": 1, "F16": 2, "F32": 4}[t[0]])))
)


@given(
    st.dictionaries(st.text("abc.", min_size=1, max_size=4), _tensor, min_size=1, max_size=5),
    st.integers(1, 5),
    st.integers(1, 40),
)
def test_digest_is_a_function_of_the_tensors_only(
    tmp_path_factory: pytest.TempPathFactory, tensors: dict, shards: int, chunk: int
) -> None:
    names = list(tensors)
    files = {f"s{i}.safetensors": shard(tensors, names[i::shards]) for i in range(shards)}
    one = make_checkpoint(tmp_path_factory.mktemp("one"), {"m.safetensors": shard(tensors, names[::-1])})
    many = make_checkpoint(tmp_path_factory.mktemp("many"), files)
    assert checkpoint_digest(one) == checkpoint_digest(many, chunk_bytes=chunk) == reference_digest(tensors)


def test_is_digest() -> None:
    assert is_digest("sha256:" + "ab" * 32)
    assert not is_digest("sha256:" + "AB" * 32) and not is_digest("md5:00") and not is_digest(None)


# -- real checkpoints written by transformers ---------------------------------------------------


def test_real_checkpoints_resharded_or_resaved_keep_their_digest(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason="the real stack is optional: pip install -r requirements-real.txt")
    transformers = pytest.importorskip("transformers", reason="the real stack is optional")
    safetensors_torch = pytest.importorskip("safetensors.torch", reason="the real stack is optional")

    def tiny(seed: int):
        torch.manual_seed(seed)
        cfg = transformers.LlamaConfig(
            vocab_size=64,
            hidden_size=32,
            intermediate_size=48,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            tie_word_embeddings=False,
        )
        return transformers.LlamaForCausalLM(cfg)

    model = tiny(0)
    model.save_pretrained(tmp_path / "single", safe_serialization=True)
    model.save_pretrained(tmp_path / "sharded", safe_serialization=True, max_shard_size="20KB")
    assert len(list((tmp_path / "sharded").glob("*.safetensors"))) > 1
    state = {k: v.contiguous() for k, v in model.state_dict().items()}
    (tmp_path / "bare").mkdir()
    safetensors_torch.save_file(state, tmp_path / "bare" / "weights.safetensors")  # no metadata, another name
    (tmp_path / "bare" / "training_args.bin").write_bytes(pickle.dumps({"lr": 1e-3}))
    torch.save(state, tmp_path / "bare" / "model.pth")
    digests = {key: checkpoint_digest(tmp_path / key) for key in ("single", "sharded", "bare")}
    assert len(set(digests.values())) == 1, digests

    with torch.no_grad():
        model.model.norm.weight[3] += 1e-3
    model.save_pretrained(tmp_path / "one_weight", safe_serialization=True)
    model.to(torch.bfloat16).save_pretrained(tmp_path / "bf16", safe_serialization=True)
    tiny(1).save_pretrained(tmp_path / "other_seed", safe_serialization=True)
    others = {key: checkpoint_digest(tmp_path / key) for key in ("one_weight", "bf16", "other_seed")}
    assert len(set(others.values()) | {digests["single"]}) == 4, others
