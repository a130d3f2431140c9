"""The reader's own numbers: a GPU's memory from ``nvidia-smi``, and throughput and latency from ``vllm bench serve``.

``nvidia-smi --query-gpu=name,memory.total --format=csv`` prints a header and one line per GPU
(``NVIDIA H100 80GB HBM3, 81559 MiB``); :func:`read_nvidia_smi` takes the memory the driver reports for
the course's GPU of that kind. ``vllm bench serve --save-result`` writes a JSON file
(vllm/benchmarks/serve.py at 0.33.0) with ``request_throughput`` (requests/s) and the TTFT and ITL means and
percentiles in ms; :func:`read_vllm_bench` takes one GPU's throughput and the base latency from it. A file
of the wrong kind, of another GPU, or without a needed field is refused with a message that names what is wrong.

>>> r = parse_nvidia_smi("name, memory.total [MiB]\\nNVIDIA H100 80GB HBM3, 81559 MiB\\n", gpu="H100-80GB")
>>> r.name, r.memory_mib
('NVIDIA H100 80GB HBM3', 81559)
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

from .._validate import number
from ..fleet import GPU_QPS
from ..gpus import load_gpu

__all__ = [
    "BENCH_FIELDS",
    "EXAMPLES",
    "READER_FILES",
    "SmiReading",
    "BenchReading",
    "Calibration",
    "calibrate",
    "reader_files",
    "parse_nvidia_smi",
    "read_nvidia_smi",
    "parse_vllm_bench",
    "read_vllm_bench",
]

#: Example files in the two formats (labcore/data/examples; its README says what each is and is not).
EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"
#: calibrate's keyword: (the name a reader gives their own file, the example of that kind)
READER_FILES: dict[str, tuple[str, str]] = {
    "nvidia_smi": ("nvidia-smi.csv", "nvidia-smi-a100-80gb.example.csv"),
    "vllm_bench": ("vllm-bench.json", "vllm-bench-serve-a100-80gb.example-not-measured.json"),
}

#: The fields of a ``vllm bench serve --save-result`` file the plan reads.
BENCH_FIELDS: tuple[str, ...] = ("request_throughput", "mean_ttft_ms", "p99_ttft_ms", "mean_itl_ms", "p99_itl_ms")
#: How far the reported total may sit from the course's figure for the same card (drivers differ a little).
_MEMORY_TOLERANCE = 0.1


@dataclass(frozen=True, slots=True)
class SmiReading:
    """Hold what nvidia-smi reported: the GPU's name, its total memory in MiB, and how many such GPUs."""

    name: str
    memory_mib: int
    count: int
    source: str


@dataclass(frozen=True, slots=True)
class BenchReading:
    """Hold what ``vllm bench serve`` measured: requests/s, and TTFT and ITL (mean, p99) in ms."""

    request_throughput: float
    mean_ttft_ms: float
    p99_ttft_ms: float
    mean_itl_ms: float
    p99_itl_ms: float
    model_id: str
    source: str


def _card_words(gpu: str) -> tuple[str, int]:
    model, _, memory = gpu.partition("-")
    return model, int(memory.removesuffix("GB"))


