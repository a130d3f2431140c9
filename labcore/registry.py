"""The adapter registry: semver'd adapters, each bound to the digest of the base it was trained on.

A LoRA is a delta against one exact set of base weights. Applied to any other checkpoint of
"the same" model it produces fluent garbage and raises nothing, so the only cheap place to
catch the mismatch is here, at registration:

>>> reg = AdapterRegistry()
>>> reg.register_base("llama-3-8b", "sha256:1111")
>>> reg.register(Adapter("support-bot", "1.9.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0))
>>> reg.register(Adapter("support-bot", "1.10.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0))
>>> reg.resolve("support-bot").version          # semver, not string order
'1.10.0'
>>> reg.register(Adapter("legal-bot", "1.0.0", "llama-3-8b", "sha256:2222", rank=16, vram_mb=16.0))
Traceback (most recent call last):
...
labcore.errors.BaseDigestMismatchError: adapter legal-bot@1.0.0 was trained on llama-3-8b with digest 'sha256:2222', but the served llama-3-8b checkpoint has digest 'sha256:1111'; refusing it (it would run without error and answer with garbage)
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

from ._validate import instance, text
from .adapter import Adapter
from .errors import (
    AdapterNotFoundError,
    BaseDigestMismatchError,
    LabcoreError,
    RegistryFileError,
    UnknownBaseError,
    VersionExistsError,
)
from .refs import AdapterKey, parse_adapter_ref
from .versions import Version

__all__ = ["AdapterRegistry", "REGISTRY_FORMAT"]

REGISTRY_FORMAT = "labcore.registry/1"
_ADAPTER_FIELDS = tuple(f.name for f in fields(Adapter) if f.init)


class AdapterRegistry:
    """Hold base checkpoints by digest and adapters by ``name@version``; resolve refs by semver.

    Registration is atomic: a rejected adapter leaves no trace. Safe to share between threads.
    """

    def __init__(self) -> None:
        self._bases: dict[str, str] = {}
        self._by_name: dict[str, dict[Version, Adapter]] = {}
        self._latest: dict[str, Adapter] = {}
        self._count = 0
        self._lock = threading.Lock()
        #: Bumped on every change, so callers can memoise resolutions safely.
        self.generation = 0

    # -- bases ---------------------------------------------------------------------------
    def register_base(self, name: str, digest: str) -> None:
        """Declare a served base checkpoint; the same digest again is a no-op, another one is refused.

        >>> reg = AdapterRegistry(); reg.register_base("llama-3-8b", "sha256:1111")
        >>> reg.register_base("llama-3-8b", "sha256:9999")
        Traceback (most recent call last):
        ...
        labcore.errors.BaseDigestMismatchError: base 'llama-3-8b' is already registered with digest 'sha256:1111'; refusing to repoint it to 'sha256:9999' (register the new checkpoint under a new name)
        """
        text("base name", name)
        text("base digest", digest)
        with self._lock:
            known = self._bases.get(name)
            if known == digest:
                return
            if known is not None:
                raise BaseDigestMismatchError(
                    f"base {name!r} is already registered with digest {known!r}; refusing to repoint it "
                    f"to {digest!r} (register the new checkpoint under a new name)"
                )
            self._bases[name] = digest
            self.generation += 1

    def base_digest(self, name: str) -> str:
        """Return the declared digest of base ``name``.

        >>> reg = AdapterRegistry(); reg.register_base("llama-3-8b", "sha256:1111")
        >>> reg.base_digest("llama-3-8b")
        'sha256:1111'
        """
        try:
            return self._bases[name]
        except KeyError:
            raise UnknownBaseError(f"base {name!r} is not registered; known bases: {sorted(self._bases)}") from None

    @property
    def bases(self) -> dict[str, str]:
        """A copy of the declared bases, name to digest."""
        return dict(self._bases)

    # -- adapters ------------------------------------------------------------------------
    def register(self, adapter: Adapter) -> None:
        """Add an adapter version after checking its base is declared and its digest matches."""
        instance("register()'s adapter", adapter, Adapter)
        with self._lock:
            served = self._bases.get(adapter.base_model)
            if served is None:
                raise UnknownBaseError(
                    f"adapter {adapter.key} names base {adapter.base_model!r}, which is not registered; "
                    f"known bases: {sorted(self._bases)} (call register_base first)"
                )
            if adapter.base_digest != served:
                raise BaseDigestMismatchError(
                    f"adapter {adapter.key} was trained on {adapter.base_model} with digest "
                    f"{adapter.base_digest!r}, but the served {adapter.base_model} checkpoint has digest "
                    f"{served!r}; refusing it (it would run without error and answer with garbage)"
                )
            versions = self._by_name.get(adapter.name, {})
            if adapter.semver in versions:
                raise VersionExistsError(
                    f"{adapter.key} is already registered and versions are immutable; "
                    f"publish a new version instead (existing: {self._version_strings(adapter.name)})"
                )
            self._by_name.setdefault(adapter.name, versions)[adapter.semver] = adapter
            latest = self._latest.get(adapter.name)
            if latest is None or adapter.semver > latest.semver:
                self._latest[adapter.name] = adapter
            self._count += 1
            self.generation += 1

    def resolve(self, ref: str | AdapterKey) -> Adapter:
        """Return the adapter for a key, ``"name"`` (highest semver) or ``"name@x.y.z"`` (exactly that version).

        >>> AdapterRegistry().resolve("support-bot@2.1.0")
        Traceback (most recent call last):
        ...
        labcore.errors.AdapterNotFoundError: no adapter named 'support-bot' is registered; known adapters: []
        """
        if isinstance(ref, AdapterKey):
            return self.find(ref.name, ref.version)
        if not isinstance(ref, str):
            raise AdapterNotFoundError(f"adapter ref must be a string like 'name' or 'name@1.2.0', got {ref!r}")
        return self.find(*parse_adapter_ref(ref))

    def find(self, name: str, semver: Version | None = None) -> Adapter:
        """Return adapter ``name`` at the parsed version ``semver``, or its highest version if ``None``.

        :meth:`resolve` once the ref is parsed: the router hands on the version its model-ref parser read.

        >>> reg = AdapterRegistry(); reg.register_base("llama-3-8b", "sha256:1111")
        >>> reg.register(Adapter("support-bot", "1.10.0", "llama-3-8b", "sha256:1111", rank=16, vram_mb=16.0))
        >>> reg.find("support-bot", (1, 10, 0)) is reg.find("support-bot") is reg.resolve("support-bot@1.10.0")
        True
        """
        if semver is None:
            latest = self._latest.get(name)
            if latest is None:
                raise AdapterNotFoundError(
                    f"no adapter named {name!r} is registered; known adapters: {sorted(self._latest)}"
                )
            return latest
        versions = self._by_name.get(name)
        if versions is None:
            raise AdapterNotFoundError(
                f"no adapter named {name!r} is registered; known adapters: {sorted(self._latest)}"
            )
        try:
            return versions[semver]
        except KeyError:
            raise AdapterNotFoundError(
                f"{AdapterKey(name, semver)} is not registered; {name} has versions {self._version_strings(name)}"
            ) from None

    def versions(self, name: str) -> list[str]:
        """List the registered versions of ``name`` in semver order (empty if the name is unknown).

        >>> AdapterRegistry().versions("support-bot")
        []
        """
        return self._version_strings(name)

    def _version_strings(self, name: str) -> list[str]:
        return [a.version for _, a in sorted(self._by_name.get(name, {}).items())]

    def adapters(self) -> list[Adapter]:
        """Return every registered adapter, by name then semver."""
        return [a for name in sorted(self._by_name) for _, a in sorted(self._by_name[name].items())]

    def __len__(self) -> int:
        return self._count

    def __contains__(self, ref: object) -> bool:
        if isinstance(ref, Adapter):
            return self._by_name.get(ref.name, {}).get(ref.semver) == ref
        if not isinstance(ref, (str, AdapterKey)):
            return False
        try:
            self.resolve(ref)
        except (AdapterNotFoundError, ValueError):
            return False
        return True

    def __iter__(self) -> Iterator[Adapter]:
        return iter(self.adapters())

    def __repr__(self) -> str:
        return f"AdapterRegistry(bases={len(self._bases)}, adapters={self._count})"

    # -- persistence ---------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """Return a JSON-ready dict of the bases and adapters."""
        return {
            "format": REGISTRY_FORMAT,
            "bases": dict(sorted(self._bases.items())),
            "adapters": [{name: getattr(a, name) for name in _ADAPTER_FIELDS} for a in self.adapters()],
        }

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the registry to ``path`` as JSON, atomically (a crash never leaves a half file)."""
        path = Path(path)
        text = json.dumps(self.to_json(), indent=2) + "\n"
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def from_json(cls, data: object, *, source: str = "<json>") -> AdapterRegistry:
        """Rebuild a registry from :meth:`to_json` output, re-validating every base and adapter."""
        if not isinstance(data, dict) or data.get("format") != REGISTRY_FORMAT:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise RegistryFileError(
                f"{source}: not a labcore registry (format {found!r}, expected {REGISTRY_FORMAT!r})"
            )
        bases, adapters = data.get("bases"), data.get("adapters")
        if not isinstance(bases, dict) or not isinstance(adapters, list):
            raise RegistryFileError(f"{source}: 'bases' must be an object and 'adapters' a list")
        registry = cls()
        try:
            for name, digest in bases.items():
                registry.register_base(name, digest)
            for index, record in enumerate(adapters):
                if not isinstance(record, dict) or set(record) != set(_ADAPTER_FIELDS):
                    got = sorted(record) if isinstance(record, dict) else record
                    raise RegistryFileError(
                        f"adapter #{index} must have exactly the fields {list(_ADAPTER_FIELDS)}, got {got!r}"
                    )
                registry.register(Adapter(**record))
        except LabcoreError as error:
            raise type(error)(f"{source}: {error}") from error
        except ValueError as error:
            raise RegistryFileError(f"{source}: {error}") from error
        return registry

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> AdapterRegistry:
        """Read a registry saved by :meth:`save`, re-validating everything (digests, duplicate versions)."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise RegistryFileError(f"{path}: malformed JSON ({error})") from error
        return cls.from_json(data, source=str(path))
