"""Save a benchmark's rows to ``results/benchmarks/<name>.json``, with the machine and the date, and read them back.

Every benchmark reports ratios against a peer timed in the same run (the machines here are shared and noisy: the
ratio is the stable part, the absolute times are not), so a row is one measure beside its peer, in one unit:

>>> row = Row("cache hit, 10 resident", 52.0, "ns", peer="cachetools.LRUCache hit", peer_result=65.0)
>>> round(row.ratio, 2)
0.8

``--save`` (``add_save_flag``) makes a benchmark call ``save`` at its end; ``python -m benchmarks.table`` turns the
saved files into the README's table.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "results" / "benchmarks"

__all__ = ["RESULTS_DIR", "Row", "add_save_flag", "load", "machine", "save", "save_if_asked"]


@dataclass(frozen=True, slots=True)
class Row:
    """One measure and its peer from the same run, both in ``unit``; ``goal`` says what the course aims for."""

    case: str
    result: float
    unit: str
    peer: str
    peer_result: float
    goal: str = ""

    def __post_init__(self) -> None:
        for name in ("result", "peer_result"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not value > 0:
                raise ValueError(f"Row {self.case!r}: {name} must be a positive number, got {value!r}")

    @property
    def ratio(self) -> float:
        """Return the measure over its peer's."""
        return self.result / self.peer_result


def machine() -> dict[str, Any]:
    """Return what the numbers depend on: the number of cores, the CPU's model, the OS and the Python."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "cores": os.cpu_count(),
        "cpu": model,
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
    }


def _commit() -> str:
    """Return the short commit the tree was at, with ``+changes`` when the tracked files differ from it, or ''."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = (
            subprocess.run(
                ["git", "-C", str(ROOT), "diff", "--quiet", "HEAD", "--", "labcore", "coursebuild", "benchmarks"],
                check=False,
            ).returncode
            != 0
        )
    except (OSError, subprocess.CalledProcessError):
        return ""
    return head + ("+changes" if dirty else "")


def save(name: str, rows: list[Row], *, measure: str, command: str, folder: Path = RESULTS_DIR) -> Path:
    """Write ``folder/<name>.json``: what was measured, the command, the machine, the date (UTC) and the rows."""
    if not rows:
        raise ValueError(f"benchmark {name!r}: no rows to save")
    record = {
        "benchmark": name,
        "measure": measure,
        "command": command,
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "commit": _commit(),
        "machine": machine(),
        "rows": [asdict(row) for row in rows],
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return path


def load(folder: Path = RESULTS_DIR) -> dict[str, dict[str, Any]]:
    """Return every saved record in ``folder`` by benchmark name, its rows as ``Row`` values."""
    records = {}
    for path in sorted(folder.glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if record.get("benchmark") != path.stem:
            raise ValueError(f"{path} names benchmark {record.get('benchmark')!r}, not {path.stem!r}")
        record["rows"] = [Row(**row) for row in record["rows"]]
        records[path.stem] = record
    return records


def add_save_flag(parser: argparse.ArgumentParser) -> None:
    """Give a benchmark's command line ``--save``."""
    parser.add_argument(
        "--save",
        action="store_true",
        help=f"also write the rows, the machine and the date to {RESULTS_DIR.relative_to(ROOT)}/",
    )


def save_if_asked(args: argparse.Namespace, name: str, rows: list[Row], *, measure: str) -> None:
    """Save the rows when the command line asked for it (``--save``), with the command as it was run, and say where."""
    if args.save:
        path = save(name, rows, measure=measure, command=" ".join(["python -m benchmarks." + name, *sys.argv[1:]]))
        print(f"saved {path.relative_to(ROOT)}")