def parse_nvidia_smi(text: str, *, gpu: str, source: str = "the nvidia-smi file") -> SmiReading:
    """Read ``nvidia-smi --query-gpu=name,memory.total --format=csv`` output for the course's ``gpu``.

    >>> parse_nvidia_smi("name, memory.total [MiB]\\nNVIDIA L4, 23034 MiB\\n", gpu="H100-80GB")
    Traceback (most recent call last):
    ...
    ValueError: the nvidia-smi file reports NVIDIA L4, not an H100-80GB: run it on the GPU you plan for, or pass --gpu for that GPU
    """
    card = load_gpu(gpu)
    rows = [row for row in csv.reader(io.StringIO(text)) if any(cell.strip() for cell in row)]
    header = [cell.strip() for cell in rows[0]] if rows else []
    if header[:2] != ["name", "memory.total [MiB]"]:
        raise ValueError(
            f"{source} is not what 'nvidia-smi --query-gpu=name,memory.total --format=csv' prints: its "
            f"first line must be 'name, memory.total [MiB]', got {', '.join(header)[:80]!r}"
        )
    readings = []
    for row in rows[1:]:
        if len(row) < 2 or not re.fullmatch(r"\s*\d+ MiB\s*", row[1]):
            raise ValueError(f"{source}: a GPU line must read '<name>, <total> MiB', got {', '.join(row)[:80]!r}")
        readings.append((row[0].strip(), int(row[1].strip().removesuffix(" MiB"))))
    if not readings:
        raise ValueError(f"{source} lists no GPU under its header")
    if len(set(readings)) > 1:
        raise ValueError(
            f"{source} lists different GPUs {sorted(set(readings))}: keep the lines of the GPU you plan for"
        )
    name, memory = readings[0]
    model, gb = _card_words(card.name)
    near = abs(memory - card.driver_mib) <= _MEMORY_TOLERANCE * card.driver_mib
    if not re.search(rf"(?<![A-Za-z0-9]){re.escape(model)}(?![0-9A-Za-z])", name) or not near:
        article = "an" if model[0] in "AEFHILMNORSX" else "a"
        raise ValueError(
            f"{source} reports {name}, not {article} {card.name}: run it on the GPU you plan for, or pass "
            "--gpu for that GPU"
        )
    return SmiReading(name=name, memory_mib=memory, count=len(readings), source=source)


def read_nvidia_smi(path: str | Path, *, gpu: str) -> SmiReading:
    """Read a file of ``nvidia-smi --query-gpu=name,memory.total --format=csv`` output (see :func:`parse_nvidia_smi`)."""
    return parse_nvidia_smi(_read(path), gpu=gpu, source=str(path))


def parse_vllm_bench(text: str, *, source: str = "the vllm bench file") -> BenchReading:
    """Read a ``vllm bench serve --save-result`` JSON file's throughput and latencies.

    >>> parse_vllm_bench('{"request_throughput": 21.5, "mean_ttft_ms": 38.0}')
    Traceback (most recent call last):
    ...
    ValueError: the vllm bench file lacks p99_ttft_ms, mean_itl_ms, p99_itl_ms: save it with vllm bench serve --save-result (its default percentiles include p99)
    """
    try:
        data = json.loads(text)
    except ValueError:
        raise ValueError(f"{source} is not JSON: give the file 'vllm bench serve --save-result' writes") from None
    if not isinstance(data, dict):
        raise ValueError(f"{source} is JSON but not one benchmark result (an object), got {type(data).__name__}")
    missing = [f for f in BENCH_FIELDS if f not in data]
    if missing:
        raise ValueError(
            f"{source} lacks {', '.join(missing)}: save it with vllm bench serve --save-result (its "
            "default percentiles include p99)"
        )
    values = {field: number(f"{source}: {field}", data[field]) for field in BENCH_FIELDS}
    return BenchReading(**values, model_id=str(data.get("model_id", "")), source=source)


def read_vllm_bench(path: str | Path) -> BenchReading:
    """Read a ``vllm bench serve --save-result`` file (see :func:`parse_vllm_bench`)."""
    return parse_vllm_bench(_read(path), source=str(path))


