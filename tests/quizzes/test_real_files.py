"""Tests for labcore.quizzes.real_files: chapter 14's quiz says what config.json sizing and the digest say."""

from __future__ import annotations

import os

from labcore.digest import checkpoint_digest
from labcore.model_config import exact_adapter_mb
from labcore.peft_files import safetensors_bytes
from labcore.quizzes import real_files_quiz

from ._helpers import assert_chapter_shape, right


def test_the_quiz_has_the_chapter_shape():
    assert_chapter_shape(real_files_quiz())


def test_the_file_holds_the_exact_gqa_size_at_four_bytes():
    quiz = real_files_quiz()
    fp32 = exact_adapter_mb("llama-3-70b", 16, ["q_proj", "v_proj"], bytes=4)
    # q: 8192 -> 8192, v: 8192 -> 8 kv heads x 128 = 1024; 80 layers; 4 bytes
    assert quiz.questions[0].answer == fp32 == 80 * 16 * ((8192 + 8192) + (8192 + 1024)) * 4 / 2**20
    assert "bf16" in quiz.grade(0, fp32 / 2)[1]


def test_the_binding_lives_beside_the_adapter():
    assert right(real_files_quiz().questions[1]).text.startswith("Beside the adapter, in a registry entry")


def test_only_a_changed_tensor_changes_the_digest(tmp_path):
    a = ("U8", [4], b"\x00\x01\x02\x03")
    b = ("U8", [4], b"\x04\x05\x06\x07")
    one = tmp_path / "one"
    one.mkdir()
    (one / "model.safetensors").write_bytes(safetensors_bytes({"w.0": a, "w.1": b}))
    sharded = tmp_path / "sharded"
    sharded.mkdir()
    (sharded / "part-b.safetensors").write_bytes(safetensors_bytes({"w.0": a}, metadata={"format": "pt"}))
    (sharded / "part-a.safetensors").write_bytes(safetensors_bytes({"w.1": b}))
    (sharded / "training_args.bin").write_bytes(b"not weights")
    for f in sharded.iterdir():
        os.utime(f, (0, 0))  # stamped 1970-01-01
    flipped = tmp_path / "flipped"
    flipped.mkdir()
    (flipped / "model.safetensors").write_bytes(safetensors_bytes({"w.0": a, "w.1": ("U8", [4], b"\x04\x05\x06\x06")}))
    assert checkpoint_digest(one) == checkpoint_digest(sharded) != checkpoint_digest(flipped)
    assert right(real_files_quiz().questions[2]).text == "Flipping one bit of one tensor"
