"""The README's claims that code can check: its two commands (and CI running them), the modules and make targets it
names, and the paths of its layout table."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _commands(block: str) -> list[str]:
    return [line.split("#", 1)[0].strip() for line in block.strip().splitlines() if line.split("#", 1)[0].strip()]


def test_the_readme_starts_with_the_two_commands() -> None:
    title, rest = README.split("\n", 1)
    assert title.startswith("# ")
    first_block = re.match(r"\s*```bash\n(.*?)```", rest, re.S)
    assert first_block, "the README's first thing after the title must be its commands, in a bash block"
    assert _commands(first_block.group(1)) == ["make book", "make test"]


def test_ci_runs_the_readmes_two_commands_in_order() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    runs = re.findall(r'^phase "[^"]+" .*?\b(make (?:book|test))$', ci, re.M)
    assert runs == ["make book", "make test"], runs


def test_every_module_the_readme_runs_with_python_m_exists() -> None:
    modules = sorted({m for m in re.findall(r"python -m ([\w.<>]+)", README) if "<" not in m})
    assert "benchmarks.table" in modules
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    assert not missing, f"the README runs modules that do not exist: {missing}"


def _make_targets() -> set[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    return {t for line in re.findall(r"^([\w .-]+):(?!=)", makefile, re.M) for t in line.split()}


def test_every_make_target_the_readme_names_exists_and_make_help_lists_none_it_leaves_out() -> None:
    named = set(re.findall(r"`make ([\w-]+)", README))
    assert named - _make_targets() == set(), "the README names make targets the Makefile does not have"
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    helped = set(re.findall(r'@echo "make ([\w-]+)', makefile))
    assert helped and helped - named == set(), "make help lists targets the README does not describe"


def test_every_path_in_the_layout_table_exists() -> None:
    section = README.split("## Layout", 1)[1].split("\n## ", 1)[0]
    first_cells = re.findall(r"^\| ([^|]+) \|", section, re.M)
    paths = [p for cell in first_cells for p in re.findall(r"`([^`]+)`", cell)]
    assert "coursebuild/" in paths and "tests/" in paths
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"the README's layout names paths that do not exist: {missing}"
