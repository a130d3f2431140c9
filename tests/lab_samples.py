"""A learner's files for the lab's tests: labcore's right answers, and the two mistakes the lab is built to catch.

Each function returns a module's source as a learner might save it in ``lab/mine``; the tests write them into a lab
folder (the download's layout, ``tests/conftest.py``'s ``lab_folder``, or the live site's files in the browser).
"""

from __future__ import annotations

from pathlib import Path

LABCORE = Path(__file__).resolve().parents[1] / "labcore"

#: a ``versions.py`` that splits the string and compares the pieces as strings: "10" sorts before "9"
VERSIONS_COMPARING_STRINGS = '''"""My versions: split on dots (the pieces stay strings)."""

from .errors import InvalidVersionError

Version = tuple


def parse_version(text):
    """Parse MAJOR.MINOR.PATCH."""
    if not isinstance(text, str) or len(text.split(".")) != 3:
        raise InvalidVersionError(f"invalid version {text!r}")
    return tuple(text.split("."))


def format_version(version):
    """Format a version back into its string."""
    return ".".join(str(part) for part in version)
'''


def reference(module: str) -> str:
    """Return labcore's own ``<module>.py`` (it imports only the lab's modules, so it runs inside ``lab/mine``)."""
    return (LABCORE / f"{module}.py").read_text(encoding="utf-8")


def fifo_cache() -> str:
    """Return a ``cache.py`` that is labcore's except that a hit does not refresh the entry: it evicts in FIFO order."""
    source = reference("cache")
    fifo = source.replace(
        "    policy_class: type[EvictionPolicy[Any]] = LruPolicy\n",
        "    policy_class: type[EvictionPolicy[Any]] = FifoPolicy\n",
        1,
    )
    assert fifo != source, "labcore's AdapterCache no longer names its policy_class: update this sample"
    return fifo


def write(lab_folder: Path, module: str, source: str) -> Path:
    """Save ``source`` as the learner's ``lab/mine/<module>.py`` in ``lab_folder``; return its path."""
    path = lab_folder / "lab" / "mine" / f"{module}.py"
    path.write_text(source, encoding="utf-8")
    return path


def router_without_overhead() -> str:
    """Return a ``router.py`` that is labcore's except that a dynamic request is charged no LoRA overhead."""
    source = reference("router")
    free = source.replace(
        "total_ms = base_ms * (1 + self.dynamic_overhead) if mode == MODE_DYNAMIC else base_ms", "total_ms = base_ms", 1
    )
    assert free != source, "labcore's router no longer charges the overhead on that line: update this sample"
    return free
