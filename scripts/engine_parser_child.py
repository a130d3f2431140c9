"""Parse launch commands with an engine's own argument parser, inside that engine's environment (make engines).

Run by ``scripts/engine_parsers.py`` with the Python of a virtual environment that has the released engine
installed (nothing of the course is imported here: only the engine and the standard library). Reads a JSON
list of commands on stdin, each ``{"env": {NAME: VALUE}, "argv": [...]}`` as :mod:`labcore.engines.launch`
prints them, and writes one JSON verdict per command to stdout::

    {"ok": true, "error": "", "parsed": {"max_loras": 8, ...}}

vLLM: the ``vllm`` program's parser with its ``serve`` subcommand (``vllm/entrypoints/cli/main.py``,
``serve.py``: ``make_arg_parser`` of ``vllm/entrypoints/common/cli_args.py``) and its ``validate``, then
``AsyncEngineArgs.from_cli_args`` and the ``LoRAConfig`` the engine builds from those arguments (its checks,
e.g. ``max_cpu_loras >= max_loras``), then every environment variable of the command looked up in
``vllm/envs.py`` and every ``VLLM_PLUGINS`` name in vLLM's ``vllm.general_plugins`` entry points.
SGLang: ``sglang.launch_server``'s parser (``ServerArgs.add_cli_args``), ``ServerArgs.from_cli_args`` and the LoRA
checks of its resolution pipeline (``check_lora_server_args``, ``sglang/srt/arg_groups/lora_hook.py``).

Usage: ``<engine-venv>/bin/python scripts/engine_parser_child.py vllm < commands.json``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from importlib import metadata
from typing import Any

#: the argument-parser fields each verdict reports (the ones the course's commands set)
REPORTED = (
    "max_loras",
    "max_lora_rank",
    "max_cpu_loras",
    "lora_target_modules",
    "lora_modules",
    "gpu_memory_utilization",
    "max_model_len",
    "tensor_parallel_size",
    "enable_lora",
    "max_loras_per_batch",
    "max_loaded_loras",
    "lora_paths",
    "mem_fraction_static",
    "context_length",
    "tp_size",
    "model_path",
    "model",
    "model_tag",
)


def _plain(value: Any) -> Any:
    """Return ``value`` as JSON can hold it (objects as their repr)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple | set):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return repr(value)


def _parse(parser: argparse.ArgumentParser, words: list[str]) -> argparse.Namespace:
    """Parse ``words``; an argparse refusal becomes a ValueError holding the parser's own message."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            return parser.parse_args(words)
    except SystemExit as exc:
        lines = [line for line in err.getvalue().splitlines() if "error:" in line]
        raise ValueError(lines[-1] if lines else f"argparse exited with {exc.code}") from None


def vllm_verdict(command: dict[str, Any]) -> dict[str, Any]:
    """Parse one ``vllm serve`` command as the ``vllm`` program does, then build its engine and LoRA config."""
    # optional: each engine is installed only in its own environment (scripts/engine_parsers.py)
    from vllm import envs
    from vllm.config.lora import LoRAConfig
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.entrypoints.cli.serve import ServeSubcommand
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    argv = command["argv"]
    if argv[:2] != ["vllm", "serve"]:
        raise ValueError(f"not a vllm serve command: {argv[:2]}")
    # the parser vllm/entrypoints/cli/main.py builds: a `serve` subparser from ServeSubcommand.subparser_init
    serve = ServeSubcommand()
    parser = FlexibleArgumentParser(description="vLLM CLI")
    serve.subparser_init(parser.add_subparsers(required=False, dest="subparser"))
    ns = _parse(parser, argv[1:])
    serve.validate(ns)  # validate_parsed_serve_args, as main() calls it
    if ns.model_tag is not None:  # ServeSubcommand.cmd: the positional model takes precedence
        ns.model = ns.model_tag
    args = AsyncEngineArgs.from_cli_args(ns)
    if args.model != argv[2]:
        raise ValueError(f"vLLM would serve {args.model!r}, not {argv[2]!r}")
    # the LoRAConfig EngineArgs.create_engine_config builds from these fields (vllm/engine/arg_utils.py)
    LoRAConfig(
        max_lora_rank=args.max_lora_rank,
        max_loras=args.max_loras,
        target_modules=args.lora_target_modules,
        max_cpu_loras=args.max_cpu_loras if args.max_cpu_loras and args.max_cpu_loras > 0 else None,
    )
    plugins = {ep.name for ep in metadata.entry_points(group="vllm.general_plugins")}
    for name, value in command["env"].items():
        if name not in envs.environment_variables:
            raise ValueError(f"vllm/envs.py reads no environment variable {name}")
        if name == "VLLM_PLUGINS":
            missing = sorted(set(value.split(",")) - plugins)
            if missing:
                raise ValueError(f"VLLM_PLUGINS names {missing}, not among vLLM's general plugins {sorted(plugins)}")
    return {k: _plain(getattr(ns, k)) for k in REPORTED if hasattr(ns, k)}


def sglang_verdict(command: dict[str, Any]) -> dict[str, Any]:
    """Parse one ``python -m sglang.launch_server`` command with SGLang's parser and run its LoRA argument checks."""
    # optional: each engine is installed only in its own environment (scripts/engine_parsers.py)
    from sglang.srt.arg_groups.lora_hook import check_lora_server_args
    from sglang.srt.server_args import ServerArgs

    argv = command["argv"]
    if argv[:3] != ["python", "-m", "sglang.launch_server"]:
        raise ValueError(f"not an sglang.launch_server command: {argv[:3]}")
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    ns = _parse(parser, argv[3:])
    # the LoRA step of the resolution pipeline (sglang/srt/arg_groups/lora_hook.py): --max-loaded-loras at least
    # --max-loras-per-batch and the --lora-paths count, 'all' alone, a rank and modules when no paths are given
    check_lora_server_args(ServerArgs.from_cli_args(ns))
    if command["env"]:
        raise ValueError(f"the SGLang command sets no environment, got {sorted(command['env'])}")
    return {k: _plain(getattr(ns, k)) for k in REPORTED if hasattr(ns, k)}


VERDICTS = {"vllm": vllm_verdict, "sglang": sglang_verdict}


def main() -> int:
    """Read the commands on stdin, write one verdict line per command on stdout."""
    engine = sys.argv[1]
    commands = json.load(sys.stdin)
    out = sys.stdout
    sys.stdout = sys.stderr  # the engines log on import; keep stdout for the verdicts
    for command in commands:
        try:
            verdict = {"ok": True, "error": "", "parsed": VERDICTS[engine](command)}
        except Exception as exc:  # a refusal of any kind is the verdict, recorded with its message
            verdict = {"ok": False, "error": f"{type(exc).__name__}: {exc}", "parsed": {}}
        out.write(json.dumps(verdict) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")  # no GPU here: vLLM's CPU platform lets its config build
    raise SystemExit(main())
