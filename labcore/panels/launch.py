"""A panel of launch commands: ``vllm serve`` and SGLang for your model, GPU, tenants, rank, context and targets.

Each state's two commands come from :func:`labcore.engines.launch_commands` (one flag per line, ready to
copy), with what every flag costs in memory and the engine's default for it; the chart and the readout
come from :func:`labcore.engines.serving_plan`: the sequences of the chosen context length that fit once
the weights and the LoRA slot buffers are in.

>>> row = launch_panel().row()        # Llama-3.1-8B on an H100, 40 tenants, rank 16 on q,v, 8,192 tokens
>>> row["vllm_command"].splitlines()[:2]
['vllm serve meta-llama/Llama-3.1-8B \\\\', '  --enable-lora \\\\']
>>> row["vllm_sequences"], row["sglang_sequences"]
(56, 56)
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from ..capacity import COURSE
from ..engines import LaunchCommand, PlanInputs, fit_options, serving_plan
from ..engines.launch import host_adapter_bytes
from ..plots import OKABE_ITO
from ._panel import Control, Lines, Panel, Series, Text

__all__ = ["LAUNCH_TARGETS", "command_text", "costs_text", "launch_panel"]

LAUNCH_MODELS: tuple[str, ...] = ("llama-3.1-8b", "qwen2.5-7b", "mistral-7b", "gemma-2-9b", "qwen3-14b")
LAUNCH_GPUS: tuple[str, ...] = ("L4-24GB", "A100-80GB", "H100-80GB", "H200-141GB")
LAUNCH_TENANTS: tuple[int, ...] = (4, 40)
LAUNCH_RANKS: tuple[int, ...] = (8, 16, 32, 64)
LAUNCH_CONTEXTS: tuple[int, ...] = (4096, 8192, 32768)
#: The target-module choices: PEFT's names, or None for every module the engine supports.
LAUNCH_TARGETS: Mapping[str, tuple[str, ...] | None] = {"q,v": ("q_proj", "v_proj"), "all": None}
#: The share of the driver-reported memory the commands give the engine (--gpu-memory-utilization, --mem-fraction-static).
MEMORY_FRACTION = COURSE.memory_fraction  # the engine's share of the GPU: labcore.capacity's one value


def command_text(cmd: LaunchCommand) -> str:
    """Return ``cmd`` as a shell command with one flag per line (backslash continuations), ready to paste.

    Its environment comes first, its notes last, as comment lines.

    >>> from labcore.engines import launch_commands
    >>> inputs = PlanInputs(model="llama-3-8b", gpu="L4-24GB", tenants=2, rank=8, context_tokens=2048)
    >>> print(command_text(launch_commands(inputs)["vllm"]))
    vllm serve meta-llama/Meta-Llama-3-8B \\
      --enable-lora \\
      --max-loras 2 \\
      --max-lora-rank 8 \\
      --max-cpu-loras 2 \\
      --lora-modules tenant-01=/adapters/tenant-01 tenant-02=/adapters/tenant-02 \\
      --gpu-memory-utilization 0.9 \\
      --max-model-len 2048
    """
    lines = [f"{name}={shlex.quote(value)}" for name, value in cmd.env] + [shlex.join(cmd.program)]
    lines += ["  " + shlex.join([f.flag, *(f.value.split(" ") if f.value else [])]) for f in cmd.flags]
    return " \\\n".join(lines) + "".join(f"\n# {note.strip()}" for note in cmd.notes)


def costs_text(cmd: LaunchCommand) -> str:
    """Return one line per flag of ``cmd`` that costs memory: the flag, its value, what it costs.

    The engines' defaults do not change with the state: the page lists them once, with their sources
    (:data:`labcore.engines.FLAG_DEFAULTS`).
    """
    per = {"--max-model-len": " a sequence", "--context-length": " a sequence"}
    return "\n".join(
        f"{f.flag} {f.value}: {f.cost_mib:,.0f} MiB {'GPU' if f.memory == 'gpu' else 'host'}{per.get(f.flag, '')}"
        for f in cmd.flags
        if f.cost_mib is not None
    )


def _launch_state(rank: int, model: str, gpu: str, tenants: int, context_tokens: int, targets: str) -> dict[str, Any]:
    inputs = PlanInputs(
        model=model,
        gpu=gpu,
        tenants=tenants,
        rank=rank,
        context_tokens=context_tokens,
        target_modules=LAUNCH_TARGETS[targets],
        memory_fraction=MEMORY_FRACTION,
    )
    vllm, sglang = serving_plan(inputs)
    if vllm.command is None or sglang.command is None:
        short = max(vllm.short_mib, sglang.short_mib)
        options = fit_options(inputs)
        why = (
            f"no command: the weights, the slot buffers and one sequence exceed the engine's share by {short:,.0f} "
            "MiB. What would fit, one change at a time:\n" + "\n".join(f"- {o}" for o in options)
        )
        commands = {"vllm_command": why, "sglang_command": why, "costs": why}
    else:
        commands = {
            "vllm_command": command_text(vllm.command),
            "sglang_command": command_text(sglang.command),
            "costs": "vLLM\n" + costs_text(vllm.command) + "\nSGLang\n" + costs_text(sglang.command),
        }
    host = host_adapter_bytes(model, tenants=tenants, rank=rank, target_modules=LAUNCH_TARGETS[targets]) / 2**20
    return {
        "usable_gib": vllm.usable_mib / 1024,
        "base_gib": vllm.base_mib / 1024,
        "vllm_lora_mib": vllm.lora_mib,
        "sglang_lora_mib": sglang.lora_mib,
        "host_mib": host,
        "vllm_sequences": vllm.sequences,
        "sglang_sequences": sglang.sequences,
        "vllm_plot": vllm.sequences or None,
        "sglang_plot": sglang.sequences or None,  # a log axis has no zero
        **commands,
    }


def _launch_readout(r: Any) -> str:
    head = f"{r['model']} on {r['gpu']}: {r['usable_gib']:,.1f} GiB, {100 * MEMORY_FRACTION:g}% used"
    slots = (
        f"base {r['base_gib']:,.1f} GiB; slots vLLM {r['vllm_lora_mib']:,.0f}, SGLang {r['sglang_lora_mib']:,.0f} MiB"
    )
    host = f"{r['tenants']} adapters in host memory: {r['host_mib']:,.0f} MiB"
    if not r["vllm_sequences"] and not r["sglang_sequences"]:
        return (
            f"{head}\n{slots}\nno room for one sequence of {r['context_tokens']:,} tokens:\n"
            "a bigger GPU, a shorter context or a smaller model"
        )
    return (
        f"{head}\n{slots}\n"
        f"KV: vLLM {r['vllm_sequences']:,}, SGLang {r['sglang_sequences']:,} sequences of "
        f"{r['context_tokens']:,}\n{host}"
    )


def launch_panel() -> Panel:
    """Write both engines' launch commands for a model, GPU, tenants, rank, context and targets (fleet calculator)."""
    return Panel(
        "launch_panel",
        title="Your launch commands: what the LoRA flags cost the KV cache",
        controls=[
            Control("rank", "max LoRA rank", values=LAUNCH_RANKS, default=16),
            Control("model", "base model (bf16)", values=LAUNCH_MODELS, default="llama-3.1-8b"),
            Control("gpu", "GPU", values=LAUNCH_GPUS, default="H100-80GB"),
            Control("tenants", "tenants (adapters)", values=LAUNCH_TENANTS, default=40),
            Control("context_tokens", "max context length (tokens)", values=LAUNCH_CONTEXTS, default=8192),
            Control(
                "targets",
                "target modules",
                values=tuple(LAUNCH_TARGETS),
                default="q,v",
                labels=("q and v", "all the engine supports"),
            ),
        ],
        compute=_launch_state,
        readout=_launch_readout,
        chart=Lines(
            "rank",
            (
                Series("vllm_plot", "vLLM", OKABE_ITO["blue"]),
                Series("sglang_plot", "SGLang", OKABE_ITO["orange"], dashed=True),
            ),
            y_title="sequences that fit at this context (log)",
            x_log=True,
            y_log=True,
            y_domain=(1, 2_000),
            x_title="max LoRA rank (log)",
        ),
        texts=[
            Text("vllm_command", "vLLM: vllm serve", copy=True),
            Text("sglang_command", "SGLang: sglang.launch_server", copy=True),
            Text("costs", "What each flag costs in memory"),
        ],
    )
