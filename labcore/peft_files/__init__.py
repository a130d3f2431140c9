"""Read a PEFT LoRA adapter directory with the standard library only: no torch, no unpickling.

A PEFT adapter directory holds ``adapter_config.json`` (rank, alpha, target modules, the base it
*names*) and ``adapter_model.safetensors``. A safetensors file is an 8-byte little-endian header
length ``N``, ``N`` bytes of JSON (dtype, shape and ``[begin, end)`` data offsets per tensor), then
the raw tensor bytes. Everything needed to size an adapter is in the header, so this package reads
only ``8 + N`` bytes of the weights file, whatever its size, and treats every byte as untrusted.

Every LoraConfig variant PEFT 0.21 writes is read exactly or refused by name: targets given as
``all-linear``, suffixes or a regex are matched as PEFT matches them; each :class:`LoraModule`
carries its own rank and scaling (``rank_pattern``, ``alpha_pattern``, ``use_rslora``), embeddings
included; every tensor gets a role (:data:`TENSOR_ROLES`: low-rank pairs, DoRA magnitudes, trained
biases, full module copies, trainable tokens) whose bytes are reported apart, and
:meth:`PeftAdapterFiles.serving_bytes` says which roles a size includes. MoE ``target_parameters``
and the other options in :data:`UNSUPPORTED_FEATURES` are refused. :func:`variant_table` sums it up.

One module per job: :mod:`~labcore.peft_files.safetensors_header` reads the weights file's header,
:mod:`~labcore.peft_files.peft_config` holds PEFT's ``adapter_config.json`` rules,
:mod:`~labcore.peft_files.tensors` gives every tensor its role, :mod:`~labcore.peft_files.directory`
reads a whole adapter directory, and :mod:`~labcore.peft_files.variants` tabulates the variants.

>>> import json, pathlib, struct, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "adapter_config.json").write_text(json.dumps({"peft_type": "LORA", "r": 2,
...     "lora_alpha": 4, "target_modules": ["q_proj"], "base_model_name_or_path": "tiny"}))
>>> header = {"m.layers.0.q_proj.lora_A.weight": {"dtype": "F32", "shape": [2, 8], "data_offsets": [0, 64]},
...           "m.layers.0.q_proj.lora_B.weight": {"dtype": "F32", "shape": [8, 2], "data_offsets": [64, 128]}}
>>> raw = json.dumps(header).encode()
>>> _ = (d / "adapter_model.safetensors").write_bytes(struct.pack("<Q", len(raw)) + raw + bytes(128))
>>> files = read_peft_adapter(d)
>>> files.rank, files.lora_alpha, files.target_names, files.param_count, files.tensor_bytes
(2, 4, ('q_proj',), 32, 128)
>>> files.serving_bytes("bf16")
64
"""

from __future__ import annotations

from ..errors import AdapterFileError, UnsafeAdapterFormatError
from .directory import (
    ADAPTER_WEIGHTS_NAME,
    PICKLE_WEIGHTS_NAMES,
    SERVING_DTYPE_BYTES,
    PeftAdapterFiles,
    adapter_from_dir,
    read_peft_adapter,
)
from .peft_config import ADAPTER_CONFIG_NAME, UNSUPPORTED_FEATURES, is_targeted, module_rank_and_alpha
from .safetensors_header import (
    MAX_HEADER_BYTES,
    SAFETENSORS_DTYPE_BYTES,
    SafetensorsHeader,
    TensorInfo,
    read_safetensors_header,
    safetensors_bytes,
)
from .tensors import LOW_RANK_ROLES, TENSOR_ROLES, LoraModule
from .variants import VariantRow, variant_table

__all__ = [
    "ADAPTER_CONFIG_NAME",
    "ADAPTER_WEIGHTS_NAME",
    "PICKLE_WEIGHTS_NAMES",
    "SAFETENSORS_DTYPE_BYTES",
    "SERVING_DTYPE_BYTES",
    "MAX_HEADER_BYTES",
    "AdapterFileError",
    "UnsafeAdapterFormatError",
    "TensorInfo",
    "SafetensorsHeader",
    "TENSOR_ROLES",
    "LOW_RANK_ROLES",
    "UNSUPPORTED_FEATURES",
    "LoraModule",
    "PeftAdapterFiles",
    "is_targeted",
    "module_rank_and_alpha",
    "VariantRow",
    "variant_table",
    "read_safetensors_header",
    "safetensors_bytes",
    "read_peft_adapter",
    "adapter_from_dir",
]
