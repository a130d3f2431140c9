"""Run the course's launch commands through each engine's own argument parser at its release (make engines).

For each engine of :data:`labcore.engines.releases.RELEASES`: a virtual environment of its own under
``--cache`` with the released engine installed from PyPI (``pip install vllm==0.33.0``: about 9.5 GB with its
CUDA torch, once; the parser imports on this CPU-only machine with ``VLLM_TARGET_DEVICE=cpu``), then
``scripts/engine_parser_child.py`` in that environment parses every command of
:func:`labcore.engines.parser_record.sample_commands`, and the verdicts are written to
``labcore/data/engines/parsed/<engine>-<version>-<date>.json``. Exits 1 if the engine refused any command.

Run: ``python scripts/engine_parsers.py --cache ~/.cache/labcore-engines [--engines vllm sglang]``
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import venv
from pathlib import Path

from labcore.engines.parser_record import command_key, control_command, sample_commands
from labcore.engines.releases import RELEASES

ROOT = Path(__file__).resolve().parent.parent
CHILD = ROOT / "scripts" / "engine_parser_child.py"
OUT = ROOT / "labcore" / "data" / "engines" / "parsed"


def engine_python(engine: str, cache: Path) -> Path:
    """Return the Python of ``engine``'s own environment, creating it and installing the release once."""
    version = RELEASES[engine]
    home = cache / f"venv-{engine}-{version}"
    python = home / "bin" / "python"
    stamp = home / ".installed"
    if not stamp.exists():
        print(f"installing {engine}=={version} into {home} (once; several GB)", flush=True)
        venv.EnvBuilder(with_pip=True, clear=True).create(home)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--progress-bar", "off", f"{engine}=={version}"],
            check=True,
        )
        stamp.write_text(f"{engine}=={version}\n", encoding="utf-8")
    return python


def parse_all(engine: str, python: Path) -> dict[str, dict]:
    """Return each sampled command's verdict from the engine's parser, keyed by :func:`command_key`.

    The control (:func:`~labcore.engines.parser_record.control_command`, a rank the engine does not take) is
    parsed too and must be refused: a parser that accepts everything proves nothing.
    """
    sample = sample_commands(engine)
    commands = [*sample, control_command(engine, sample[0])]
    # HF_HUB_OFFLINE would make vLLM's EngineArgs look the model up in the local Hub cache (arg_utils.py
    # __post_init__, get_model_path); without it nothing is fetched while the arguments are only parsed and built.
    env = {k: v for k, v in os.environ.items() if k != "HF_HUB_OFFLINE"} | {"VLLM_TARGET_DEVICE": "cpu"}
    done = subprocess.run(
        [str(python), str(CHILD), engine],
        input=json.dumps(commands),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    lines = done.stdout.splitlines()
    if done.returncode != 0 or len(lines) != len(commands):
        sys.stderr.write(done.stderr[-4000:])
        raise SystemExit(
            f"{engine}: the parser run gave {len(lines)} verdicts for {len(commands)} commands (exit {done.returncode})"
        )
    return {command_key(c): json.loads(line) | {"case": c["case"]} for c, line in zip(commands, lines, strict=True)}


def main(argv: list[str] | None = None) -> int:
    """Parse the commands with every requested engine and write one record per release."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True, help="where the engines' environments live")
    parser.add_argument("--engines", nargs="+", default=sorted(RELEASES), choices=sorted(RELEASES))
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    refused = 0
    for engine in args.engines:
        verdicts = parse_all(engine, engine_python(engine, args.cache))
        date = datetime.datetime.now(datetime.UTC).date().isoformat()
        path = args.out / f"{engine}-{RELEASES[engine]}-{date}.json"
        record = {
            "engine": engine,
            "version": RELEASES[engine],
            "date": date,
            "parser": "scripts/engine_parser_child.py",
            "verdicts": verdicts,
        }
        path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        control_key = next(k for k, v in verdicts.items() if v["case"].get("control"))
        control = verdicts[control_key]
        if control["ok"]:
            raise SystemExit(f"{engine}: the parser accepted the control command; it checks nothing")
        bad = [k for k, v in verdicts.items() if not v["ok"] and k != control_key]
        refused += len(bad)
        print(
            f"{engine} {RELEASES[engine]}: {len(verdicts) - 1 - len(bad)} of {len(verdicts) - 1} commands accepted, "
            f"the control refused ({control['error']}) -> {path}"
        )
        for key in bad[:5]:
            print(f"  refused: {key}\n    {verdicts[key]['error']}")
    return 1 if refused else 0


if __name__ == "__main__":
    raise SystemExit(main())
