"""The real-LoRA demonstration of chapter 14: its results file, and the files the chapter builds to show them.

``scripts/real_lora_demo.py`` trains a tiny Llama and an Atbash LoRA with the real ``peft`` and
writes ``results/real_lora.json``; :func:`load_demo_results` reads it back for the chapter, which
imports no torch. The chapter also builds small files on disk to show what a server must read:

* :func:`write_demo_adapter` rebuilds the demo adapter's directory with the exact layout the real
  one had (config and safetensors header byte for byte; zeros for the weights), from the fields
  :func:`adapter_sizes` recorded when the script read the real one;
* :func:`write_refused_adapters` writes two directories a reader must refuse: a pickle-only
  adapter and a truncated download;
* :func:`write_digest_checkpoints` writes one checkpoint three ways: as saved, re-sharded into two
  files under other names with other metadata, 1970 timestamps and an unrelated file beside it, and
  with one byte of one weight changed;
* :func:`register_on_each_checkpoint` registers the trained adapter against each checkpoint the
  demo built, as a server holding that checkpoint would.

>>> import tempfile
>>> from labcore.digest import checkpoint_digest
>>> paths = write_digest_checkpoints(Path(tempfile.mkdtemp()))
>>> d = {k: checkpoint_digest(p) for k, p in paths.items()}
>>> d["original"] == d["resharded copy, 1970 timestamps"] != d["one byte changed"]
True
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import AdapterFileError, BaseDigestMismatchError
from .peft_files import PeftAdapterFiles, safetensors_bytes
from .registry import AdapterRegistry

__all__ = [
    "DEMO_RESULTS_FORMAT",
    "DEMO_CHECKPOINTS",
    "DemoResults",
    "load_demo_results",
    "adapter_sizes",
    "write_demo_adapter",
    "write_refused_adapters",
    "write_digest_checkpoints",
    "register_on_each_checkpoint",
    "checkpoint_rows",
]

DEMO_RESULTS_FORMAT = "labcore.real_lora_demo/1"
#: The demo's four base checkpoints, in the order the chapter shows them.
DEMO_CHECKPOINTS: tuple[str, ...] = ("A", "B_prime_same_task", "B_prime_new_task", "B")


@dataclass(frozen=True, slots=True)
class DemoResults:
    """Hold the measured results of ``scripts/real_lora_demo.py`` for the chapter to quote.

    ``deterministic`` holds what a rerun reproduces (metrics, sizes, weight changes, registry
    outcomes); ``timings`` holds machine-dependent wall-clock figures; ``environment`` the versions.
    """

    path: str
    deterministic: Mapping[str, Any]
    timings: Mapping[str, Any]
    environment: Mapping[str, Any]

    def __getitem__(self, dotted: str) -> Any:
        """Return a field by dotted path, e.g. ``results["metrics.adapter_on_A.exact_match"]``."""
        node: Any = self.deterministic
        for part in dotted.split("."):
            if not isinstance(node, Mapping) or part not in node:
                raise KeyError(f"{self.path}: no field {dotted!r} (stopped at {part!r})")
            node = node[part]
        return node


def load_demo_results(path: str | os.PathLike[str]) -> DemoResults:
    """Load ``results/real_lora.json`` and check its format tag and sections."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise AdapterFileError(path, "missing; run scripts/real_lora_demo.py to create it") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise AdapterFileError(path, f"not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != DEMO_RESULTS_FORMAT:
        raise AdapterFileError(path, f"format must be {DEMO_RESULTS_FORMAT!r}")
    for section in ("deterministic", "timings", "environment"):
        if not isinstance(data.get(section), dict):
            raise AdapterFileError(path, f"section {section!r} is missing or not an object")
    return DemoResults(
        path=str(path), deterministic=data["deterministic"], timings=data["timings"], environment=data["environment"]
    )


