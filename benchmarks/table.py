"""Write the README's benchmarks table from the saved results: python -m benchmarks.table [--check]

The table lies between the two marker comments below in ``README.md``; this module owns everything between them.
Each ``benchmarks/bench_*.py`` gets its saved rows (``results/benchmarks/<name>.json``, written by its ``--save``),
or one row saying it is not recorded yet and the command that records it. ``--check`` writes nothing and fails when
the README's table is not what the saved files give.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import Any

from benchmarks.results import RESULTS_DIR, ROOT, load

README = ROOT / "README.md"
BENCHMARKS = ROOT / "benchmarks"
START = "<!-- benchmarks-table: written by `python -m benchmarks.table` from results/benchmarks/*.json -->"
END = "<!-- /benchmarks-table -->"

__all__ = ["END", "START", "benchmark_names", "render", "replace_table"]


def benchmark_names(folder: Path = BENCHMARKS) -> list[str]:
    """Return the benchmarks' module names, ``bench_core`` ..., in order."""
    return sorted(path.stem for path in folder.glob("bench_*.py"))


def _summary(name: str, folder: Path) -> str:
    """Return what a benchmark measures, from its docstring's first line (the module is read, not imported)."""
    doc = ast.get_docstring(ast.parse((folder / f"{name}.py").read_text(encoding="utf-8"))) or name
    return doc.splitlines()[0].split(": python", 1)[0].rstrip(".")


def _number(value: float) -> str:
    """Return ``value`` with three significant digits at most, thousands separated.

    >>> _number(1190.4), _number(57.26), _number(5.0), _number(0.8312), _number(0.000241)
    ('1,190', '57.3', '5.00', '0.831', '0.000241')
    """
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def _ratio(value: float) -> str:
    """Return a ratio with two decimals under 10, else as ``_number`` writes it.

    >>> _ratio(0.8749), _ratio(2.0), _ratio(344.1)
    ('0.87x', '2.00x', '344x')
    """
    return f"{value:.2f}x" if value < 10 else f"{_number(value)}x"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _machine_text(machine: dict[str, Any]) -> str:
    return f"{machine['cores']} cores, {machine['cpu']}, {machine['system']}, Python {machine['python']}"


def render(records: dict[str, dict[str, Any]], names: list[str], folder: Path = BENCHMARKS) -> str:
    """Return the table (with its markers) for ``names``: the saved rows, else a row saying how to record them."""
    machines: list[str] = []
    lines = [
        START,
        "",
        "| Benchmark, recorded | Case | Result | Peer in the same run | Ratio | Goal |",
        "| --- | --- | --- | --- | ---: | --- |",
    ]
    notes = []
    for name in names:
        record = records.get(name)
        if record is None:
            lines.append(
                f"| `{name}` | {_cell(_summary(name, folder))} | not recorded yet: "
                f"`python -m benchmarks.{name} --save` | | | |"
            )
            continue
        machine = _machine_text(record["machine"])
        if machine not in machines:
            machines.append(machine)
        first = f"`{name}` {record['date']}, machine {chr(ord('A') + machines.index(machine))}"
        for i, row in enumerate(record["rows"]):
            lines.append(
                f"| {first if i == 0 else ''} | {_cell(row.case)} | {_number(row.result)} {row.unit} | "
                f"{_cell(row.peer)}: {_number(row.peer_result)} {row.unit} | {_ratio(row.ratio)} | "
                f"{_cell(row.goal)} |"
            )
        commit = f" at commit {record['commit']}" if record.get("commit") else ""
        notes.append(f"- `{name}`: {record['measure']}; `{record['command']}`{commit}.")
    notes += [f"- Machine {chr(ord('A') + i)}: {text}." for i, text in enumerate(machines)]
    lines += ["", *notes, *([""] if notes else []), END]
    return "\n".join(lines)


def replace_table(text: str, table: str) -> str:
    """Return ``text`` with the part from ``START`` to ``END`` replaced by ``table``."""
    if text.count(START) != 1 or text.count(END) != 1 or text.index(START) > text.index(END):
        raise ValueError(f"README.md must hold the marker {START!r} once, then {END!r} once")
    head, rest = text.split(START, 1)
    return head + table + rest.split(END, 1)[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; fail when README.md's table is stale")
    args = parser.parse_args(argv)
    text = README.read_text(encoding="utf-8")
    wanted = replace_table(text, render(load(RESULTS_DIR), benchmark_names()))
    if args.check:
        if wanted != text:
            print(
                f"README.md's benchmarks table differs from {RESULTS_DIR.relative_to(ROOT)}/: "
                "run python -m benchmarks.table",
                file=sys.stderr,
            )
            return 1
        return 0
    if wanted != text:
        README.write_text(wanted, encoding="utf-8")
        print("README.md: benchmarks table rewritten")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
