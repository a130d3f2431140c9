# Generated from labcore/registry.py by scripts/make_skeleton.py. Do not edit this copy:
# cp -r lab/skeleton lab/mine, fill in every TODO(lab), then LAB_MODULE=lab.mine pytest tests/contract

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
from .adapter import Adapter
from .errors import AdapterNotFoundError, BaseDigestMismatchError, LabcoreError, RegistryFileError, UnknownBaseError, VersionExistsError
from .versions import Version, format_version, parse_version
from ._validate import instance, text
__all__ = ['AdapterRegistry', 'REGISTRY_FORMAT']
REGISTRY_FORMAT = 'labcore.registry/1'
_ADAPTER_FIELDS = tuple((f.name for f in fields(Adapter) if f.init))

class AdapterRegistry:
    """Hold base checkpoints by digest and adapters by ``name@version``; resolve refs by semver.

    Registration is atomic: a rejected adapter leaves no trace. Safe to share between threads.
    """

    def __init__(self) -> None:
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.__init__: see what tests/contract/test_registry.py asks of it')

    def register_base(self, name: str, digest: str) -> None:
        """Declare a served base checkpoint; the same digest again is a no-op, another one is refused.

        >>> reg = AdapterRegistry(); reg.register_base("llama-3-8b", "sha256:1111")
        >>> reg.register_base("llama-3-8b", "sha256:9999")
        Traceback (most recent call last):
        ...
        labcore.errors.BaseDigestMismatchError: base 'llama-3-8b' is already registered with digest 'sha256:1111'; refusing to repoint it to 'sha256:9999' (register the new checkpoint under a new name)
        """
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.register_base: Declare a served base checkpoint; the same digest again is a no-op, another one is refused.')

    def base_digest(self, name: str) -> str:
        """Return the declared digest of base ``name``.

        >>> reg = AdapterRegistry(); reg.register_base("llama-3-8b", "sha256:1111")
        >>> reg.base_digest("llama-3-8b")
        'sha256:1111'
        """
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.base_digest: Return the declared digest of base ``name``.')

    @property
    def bases(self) -> dict[str, str]:
        """A copy of the declared bases, name to digest."""
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.bases: A copy of the declared bases, name to digest.')

    def register(self, adapter: Adapter) -> None:
        """Add an adapter version after checking its base is declared and its digest matches."""
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.register: Add an adapter version after checking its base is declared and its digest matches.')

    def resolve(self, ref: str) -> Adapter:
        """Return the adapter for ``"name"`` (highest semver) or ``"name@x.y.z"`` (exactly that version).

        >>> AdapterRegistry().resolve("support-bot@2.1.0")
        Traceback (most recent call last):
        ...
        labcore.errors.AdapterNotFoundError: no adapter named 'support-bot' is registered; known adapters: []
        """
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.resolve: Return the adapter for ``"name"`` (highest semver) or ``"name@x.y.z"`` (exactly that version).')

    def versions(self, name: str) -> list[str]:
        """List the registered versions of ``name`` in semver order (empty if the name is unknown).

        >>> AdapterRegistry().versions("support-bot")
        []
        """
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.versions: List the registered versions of ``name`` in semver order (empty if the name is unknown).')

    def adapters(self) -> list[Adapter]:
        """Return every registered adapter, by name then semver."""
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.adapters: Return every registered adapter, by name then semver.')

    def __len__(self) -> int:
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.__len__: see what tests/contract/test_registry.py asks of it')

    def __contains__(self, ref: object) -> bool:
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.__contains__: see what tests/contract/test_registry.py asks of it')

    def __iter__(self) -> Iterator[Adapter]:
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.__iter__: see what tests/contract/test_registry.py asks of it')

    def __repr__(self) -> str:
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.__repr__: see what tests/contract/test_registry.py asks of it')

    def to_json(self) -> dict:
        """Return a JSON-ready dict of the bases and adapters."""
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.to_json: Return a JSON-ready dict of the bases and adapters.')

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the registry to ``path`` as JSON, atomically (a crash never leaves a half file)."""
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.save: Write the registry to ``path`` as JSON, atomically (a crash never leaves a half file).')

    @classmethod
    def from_json(cls, data: object, *, source: str='<json>') -> AdapterRegistry:
        """Rebuild a registry from :meth:`to_json` output, re-validating every base and adapter."""
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.from_json: Rebuild a registry from :meth:`to_json` output, re-validating every base and adapter.')

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> AdapterRegistry:
        """Read a registry saved by :meth:`save`, re-validating everything (digests, duplicate versions)."""
        raise NotImplementedError('TODO(lab): implement registry.AdapterRegistry.load: Read a registry saved by :meth:`save`, re-validating everything (digests, duplicate versions).')
