"""What each engine's own argument parser said of the course's launch commands, at the release the course cites.

``make engines`` (``scripts/engine_parsers.py``) installs each released engine in an environment of its own,
hands it :func:`sample_commands` (the command ``python -m labcore plan`` prints for every shipped model with a
Hub id on every GPU, for each adapter route: :data:`SAMPLE_ROUTES`), and writes the verdicts into
``labcore/data/engines/parsed/<engine>-<version>-<date>.json``. ``make test`` then checks that every command
the course prints today is in that record and was accepted, so a change to :mod:`labcore.engines.launch` that
the engine would refuse, or that nobody re-checked, fails until ``make engines`` is run again.

>>> command_key({"env": {}, "argv": ["vllm", "serve", "meta-llama/Llama-3.1-8B", "--enable-lora"]})
'vllm serve meta-llama/Llama-3.1-8B --enable-lora'
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from importlib.resources.abc import Traversable
from typing import Any

from .._validate import choice
from ..gpus import known_gpus
from ..model_config.config import known_models
from .adapters import adapter_loading
from .inputs import PlanInputs, served_name
from .plan import fit_options, serving_plan
from .releases import RELEASES, release_file

__all__ = [
    "SAMPLE_ROUTES",
    "SAMPLE_TENANTS",
    "SAMPLE_CONTEXT",
    "sample_commands",
    "parser_record_path",
    "parser_record",
    "command_key",
    "control_command",
]

#: The plan's inputs the sample varies besides the model and the GPU: each adapter route once, with a rank vLLM
#: takes as it is (16) and one it rounds up (24 -> 32), all supported modules and ``q_proj``/``v_proj``.
SAMPLE_ROUTES: tuple[tuple[str, tuple[str, ...] | None, int], ...] = (
    ("static", None, 16),
    ("resolver", ("q_proj", "v_proj"), 24),
    ("runtime", None, 24),
)
SAMPLE_TENANTS = 4
SAMPLE_CONTEXT = 8192
_FOLDER = "data/engines/parsed"


def _cases() -> Iterator[tuple[dict[str, Any], PlanInputs]]:
    """Yield each command ``python -m labcore plan`` prints over the shipped models and GPUs: its case and inputs.

    A plan that does not fit one GPU is taken at the tensor-parallel size :func:`fit_options` proposes first;
    one that fits in no way prints no command and is left out, as the plan leaves it out.
    """
    for model in known_models():
        if served_name(model) is None:
            continue
        for gpu in known_gpus():
            for mode, targets, rank in SAMPLE_ROUTES:
                inputs = PlanInputs(
                    model=model,
                    gpu=gpu,
                    tenants=SAMPLE_TENANTS,
                    rank=rank,
                    context_tokens=SAMPLE_CONTEXT,
                    target_modules=targets,
                )
                if not all(p.fits for p in serving_plan(inputs)):
                    first = fit_options(inputs)[0]
                    if "--tp " not in first:
                        continue
                    inputs = replace(inputs, tp=int(first.split("--tp ")[1].split(":")[0]))
                case = {"model": model, "gpu": gpu, "mode": mode, "rank": rank, "tp": inputs.tp, "targets": targets}
                yield case, inputs


def sample_commands(engine: str) -> list[dict[str, Any]]:
    """Return ``engine``'s printed command for every sampled plan, as ``{"case", "env", "argv"}`` dicts."""
    choice("engine", engine, sorted(RELEASES))
    out = []
    for case, inputs in _cases():
        plans = serving_plan(inputs, adapters=adapter_loading(case["mode"], SAMPLE_TENANTS))
        cmd = next(p.command for p in plans if p.engine == engine)
        if cmd is None:
            continue
        out.append(
            {"case": {**case, "targets": list(case["targets"] or [])}, "env": dict(cmd.env), "argv": list(cmd.argv)}
        )
    return out


def control_command(engine: str, command: dict[str, Any]) -> dict[str, Any]:
    """Return ``command`` with a rank its engine must refuse (vLLM allows 16 or 32, not 24; SGLang's is an int).

    >>> control_command("vllm", {"env": {}, "argv": ["vllm", "serve", "m", "--max-lora-rank", "16"]})["argv"]
    ['vllm', 'serve', 'm', '--max-lora-rank', '24']
    """
    argv = list(command["argv"])
    argv[argv.index("--max-lora-rank") + 1] = "24" if engine == "vllm" else "r24"
    return {"case": {"control": True}, "env": dict(command["env"]), "argv": argv}


def command_key(command: dict[str, Any]) -> str:
    """Return one command as the record keys it: its environment and words on one line.

    >>> command_key({"env": {"A": "1"}, "argv": ["vllm", "serve", "m"]})
    'A=1 vllm serve m'
    """
    return " ".join([*(f"{k}={v}" for k, v in sorted(command["env"].items())), *command["argv"]])


def parser_record_path(engine: str) -> Traversable:
    """Return the newest committed record for ``engine`` at the cited release.

    >>> parser_record_path("vllm").name.startswith(f"vllm-{RELEASES['vllm']}-")
    True
    """
    return release_file(engine, _FOLDER, versions=RELEASES)


def parser_record(engine: str) -> dict[str, Any]:
    """Return the committed record: ``{"engine", "version", "date", "verdicts": {command_key: verdict}}``."""
    return json.loads(parser_record_path(engine).read_text(encoding="utf-8"))
