"""Read the facts the course uses in the engines' released wheels and write one JSON file per release (make engines).

For each release in :data:`labcore.engines.releases.RELEASES`: ``pip download <engine>==<version> --no-deps``
into a cache folder (once), open the wheel, parse its Python source with :mod:`ast` (nothing is imported), and
write ``labcore/data/engines/<engine>-<version>-<date>.json`` with

* every CLI flag (vLLM: the ``add_argument`` calls of ``EngineArgs.add_cli_args`` and ``AsyncEngineArgs``, each
  default resolved through its config class, and the frontend's dataclass fields; SGLang: the fields of
  ``sglang/srt/arg_groups/fields/*.py``) with its default, its choices and the file it was read in;
* the LoRA module declarations of every architecture the course ships (``packed_modules_mapping``,
  ``embedding_modules``, ``supported_lora_modules``), found through the engine's model registry;
* the environment variables and general plugins the adapters' routes use, and the config fields the LoRA code reads;
* what keys a LoRA request's KV blocks in vLLM's prefix cache (``_gen_lora_extra_hash_keys``: chapter 15).

Run: ``python scripts/engine_facts.py --cache ~/.cache/labcore-engines --out labcore/data/engines``.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import hashlib
import json
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labcore.engines import FLAG_DEFAULTS, SOURCES, production_mapping
from labcore.engines.kv import KV_SOURCES
from labcore.engines.releases import RELEASES
from labcore.model_config.config import known_models, raw_model_config


@dataclass(frozen=True)
class Unresolved:
    """An expression the reader does not evaluate (a call, a computed value): kept as its source text."""

    text: str


@dataclass
class Module:
    """One parsed source file: its top-level assignments, imports and classes."""

    path: str
    tree: ast.Module
    assigns: dict[str, ast.expr] = field(default_factory=dict)
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)


class Wheel:
    """The Python source of one wheel, parsed on demand by dotted module name."""

    def __init__(self, path: Path) -> None:
        self.zip = zipfile.ZipFile(path)
        self.names = set(self.zip.namelist())
        self.modules: dict[str, Module | None] = {}

    def module(self, dotted: str) -> Module | None:
        if dotted in self.modules:
            return self.modules[dotted]
        base = dotted.replace(".", "/")
        path = next((p for p in (f"{base}.py", f"{base}/__init__.py") if p in self.names), None)
        mod = None
        if path is not None:
            tree = ast.parse(self.zip.read(path).decode("utf-8"), filename=path)
            mod = Module(path, tree)
            package = dotted if path.endswith("__init__.py") else dotted.rpartition(".")[0]
            for node in tree.body:
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            mod.assigns[target.id] = node.value
                elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                    mod.assigns[node.target.id] = node.value
                elif isinstance(node, ast.ImportFrom):
                    source = _absolute(package, node.level, node.module)
                    for alias in node.names:
                        mod.imports[alias.asname or alias.name] = (source, alias.name)
                elif isinstance(node, ast.ClassDef):
                    mod.classes[node.name] = node
                elif isinstance(node, ast.If):  # TYPE_CHECKING blocks: their imports name real modules
                    for sub in node.body:
                        if isinstance(sub, ast.ImportFrom) and sub.module:
                            for alias in sub.names:
                                mod.imports.setdefault(
                                    alias.asname or alias.name, (_absolute(package, sub.level, sub.module), alias.name)
                                )
        self.modules[dotted] = mod
        return mod

    def lookup(self, name: str, mod: Module, depth: int = 0) -> tuple[str, Any, Module] | None:
        """Find what ``name`` means in ``mod``: ("assign", expr, module) or ("class", ClassDef, module)."""
        if depth > 6:
            return None
        if name in mod.classes:
            return "class", mod.classes[name], mod
        if name in mod.assigns:
            return "assign", mod.assigns[name], mod
        if name in mod.imports:
            source, original = mod.imports[name]
            other = self.module(source)
            if other is None:
                other = self.module(f"{source}.{original}")
                if other is not None:
                    return "module", other, other
                return None
            return self.lookup(original, other, depth + 1)
        return None


def _absolute(package: str, level: int, module: str | None) -> str:
    if not level:
        return module or ""
    parts = package.split(".")
    base = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join(base + ([module] if module else []))


def value(wheel: Wheel, node: ast.expr, mod: Module, depth: int = 0) -> Any:
    """Evaluate a literal-ish expression of the source: constants, containers, names and ``Class.field``."""
    if depth > 8:
        return Unresolved(ast.unparse(node))
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [value(wheel, e, mod, depth + 1) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {
            value(wheel, k, mod, depth + 1): value(wheel, v, mod, depth + 1)
            for k, v in zip(node.keys, node.values, strict=True)
            if k is not None
        }
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = value(wheel, node.operand, mod, depth + 1)
        return -inner if isinstance(inner, (int, float)) else Unresolved(ast.unparse(node))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = value(wheel, node.left, mod, depth + 1), value(wheel, node.right, mod, depth + 1)
        if isinstance(left, list) and isinstance(right, list):
            return left + right
    if isinstance(node, ast.Name):
        found = wheel.lookup(node.id, mod)
        if found and found[0] == "assign":
            return value(wheel, found[1], found[2], depth + 1)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        found = wheel.lookup(node.value.id, mod)
        if found and found[0] == "class":
            fields = class_fields(wheel, found[1], found[2])
            if node.attr in fields and fields[node.attr][1] is not None:
                return value(wheel, fields[node.attr][1], fields[node.attr][2], depth + 1)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("Field", "field"):
        for kw in node.keywords:
            if kw.arg == "default":
                return value(wheel, kw.value, mod, depth + 1)
        if node.args:
            return value(wheel, node.args[0], mod, depth + 1)
    return Unresolved(ast.unparse(node))


def class_fields(wheel: Wheel, cls: ast.ClassDef, mod: Module) -> dict[str, tuple[ast.expr, ast.expr | None, Module]]:
    """Return a class's annotated fields, its bases' first: name -> (annotation, default, module)."""
    out: dict[str, tuple[ast.expr, ast.expr | None, Module]] = {}
    for base in cls.bases:
        if isinstance(base, ast.Name):
            found = wheel.lookup(base.id, mod)
            if found and found[0] == "class":
                out.update(class_fields(wheel, found[1], found[2]))
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = (node.annotation, node.value, mod)
    return out


def class_attribute(wheel: Wheel, cls: ast.ClassDef, mod: Module, name: str) -> tuple[Any, str] | None:
    """Return a class attribute's value and the file and class it is set in, looking through the bases."""
    for node in cls.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign) and node.value is not None
            else []
        )
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return value(wheel, node.value, mod), f"{mod.path} {cls.name}"  # type: ignore[union-attr]
    for base in cls.bases:
        if isinstance(base, ast.Name):
            found = wheel.lookup(base.id, mod)
            if found and found[0] == "class":
                got = class_attribute(wheel, found[1], found[2], name)
                if got is not None:
                    return got
    return None


