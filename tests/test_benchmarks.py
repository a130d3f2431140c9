"""The benchmarks' saved results and the README's table written from them (``benchmarks/results.py``, ``table.py``)."""

from __future__ import annotations

import ast
import datetime
import doctest
import json
import shutil
from pathlib import Path

import pytest

from benchmarks import results, table
from benchmarks.results import Row, load, save

ROOT = Path(__file__).resolve().parents[1]


def test_the_readme_table_is_what_the_saved_results_give() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    wanted = table.replace_table(readme, table.render(load(), table.benchmark_names()))
    assert readme == wanted, "README.md's benchmarks table is stale: run python -m benchmarks.table"


def test_check_fails_on_a_number_changed_in_the_readme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = next(iter(load().values()))
    shown = f"{table._number(record['rows'][0].result)} {record['rows'][0].unit}"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index(table.START)
    assert shown in readme[start:]
    stale = tmp_path / "README.md"
    stale.write_text(
        readme[:start] + readme[start:].replace(shown, "1.23 " + record["rows"][0].unit, 1), encoding="utf-8"
    )
    monkeypatch.setattr(table, "README", stale)
    assert table.main(["--check"]) == 1
    assert table.main([]) == 0 and table.main(["--check"]) == 0  # rewritten from the files, then up to date
    assert stale.read_text(encoding="utf-8") == readme


def test_every_saved_file_belongs_to_a_benchmark_and_names_its_machine() -> None:
    names = table.benchmark_names()
    saved = load()
    assert saved, "no benchmark results recorded in results/benchmarks/"
    for name, record in saved.items():
        assert name in names, f"results/benchmarks/{name}.json: no benchmarks/{name}.py"
        assert set(record["machine"]) >= {"cores", "cpu", "python"} and record["machine"]["cores"] >= 1
        datetime.date.fromisoformat(record["date"])
        assert record["command"].startswith(f"python -m benchmarks.{name}")
        assert record["rows"] and all(row.ratio > 0 for row in record["rows"])


def test_save_then_load_gives_the_rows_back(tmp_path: Path) -> None:
    rows = [
        Row("cache hit", 52.0, "ns", peer="cachetools hit", peer_result=65.0, goal="aim <= 1x"),
        Row("route hit", 200.0, "ns", peer="cachetools hit", peer_result=65.0),
    ]
    path = save("bench_x", rows, measure="hits", command="python -m benchmarks.bench_x --save", folder=tmp_path)
    assert path == tmp_path / "bench_x.json"
    record = load(tmp_path)["bench_x"]
    assert record["rows"] == rows and record["measure"] == "hits"
    assert record["date"] == datetime.datetime.now(datetime.UTC).date().isoformat()
    assert record["machine"] == results.machine()


def test_load_refuses_a_file_named_for_another_benchmark(tmp_path: Path) -> None:
    save("bench_x", [Row("a", 1.0, "ms", peer="b", peer_result=2.0)], measure="m", command="c", folder=tmp_path)
    shutil.move(tmp_path / "bench_x.json", tmp_path / "bench_y.json")
    with pytest.raises(ValueError, match="names benchmark 'bench_x', not 'bench_y'"):
        load(tmp_path)


@pytest.mark.parametrize("field", ["result", "peer_result"])
@pytest.mark.parametrize("bad", [0.0, -1.0, float("nan"), True])
def test_a_row_refuses_a_measure_that_is_not_a_positive_number(field: str, bad: object) -> None:
    values: dict[str, object] = {"result": 1.0, "peer_result": 1.0, field: bad}
    with pytest.raises(ValueError, match=f"{field} must be a positive number, got {bad!r}"):
        Row("case", unit="ms", peer="peer", **values)  # type: ignore[arg-type]


def test_a_benchmark_with_no_file_says_how_to_record_it(tmp_path: Path) -> None:
    (tmp_path / "bench_x.py").write_text('"""Time the thing: python -m benchmarks.bench_x"""\n', encoding="utf-8")
    text = table.render({}, ["bench_x"], folder=tmp_path)
    assert "| `bench_x` | Time the thing | not recorded yet: `python -m benchmarks.bench_x --save` |" in text
    assert "machine" not in text.lower()


def test_the_table_names_each_machine_once_and_each_row_beside_its_peer(tmp_path: Path) -> None:
    for name in ("bench_a", "bench_b"):
        save(name, [Row("x", 3.0, "ms", peer="p|q", peer_result=1.5)], measure="m", command="c", folder=tmp_path)
    record = json.loads((tmp_path / "bench_b.json").read_text(encoding="utf-8"))
    record["machine"]["cores"] = 64
    (tmp_path / "bench_b.json").write_text(json.dumps(record), encoding="utf-8")
    text = table.render(load(tmp_path), ["bench_a", "bench_b"], folder=tmp_path)
    assert "| x | 3.00 ms | p\\|q: 1.50 ms | 2.00x |" in text
    assert "machine A |" in text and "machine B |" in text
    assert text.count("- Machine A: ") == 1 and "- Machine B: 64 cores" in text


def test_the_markers_must_be_there_once_in_order() -> None:
    with pytest.raises(ValueError, match="must hold the marker"):
        table.replace_table(f"{table.END}\n{table.START}\n", "table")


def test_every_benchmark_saves_under_its_own_name() -> None:
    for path in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        calls = [
            node
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "save_if_asked"
        ]
        assert len(calls) == 1, f"{path.name}: {len(calls)} calls of save_if_asked"
        assert ast.literal_eval(calls[0].args[1]) == path.stem, f"{path.name} saves under another name"


@pytest.mark.parametrize("module", [results, table])
def test_doctests(module: object) -> None:
    assert doctest.testmod(module).failed == 0  # type: ignore[arg-type]