def adapter_sizes(files: PeftAdapterFiles) -> dict[str, Any]:
    """Return the torch-free part of the results' ``sizes``: an adapter's layout, sizes and bytes per role, as read.

    :func:`write_demo_adapter` rebuilds a directory with this layout from these fields:

    >>> import tempfile
    >>> from labcore.peft_files import read_peft_adapter
    >>> sizes = {"rank": 2, "lora_alpha": 4, "target_names": ["q_proj"], "base_model_name_or_path": "tiny",
    ...          "modules": [["m.layers.0.q_proj", 8, 8, 2]]}
    >>> folder = Path(tempfile.mkdtemp())
    >>> blob = write_demo_adapter(folder, sizes)
    >>> read = adapter_sizes(read_peft_adapter(folder))
    >>> {key: read[key] for key in sizes} == sizes, read["file_bytes"] == len(blob), read["serving_bf16_bytes"]
    (True, True, 64)
    """
    return {
        "file_bytes": files.file_bytes,
        "header_bytes": files.weights.header_bytes,
        "tensor_bytes": files.tensor_bytes,
        "tensor_count": len(files.weights.tensors),
        "stored_dtypes": sorted({t.dtype for t in files.weights.tensors}),
        "param_count": files.param_count,
        "serving_bf16_bytes": files.serving_bytes("bf16"),
        "modules": [[m.name, m.in_features, m.out_features, m.rank] for m in files.modules],
        "rank": files.rank,
        "lora_alpha": files.lora_alpha,
        "target_names": list(files.target_names),
        "base_model_name_or_path": files.base_model_name_or_path,
        "bytes_by_role": files.bytes_by_role(),
    }


def _demo_config(sizes: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "peft_type": "LORA",
        "r": sizes["rank"],
        "lora_alpha": sizes["lora_alpha"],
        "target_modules": sizes["target_names"],
        "base_model_name_or_path": sizes["base_model_name_or_path"],
        "revision": None,
    }