def literal_choices(wheel: Wheel, node: ast.expr, mod: Module, depth: int = 0) -> list[Any] | None:
    """Return the values of a ``Literal[...]`` annotation (through aliases, unions and Optional), or None."""
    if depth > 6 or node is None:
        return None
    if isinstance(node, ast.Name):
        found = wheel.lookup(node.id, mod)
        return literal_choices(wheel, found[1], found[2], depth + 1) if found and found[0] == "assign" else None
    if isinstance(node, ast.Subscript):
        head = node.value.id if isinstance(node.value, ast.Name) else getattr(node.value, "attr", "")
        if head == "Literal":
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return [value(wheel, e, mod) for e in elts]
        if head in ("Optional", "Annotated"):
            inner = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
            return literal_choices(wheel, inner, mod, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return literal_choices(wheel, node.left, mod, depth + 1) or literal_choices(wheel, node.right, mod, depth + 1)
    return None


def jsonable(obj: Any) -> Any:
    """Return ``obj`` with unresolved expressions written as ``{"expr": source}``."""
    if isinstance(obj, Unresolved):
        return {"expr": obj.text}
    if isinstance(obj, list):
        return [jsonable(v) for v in obj]
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    return obj


# ---- vLLM -----------------------------------------------------------------------------------------------------


def vllm_flags(wheel: Wheel) -> dict[str, dict[str, Any]]:
    """Return the flags ``vllm serve`` registers from EngineArgs and the frontend's dataclasses."""
    mod = wheel.module("vllm.engine.arg_utils")
    assert mod is not None, "vllm/engine/arg_utils.py is missing"
    engine_fields = class_fields(wheel, mod.classes["EngineArgs"], mod)
    flags: dict[str, dict[str, Any]] = {}
    for cls_name in ("EngineArgs", "AsyncEngineArgs"):
        for fn in (
            n for n in mod.classes[cls_name].body if isinstance(n, ast.FunctionDef) and n.name == "add_cli_args"
        ):
            kwargs_of: dict[str, str] = {}
            for node in ast.walk(fn):
                if (
                    isinstance(node, ast.Assign)
                    and isinstance(node.value, ast.Call)
                    and getattr(node.value.func, "id", "") == "get_kwargs"
                    and node.value.args
                    and isinstance(node.value.args[0], ast.Name)
                    and isinstance(node.targets[0], ast.Name)
                ):
                    kwargs_of[node.targets[0].id] = node.value.args[0].id
            for node in ast.walk(fn):
                if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument"):
                    continue
                names = [a.value for a in node.args if isinstance(a, ast.Constant) and str(a.value).startswith("-")]
                if not names:
                    continue
                flags.update(_vllm_flag(wheel, mod, node, names, kwargs_of, engine_fields))
    front = wheel.module("vllm.entrypoints.common.cli_args")
    assert front is not None, "vllm/entrypoints/common/cli_args.py is missing"
    for cls_name in ("BaseFrontendArgs", "FrontendArgs"):
        for name, (annotation, default, where) in class_fields(wheel, front.classes[cls_name], front).items():
            flag = "--" + name.replace("_", "-")
            flags.setdefault(
                flag,
                {
                    "default": jsonable(None if default is None else value(wheel, default, where)),
                    "choices": jsonable(literal_choices(wheel, annotation, where)),
                    "source": f"{where.path} {cls_name}.{name}",
                },
            )
    return dict(sorted(flags.items()))


def _vllm_flag(
    wheel: Wheel,
    mod: Module,
    call: ast.Call,
    names: list[str],
    kwargs_of: dict[str, str],
    engine_fields: dict[str, tuple[ast.expr, ast.expr | None, Module]],
) -> dict[str, dict[str, Any]]:
    config_field = None
    explicit = {kw.arg: kw.value for kw in call.keywords if kw.arg}
    for kw in call.keywords:
        if (
            kw.arg is None
            and isinstance(kw.value, ast.Subscript)
            and isinstance(kw.value.value, ast.Name)
            and kw.value.value.id in kwargs_of
            and isinstance(kw.value.slice, ast.Constant)
        ):
            config_field = (kwargs_of[kw.value.value.id], kw.value.slice.value)
    long_name = next((n for n in names if n.startswith("--")), names[0])
    attr = long_name[2:].replace("-", "_")
    sources = []
    default: Any = None
    choices = None
    if attr in engine_fields:
        annotation, dflt, where = engine_fields[attr]
        default = None if dflt is None else value(wheel, dflt, where)
        choices = literal_choices(wheel, annotation, where)
        sources.append(f"{where.path} EngineArgs.{attr}")
    if config_field is not None:
        found = wheel.lookup(config_field[0], mod)
        if found and found[0] == "class":
            fields = class_fields(wheel, found[1], found[2])
            if config_field[1] in fields:
                annotation, dflt, where = fields[config_field[1]]
                choices = literal_choices(wheel, annotation, where) or choices
                if attr not in engine_fields:
                    default = None if dflt is None else value(wheel, dflt, where)
                sources.append(f"{where.path} {config_field[0]}.{config_field[1]}")
    if "choices" in explicit:
        choices = value(wheel, explicit["choices"], mod)
    if "default" in explicit and attr not in engine_fields:
        default = value(wheel, explicit["default"], mod)
    action = ast.unparse(explicit["action"]) if "action" in explicit else None
    fact = {"default": jsonable(default), "choices": jsonable(choices), "source": "; ".join(sources) or mod.path}
    if action:
        fact["action"] = action
    out = {long_name: fact}
    for alias in names:
        if alias != long_name:
            out[alias] = {**fact, "alias_of": long_name}
    return out


def vllm_architectures(wheel: Wheel, architectures: list[str]) -> dict[str, dict[str, Any]]:
    """Return each architecture's LoRA module declarations, found through vLLM's model registry."""
    registry = wheel.module("vllm.model_executor.models.registry")
    assert registry is not None
    table: dict[str, Any] = {}
    for name, expr in registry.assigns.items():
        if name.startswith("_") and name.endswith("_MODELS") and isinstance(expr, ast.Dict):
            got = value(wheel, expr, registry)
            if isinstance(got, dict):
                table.update({k: v for k, v in got.items() if isinstance(v, list) and len(v) == 2})
    out = {}
    for arch in architectures:
        module, cls_name = table[arch]
        mod = wheel.module(f"vllm.model_executor.models.{module}")
        assert mod is not None and cls_name in mod.classes, f"{arch}: {module}.{cls_name} not in the wheel"
        out[arch] = _declarations(
            wheel,
            mod.classes[cls_name],
            mod,
            ("packed_modules_mapping", "embedding_modules"),
            support_base="SupportsLoRA",
        )
    return out


def _declarations(
    wheel: Wheel, cls: ast.ClassDef, mod: Module, names: tuple[str, ...], support_base: str | None = None
) -> dict[str, Any]:
    """Return the class's LoRA declarations (None where neither it nor a base declares one)."""
    facts: dict[str, Any] = {"class": f"{mod.path} {cls.name}"}
    for name in names:
        got = class_attribute(wheel, cls, mod, name)
        facts[name] = None if got is None else jsonable(got[0])
        if got is not None:
            facts[f"{name}_source"] = got[1]
    if support_base is not None:  # vLLM marks LoRA support by a base class (SupportsLoRA)
        facts["supports_lora"] = _has_base(wheel, cls, mod, support_base)
    return facts


def _has_base(wheel: Wheel, cls: ast.ClassDef, mod: Module, base_name: str) -> bool:
    for base in cls.bases:
        if isinstance(base, ast.Name):
            if base.id == base_name:
                return True
            found = wheel.lookup(base.id, mod)
            if found and found[0] == "class" and _has_base(wheel, found[1], found[2], base_name):
                return True
    return False


def env_defaults(wheel: Wheel, module: str, names: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """Return where each environment variable is declared in ``module`` (its annotated default)."""
    mod = wheel.module(module)
    assert mod is not None
    out = {}
    for node in ast.walk(mod.tree):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id in names:
            out[node.target.id] = {
                "default": jsonable(None if node.value is None else value(wheel, node.value, mod)),
                "source": mod.path,
            }
    missing = set(names) - set(out)
    assert not missing, f"{module} declares no {sorted(missing)}"
    return dict(sorted(out.items()))


def config_reads(wheel: Wheel, paths: list[str], holders: frozenset[str]) -> dict[str, list[str]]:
    """Return, per file, the fields its code reads off ``holders`` (``config.x``, ``getattr(config, "x", ...)``)."""
    out = {}
    for path in paths:
        tree = ast.parse(wheel.zip.read(path).decode("utf-8"))
        seen = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _holder(node.value) in holders:
                seen.add(node.attr)
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", "") == "getattr"
                and len(node.args) >= 2
                and _holder(node.args[0]) in holders
                and isinstance(node.args[1], ast.Constant)
            ):
                seen.add(node.args[1].value)
        out[path] = sorted(seen)
    return out


def _holder(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def entry_points(wheel: Wheel, group: str) -> dict[str, str]:
    """Return the wheel's entry points of ``group`` (its ``*.dist-info/entry_points.txt``)."""
    path = next((n for n in wheel.names if n.endswith(".dist-info/entry_points.txt")), None)
    if path is None:
        return {}
    out, current = {}, None
    for line in wheel.zip.read(path).decode("utf-8").splitlines():
        line = line.strip()
        if line.startswith("["):
            current = line.strip("[]")
        elif "=" in line and current == group:
            name, _, target = line.partition("=")
            out[name.strip()] = target.strip()
    return out


# ---- SGLang ---------------------------------------------------------------------------------------------------


def sglang_flags(wheel: Wheel) -> dict[str, dict[str, Any]]:
    """Return the flags SGLang 0.5.x registers from the dataclasses of ``sglang/srt/arg_groups/fields``."""
    flags: dict[str, dict[str, Any]] = {}
    folder = "sglang/srt/arg_groups/fields/"
    for path in sorted(n for n in wheel.names if n.startswith(folder) and n.endswith(".py")):
        mod = wheel.module(path[:-3].replace("/", "."))
        assert mod is not None
        for cls in mod.classes.values():
            for node in cls.body:
                if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                    flags.update(_sglang_flag(wheel, mod, cls.name, node))
    return dict(sorted(flags.items()))


def _sglang_flag(wheel: Wheel, mod: Module, cls_name: str, node: ast.AnnAssign) -> dict[str, dict[str, Any]]:
    ann = node.annotation
    if not (
        isinstance(ann, ast.Subscript) and getattr(ann.value, "id", "") == "A" and isinstance(ann.slice, ast.Tuple)
    ):
        return {}
    kind, *meta = ann.slice.elts
    name = node.target.id  # type: ignore[union-attr]
    arg: dict[str, Any] = {}
    for m in meta:
        if isinstance(m, ast.Call) and getattr(m.func, "id", "") == "Derived":
            return {}
        if isinstance(m, ast.Call) and getattr(m.func, "id", "") == "Arg":
            arg = {kw.arg: kw.value for kw in m.keywords if kw.arg}
    if "no_cli" in arg and value(wheel, arg["no_cli"], mod) is True:
        return {}
    flag = value(wheel, arg["cli_name"], mod) if "cli_name" in arg else "--" + name.replace("_", "-")
    choices = value(wheel, arg["choices"], mod) if "choices" in arg else literal_choices(wheel, kind, mod)
    fact: dict[str, Any] = {
        "default": jsonable(None if node.value is None else value(wheel, node.value, mod)),
        "choices": jsonable(choices),
        "source": f"{mod.path} {cls_name}.{name}",
    }
    for key in ("action", "nargs"):
        if key in arg:
            fact[key] = ast.unparse(arg[key]) if key == "action" else value(wheel, arg[key], mod)
    out = {flag: fact}
    for alias in value(wheel, arg["aliases"], mod) if "aliases" in arg else []:
        out[alias] = {**fact, "alias_of": flag}
    return out


def sglang_architectures(wheel: Wheel, architectures: list[str]) -> dict[str, dict[str, Any]]:
    """Return each architecture's LoRA declarations in ``sglang/srt/models`` (the class of that name)."""
    out = {}
    models = sorted(n for n in wheel.names if n.startswith("sglang/srt/models/") and n.endswith(".py"))
    for arch in architectures:
        for path in models:
            if f"class {arch}(".encode() not in wheel.zip.read(path):
                continue
            mod = wheel.module(path[:-3].replace("/", "."))
            assert mod is not None
            out[arch] = _declarations(
                wheel, mod.classes[arch], mod, ("packed_modules_mapping", "embedding_modules", "supported_lora_modules")
            )
            break
    return out


def vllm_lora_block_key(wheel: Wheel) -> dict[str, Any]:
    """Return what keys a LoRA request's KV blocks in vLLM's prefix cache: ``_gen_lora_extra_hash_keys``, read.

    Its return expressions as source text, the attributes it reads, and its docstring (chapter 15 quotes them).
    """
    path = "vllm/v1/core/kv_cache_utils.py"
    tree = ast.parse(wheel.zip.read(path).decode("utf-8"), filename=path)
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "_gen_lora_extra_hash_keys")
    returns = [ast.unparse(r.value) for r in ast.walk(fn) if isinstance(r, ast.Return) and r.value is not None]
    return {
        "source": path,
        "function": fn.name,
        "returns": sorted(returns),
        "attributes_read": sorted({n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute)}),
        "docstring": ast.get_docstring(fn, clean=False),
    }


