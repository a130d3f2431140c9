"""Generate the learner skeleton ``lab/skeleton/`` from the reference ``labcore`` contract modules.

The skeleton keeps every signature, docstring, record field and constant, and replaces each
function body with ``raise NotImplementedError(<hint>)``. It is derived, never edited by hand:

    python scripts/make_skeleton.py            # rewrite lab/skeleton/
    python scripts/make_skeleton.py --check    # exit 1 if lab/skeleton/ is stale
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

from labcore.contract import CONTRACT_DIR, GIVEN_MODULES, LAB_MODULES

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labcore"
TARGET = ROOT / "lab" / "skeleton"
GIVEN = GIVEN_MODULES  # copied as they are: error types and argument checks are handed to the learner
TO_WRITE = LAB_MODULES
CONTRACT = GIVEN + TO_WRITE
HEADER = (
    "# Generated from labcore/{name}.py by scripts/make_skeleton.py. Do not edit this copy:\n"
    "# cp -r lab/skeleton lab/mine, fill in every TODO(lab), then LAB_MODULE=lab.mine pytest tests/contract\n"
)


class _StubBodies(ast.NodeTransformer):
    """Replace every function body by its docstring and a NotImplementedError with a hint."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.scope: list[str] = []

    @staticmethod
    def _private(name: str) -> bool:
        return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef | None:
        if self._private(node.name):
            return None  # private helpers are the learner's to design
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef | None:
        if self._private(node.name):
            return None
        qualname = ".".join([*self.scope, node.name])
        docstring = ast.get_docstring(node)
        summary = (docstring.strip().splitlines()[0] if docstring
                   else f"see what {CONTRACT_DIR}/test_{self.module}.py asks of it")
        hint = f"TODO(lab): implement {self.module}.{qualname}: {summary}"
        body: list[ast.stmt] = [node.body[0]] if docstring else []
        body.append(ast.Raise(exc=ast.Call(ast.Name("NotImplementedError", ast.Load()), [ast.Constant(hint)], []), cause=None))
        node.body = body
        return node


def _init_source() -> str:
    tree = ast.parse((SOURCE / "__init__.py").read_text())
    kept: list[str] = []
    body: list[ast.stmt] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module in CONTRACT:
                body.append(node)
                kept.extend(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            body.append(ast.Expr(ast.Constant("The learner's copy of the labcore contract (generated; see lab/README.md).")))
    body.append(ast.parse(f"__all__ = {sorted(kept)!r}").body[0])
    return HEADER.format(name="__init__") + "\n" + ast.unparse(ast.Module(body, [])) + "\n"


def render() -> dict[str, str]:
    """Return the skeleton's files, name to text."""
    files = {"__init__.py": _init_source()}
    for name in CONTRACT:
        source = (SOURCE / f"{name}.py").read_text()
        if name in TO_WRITE:
            tree = _StubBodies(name).visit(ast.parse(source))
            source = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
        files[f"{name}.py"] = HEADER.format(name=name) + "\n" + source
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail if lab/skeleton/ differs from the generated one")
    args = parser.parse_args(argv)
    files = render()
    if args.check:
        stale = [n for n, text in files.items() if not (TARGET / n).exists() or (TARGET / n).read_text() != text]
        extra = sorted(p.name for p in TARGET.glob("*.py") if p.name not in files)
        if stale or extra:
            print(f"lab/skeleton is stale: {stale + extra}; run python scripts/make_skeleton.py", file=sys.stderr)
            return 1
        return 0
    TARGET.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (TARGET / name).write_text(text)
    print(f"wrote {len(files)} files to {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