def write_demo_adapter(folder: Path, sizes: Mapping[str, Any]) -> bytes:
    """Write the demo adapter's directory into ``folder`` from the results' ``sizes``; return the safetensors bytes.

    PEFT stores each module's A as (r × in) and B as (out × r), in F32 by default; the weights here are
    zeros, the layout (names, dtypes, shapes, byte ranges, metadata) is the real file's.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "adapter_config.json").write_text(json.dumps(_demo_config(sizes), indent=2), encoding="utf-8")
    tensors = {
        f"{module}.{factor}.weight": ("F32", shape, bytes(4 * shape[0] * shape[1]))
        for module, d_in, d_out, r in sizes["modules"]
        for factor, shape in (("lora_A", [r, d_in]), ("lora_B", [d_out, r]))
    }
    blob = safetensors_bytes(tensors, metadata={"format": "pt"})
    (folder / "adapter_model.safetensors").write_bytes(blob)
    return blob


def write_refused_adapters(folder: Path, adapter_dir: Path) -> tuple[Path, Path]:
    """Write beside ``adapter_dir`` two adapters a reader must refuse; return (pickle-only, truncated).

    The pickle-only one holds ``adapter_model.bin`` (loading a pickle can run any code); the truncated one
    is ``adapter_dir``'s safetensors file cut four bytes short, like a download that stopped.
    """
    config = (Path(adapter_dir) / "adapter_config.json").read_text(encoding="utf-8")
    pickled, truncated = Path(folder) / "pickled_adapter", Path(folder) / "truncated_adapter"
    for d in (pickled, truncated):
        d.mkdir(parents=True, exist_ok=True)
        (d / "adapter_config.json").write_text(config, encoding="utf-8")
    (pickled / "adapter_model.bin").write_bytes(b"\x80\x04 a pickle: loading it could run any code")
    (truncated / "adapter_model.safetensors").write_bytes(
        (Path(adapter_dir) / "adapter_model.safetensors").read_bytes()[:-4]
    )
    return pickled, truncated


def write_digest_checkpoints(folder: Path, *, tensor_bytes: int = 2**19) -> dict[str, Path]:
    """Write one two-tensor checkpoint three ways under ``folder``; return ``{what: folder}``.

    ``original``: one file; ``resharded copy, 1970 timestamps``: the same tensors in two files with other
    names and metadata, stamped 1970-01-01, next to an unrelated ``training_args.bin``; ``one byte
    changed``: the original with one bit of one weight flipped.
    """
    folder = Path(folder)
    layer0 = ("U8", [tensor_bytes], bytes(range(256)) * (tensor_bytes // 256))
    layer1 = ("U8", [tensor_bytes], bytes(reversed(range(256))) * (tensor_bytes // 256))
    changed = bytearray(layer1[2])
    changed[len(changed) // 4] ^= 0x01
    paths = {
        "original": folder / "original",
        "resharded copy, 1970 timestamps": folder / "elsewhere-resharded",
        "one byte changed": folder / "one-byte-changed",
    }
    for p in paths.values():
        p.mkdir(parents=True, exist_ok=True)
    original, resharded, edited = paths.values()
    (original / "model.safetensors").write_bytes(safetensors_bytes({"layers.0.w": layer0, "layers.1.w": layer1}))
    (original / "config.json").write_text('{"hidden_size": 64}', encoding="utf-8")
    (resharded / "model-00001-of-00002.safetensors").write_bytes(
        safetensors_bytes({"layers.1.w": layer1}, metadata={"format": "pt"})
    )
    (resharded / "model-00002-of-00002.safetensors").write_bytes(safetensors_bytes({"layers.0.w": layer0}))
    (resharded / "training_args.bin").write_bytes(b"not weights: never opened")
    for f in resharded.iterdir():
        os.utime(f, (0, 0))
    (edited / "model.safetensors").write_bytes(
        safetensors_bytes({"layers.0.w": layer0, "layers.1.w": ("U8", [tensor_bytes], bytes(changed))})
    )
    return paths


def register_on_each_checkpoint(
    adapter: Any, digests: Mapping[str, str], *, base_model: str = "tiny-llama-demo"
) -> tuple[dict[str, str], str]:
    """Register ``adapter`` on a fresh registry serving each checkpoint of ``digests``; return outcomes and a refusal.

    Returns ``({checkpoint: "registered" | "refused: <error>"}, the last refusal's message)``.
    """
    outcomes: dict[str, str] = {}
    message = ""
    for key in DEMO_CHECKPOINTS:
        registry = AdapterRegistry()
        registry.register_base(base_model, digests[key])  # the checkpoint this server loaded
        try:
            registry.register(adapter)
            outcomes[key] = "registered"
        except BaseDigestMismatchError as error:
            outcomes[key] = f"refused: {type(error).__name__}"
            message = str(error)
    return outcomes, message


def checkpoint_rows(results: DemoResults) -> list[dict[str, Any]]:
    """Return one row per demo checkpoint: how it was made, how far it moved, what base and adapter scored."""
    det, setup = results.deterministic, results["setup"]
    made = {
        "A": f"pretrained {setup['pretrain_steps']} steps, seed {setup['seeds']['A']}",
        "B_prime_same_task": f"A + {setup['continue_steps']} more steps of the same copy task",
        "B_prime_new_task": f"A + {setup['update_steps']} steps of copy mixed with a new task",
        "B": f"pretrained {setup['pretrain_steps']} steps, seed {setup['seeds']['B']}",
    }
    rows = []
    for key in DEMO_CHECKPOINTS:
        m = det["metrics"][key]
        rows.append(
            {
                "checkpoint": key,
                "made": made[key],
                "moved": f"{det['weight_change'][key]:.0%}",
                "base": f"{m['base_copy_exact_match']:.2f}",
                "adapter": f"{m['adapter_atbash_exact_match']:.2f}",
                "raised": "no" if m["load_raised"] is None else str(m["load_raised"]),
                "registry": det["registry"][key],
            }
        )
    return rows