def cited_files(wheel: Wheel, engine: str, course: Path) -> dict[str, list[str]]:
    """Return the names each engine file the course cites defines (classes, functions, ``Class.member``, constants).

    The cited files are every ``vllm/...py`` or ``sglang/...py`` path written in ``labcore/engines``; a path the
    wheel does not hold is listed with no names, so the tests name it.
    """

    texts = [source.read_text(encoding="utf-8") for source in sorted(course.glob("*.py"))]
    texts += [src for _, src in FLAG_DEFAULTS.values()] + list(SOURCES.values()) + list(KV_SOURCES.values())
    texts += [row.source for row in production_mapping()]  # the citations as the course prints them
    paths = set()
    for text in texts:
        paths |= set(re.findall(rf"\b{engine}/[\w/]+\.py\b", text))
    out = {}
    for path in sorted(paths):
        if path not in wheel.names:
            out[path] = []
            continue
        tree = ast.parse(wheel.zip.read(path).decode("utf-8"))
        names = set()
        body = list(tree.body)
        body += [sub for node in tree.body if isinstance(node, ast.If) for sub in node.body]  # TYPE_CHECKING
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            if isinstance(node, ast.Assign):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            if isinstance(node, ast.ClassDef):
                for member in node.body:
                    if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        names.add(f"{node.name}.{member.name}")
                    elif isinstance(member, ast.AnnAssign) and isinstance(member.target, ast.Name):
                        names.add(f"{node.name}.{member.target.id}")
                    elif isinstance(member, ast.Assign):
                        names |= {f"{node.name}.{t.id}" for t in member.targets if isinstance(t, ast.Name)}
        out[path] = sorted(names)
    return out