@dataclass(frozen=True, slots=True)
class Calibration:
    """Hold the numbers a plan uses for one GPU, each from the reader's files or the course's defaults."""

    gpu: str
    usable_mib: float
    gpu_qps: float
    course_latency_ms: float
    smi: SmiReading | None
    bench: BenchReading | None
    qps_given: bool = False

    def rows(self, *, names_only: bool = False) -> tuple[tuple[str, str, str, str], ...]:
        """Return (number, the course's default, the value used, where it came from) per number.

        ``names_only`` names a file by its name, not its path (a page reads the same on every machine).

        >>> calibrate("H100-80GB", course_latency_ms=40.0).rows()[1]
        ("one GPU's throughput (requests/s)", '20', '20', "the course's default (labcore.fleet.GPU_QPS)")
        """
        card = load_gpu(self.gpu)

        def shown(source: str) -> str:
            return Path(source).name if names_only else source

        memory = (
            f"{shown(self.smi.source)} ({self.smi.name})"
            if self.smi
            else f"the course's figure for an {self.gpu} (labcore/data/gpus.json)"
        )
        qps = (
            shown(self.bench.source)
            if self.bench
            else "yours (--gpu-qps)"
            if self.qps_given
            else "the course's default (labcore.fleet.GPU_QPS)"
        )
        latency = (
            (
                "TTFT mean",
                f"{self.bench.mean_ttft_ms:g} ms, p99 {self.bench.p99_ttft_ms:g} ms; ITL mean "
                f"{self.bench.mean_itl_ms:g} ms, p99 {self.bench.p99_itl_ms:g} ms",
                shown(self.bench.source),
            )
            if self.bench
            else ("", f"{self.course_latency_ms:g} ms a request", "the course's default (the simulator's)")
        )
        return (
            ("GPU memory (MiB)", f"{card.driver_mib:,.0f}", f"{self.usable_mib:,.0f}", memory),
            ("one GPU's throughput (requests/s)", f"{GPU_QPS:g}", f"{self.gpu_qps:g}", qps),
            (
                "base latency",
                f"{self.course_latency_ms:g} ms a request",
                " ".join(filter(None, latency[:2])),
                latency[2],
            ),
        )

    def lines(self, *, names_only: bool = False) -> list[str]:
        """Return the plan's 'where the numbers come from' lines (``names_only`` as in :meth:`rows`).

        >>> calibrate("H100-80GB", course_latency_ms=40.0).lines()[0]
        "  GPU memory 81,559 MiB: the course's figure for an H100-80GB (labcore/data/gpus.json)"
        """
        memory, qps, latency = self.rows(names_only=names_only)
        source = "from " if self.smi else ""
        lines = [
            f"  GPU memory {memory[2]} MiB: {source}{memory[3]}",
            f"  one GPU's throughput {qps[2]} requests/s: {'from ' if self.bench else ''}{qps[3]}",
        ]
        if self.bench:
            lines.append(f"  base latency: {latency[2]}: from {latency[3]}")
        else:
            lines.append(f"  base latency {latency[2]}: {latency[3]}")
        return lines


def calibrate(
    gpu: str,
    *,
    course_latency_ms: float,
    nvidia_smi: str | Path | None = None,
    vllm_bench: str | Path | None = None,
    gpu_qps: float | None = None,
) -> Calibration:
    """Read the reader's files (either may be missing) over the course's defaults for ``gpu``.

    ``course_latency_ms`` is the course's base latency (the simulator's default; ``python -m labcore plan`` passes
    it). One GPU's throughput comes from ``vllm_bench`` or ``gpu_qps``, not both.

    >>> c = calibrate("A100-80GB", course_latency_ms=40.0, nvidia_smi=EXAMPLES / "nvidia-smi-a100-80gb.example.csv")
    >>> c.usable_mib, c.gpu_qps
    (81252.0, 20.0)
    """
    smi = None if nvidia_smi is None else read_nvidia_smi(nvidia_smi, gpu=gpu)
    bench = None if vllm_bench is None else read_vllm_bench(vllm_bench)
    if bench is not None and gpu_qps is not None:
        raise ValueError("give one GPU's throughput once: --gpu-qps or --vllm-bench, not both")
    usable = float(smi.memory_mib) if smi else float(load_gpu(gpu).driver_mib)
    qps = bench.request_throughput if bench else (GPU_QPS if gpu_qps is None else float(gpu_qps))
    return Calibration(
        gpu=gpu,
        usable_mib=usable,
        gpu_qps=qps,
        course_latency_ms=float(course_latency_ms),
        smi=smi,
        bench=bench,
        qps_given=gpu_qps is not None,
    )


def reader_files(folder: str | Path = ".") -> dict[str, Path]:
    """Return calibrate's file keywords: each reader's file found in ``folder`` (READER_FILES' names), else its example.

    >>> {key: path.name for key, path in reader_files(EXAMPLES).items()}["vllm_bench"]
    'vllm-bench-serve-a100-80gb.example-not-measured.json'
    """
    folder = Path(folder)
    return {
        key: folder / mine if (folder / mine).is_file() else EXAMPLES / example
        for key, (mine, example) in READER_FILES.items()
    }


def _read(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
