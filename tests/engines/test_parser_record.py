"""Every launch command the course prints was accepted by the engine's own parser at the cited release.

The record is written by ``make engines`` (``scripts/engine_parsers.py``: the released engine installed in an
environment of its own, its own ``vllm serve`` / ``sglang.launch_server`` parser run on each command). These
tests re-create today's commands and look each one up: a command that changed since the record was written
fails here until ``make engines`` runs again, and the record must show the parser refusing its control.
"""

from __future__ import annotations

import pytest

from labcore.engines.parser_record import command_key, control_command, parser_record, sample_commands
from labcore.engines.releases import RELEASES

ENGINES = sorted(RELEASES)
#: flag -> the field of the engine's parsed arguments that holds it
FIELDS = {
    "vllm": {
        "--max-loras": "max_loras",
        "--max-lora-rank": "max_lora_rank",
        "--max-cpu-loras": "max_cpu_loras",
        "--gpu-memory-utilization": "gpu_memory_utilization",
        "--max-model-len": "max_model_len",
        "--tensor-parallel-size": "tensor_parallel_size",
        "--lora-target-modules": "lora_target_modules",
    },
    "sglang": {
        "--max-loras-per-batch": "max_loras_per_batch",
        "--max-lora-rank": "max_lora_rank",
        "--max-loaded-loras": "max_loaded_loras",
        "--mem-fraction-static": "mem_fraction_static",
        "--context-length": "context_length",
        "--tp-size": "tp_size",
        "--lora-target-modules": "lora_target_modules",
        "--model-path": "model_path",
    },
}


def _flag_values(argv: list[str]) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    flag = None
    for word in argv:
        if word.startswith("--"):
            flag = word
            values[flag] = []
        elif flag is not None:
            values[flag].append(word)
    return values


@pytest.fixture(scope="module", params=ENGINES)
def engine_record(request: pytest.FixtureRequest) -> tuple[str, dict, list[dict]]:
    """The engine, its committed record, and the commands the course prints today (computed once: ~8 s)."""
    return request.param, parser_record(request.param), sample_commands(request.param)


def test_the_record_is_at_the_cited_release(engine_record: tuple[str, dict, list[dict]]) -> None:
    engine, record, _ = engine_record
    assert (record["engine"], record["version"]) == (engine, RELEASES[engine])


def test_every_printed_command_was_accepted(engine_record: tuple[str, dict, list[dict]]) -> None:
    engine, record, commands = engine_record
    missing = [command_key(c) for c in commands if command_key(c) not in record["verdicts"]]
    assert not missing, (
        f"{len(missing)} of {len(commands)} {engine} commands were never parsed by {engine} "
        f"{RELEASES[engine]} (run make engines); first: {missing[0]}"
    )
    refused = {
        command_key(c): record["verdicts"][command_key(c)]["error"]
        for c in commands
        if not record["verdicts"][command_key(c)]["ok"]
    }
    assert not refused, f"{engine} refused {len(refused)} commands: {next(iter(refused.items()))}"


def test_the_engine_read_each_flag_as_the_course_meant(engine_record: tuple[str, dict, list[dict]]) -> None:
    engine, record, commands = engine_record
    checked = 0
    for command in commands:
        parsed = record["verdicts"][command_key(command)]["parsed"]
        for flag, words in _flag_values(command["argv"]).items():
            field = FIELDS[engine].get(flag)
            if field is None:
                continue
            got = parsed[field]
            meant = words if flag == "--lora-target-modules" else words[0]
            assert (got if isinstance(got, list) else str(got)) == meant or float(got) == float(meant), (
                f"{engine} read {flag} {meant} as {field}={got!r} in {command_key(command)}"
            )
            checked += 1
    assert checked > 5 * len(record["verdicts"]) // 2


def test_the_parser_refused_its_control(engine_record: tuple[str, dict, list[dict]]) -> None:
    engine, record, commands = engine_record
    control = record["verdicts"][command_key(control_command(engine, commands[0]))]
    assert not control["ok"] and "--max-lora-rank" in control["error"], control