# ---- the run --------------------------------------------------------------------------------------------------


def download(engine: str, version: str, cache: Path) -> Path:
    """Return the release's wheel in ``cache``, downloading it with ``pip download --no-deps`` the first time."""
    cache.mkdir(parents=True, exist_ok=True)
    found = sorted(cache.glob(f"{engine}-{version}-*.whl"))
    if not found:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", f"{engine}=={version}", "--no-deps", "-d", str(cache)], check=True
        )
        found = sorted(cache.glob(f"{engine}-{version}-*.whl"))
    if not found:
        raise SystemExit(f"pip download {engine}=={version} gave no wheel in {cache}")
    return found[0]


def facts(engine: str, version: str, wheel_path: Path, today: str, cache: Path) -> dict[str, Any]:
    """Return every fact the course uses, read in one release's wheel."""
    wheel = Wheel(wheel_path)
    archs = sorted({a for m in known_models() for a in raw_model_config(m).get("architectures", [])})
    out: dict[str, Any] = {
        "engine": engine,
        "version": version,
        "read_on": today,
        "wheel": wheel_path.name,
        "wheel_sha256": hashlib.sha256(wheel_path.read_bytes()).hexdigest(),
        "python_files": sum(n.endswith(".py") for n in wheel.names),
    }
    if engine == "vllm":
        out["flags"] = vllm_flags(wheel)
        out["architectures"] = vllm_architectures(wheel, archs)
        out["env"] = env_defaults(
            wheel, "vllm.envs", ("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "VLLM_PLUGINS", "VLLM_LORA_RESOLVER_CACHE_DIR")
        )
        out["general_plugins"] = entry_points(wheel, "vllm.general_plugins")
        layers = sorted(n for n in wheel.names if n.startswith("vllm/lora/layers/") and n.endswith(".py"))
        # vLLM's LoRA layers size their buffers from the wrapped layer, which the model built from its config
        out["config_reads"] = config_reads(wheel, layers, frozenset({"base_layer"}))
        out["lora_block_hash_key"] = vllm_lora_block_key(wheel)
    else:
        out["flags"] = sglang_flags(wheel)
        out["architectures"] = sglang_architectures(wheel, archs)
        common = wheel.module("sglang.srt.utils.common")
        assert common is not None
        out["lora_target_modules"] = {
            "supported": value(wheel, common.assigns["SUPPORTED_LORA_TARGET_MODULES"], common),
            "all": value(wheel, common.assigns["LORA_TARGET_ALL_MODULES"], common),
            "source": common.path,
        }
        out["config_reads"] = config_reads(
            wheel,
            ["sglang/srt/lora/utils.py", "sglang/srt/lora/mem_pool.py"],
            frozenset({"config", "base_hf_config", "hf_config", "text_config"}),
        )
    out["cited_files"] = cited_files(wheel, engine, Path(__file__).resolve().parents[1] / "labcore" / "engines")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "labcore-engines")
    parser.add_argument("--out", type=Path, default=Path("labcore/data/engines"))
    parser.add_argument("--date", default=datetime.date.today().isoformat(), help="the date the files are named with")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for engine, version in RELEASES.items():
        wheel = download(engine, version, args.cache)
        data = facts(engine, version, wheel, args.date, args.cache)
        target = args.out / f"{engine}-{version}-{args.date}.json"
        target.write_text(json.dumps(data, indent=1, sort_keys=False, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{target}: {len(data['flags'])} flags, {len(data['architectures'])} architectures from {wheel.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
