"""The ``Adapter`` record: one versioned LoRA, bound to the base checkpoint it was trained on.

An adapter version is identified by its key, a :class:`labcore.refs.AdapterKey` (its name and parsed
version, printed ``name@version``): the registry, the cache and the router all carry that value.

>>> a = Adapter("support-bot", "2.1.0", "llama-3-8b", "sha256:aa11", rank=16, vram_mb=16.0)
>>> a.key, str(a.key)
(AdapterKey(name='support-bot', version=(2, 1, 0)), 'support-bot@2.1.0')
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from ._validate import count, flag, number, text
from .errors import InvalidAdapterError
from .refs import REF_SEPARATORS, AdapterKey
from .versions import Version, parse_version

_count = count  # tenant_adapters' own ``count`` argument shadows the helper

__all__ = ["Adapter", "tenant_adapters"]


@dataclass(frozen=True, slots=True)
class Adapter:
    """Describe one LoRA adapter version and the exact base checkpoint it belongs to.

    ``merged=True`` means ΔW was folded into a copy of the base weights: it is served by a
    dedicated replica, not hot-swapped. Validation rejects anything the registry could not route:

    >>> Adapter("bad:name", "1.0.0", "llama-3-8b", "sha256:aa11", rank=8, vram_mb=8.0)
    Traceback (most recent call last):
    ...
    labcore.errors.InvalidAdapterError: adapter name 'bad:name' must not contain ':' (reserved by the model-ref grammar base:adapter@version)
    """

    name: str
    version: str
    base_model: str
    base_digest: str
    rank: int
    vram_mb: float
    merged: bool = False
    key: AdapterKey = field(init=False, repr=False, compare=False)
    semver: Version = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        text("adapter name", self.name, error=InvalidAdapterError)
        for sep in REF_SEPARATORS:
            if sep in self.name:
                raise InvalidAdapterError(
                    f"adapter name {self.name!r} must not contain {sep!r} "
                    "(reserved by the model-ref grammar base:adapter@version)"
                )
        semver = parse_version(self.version)
        text(f"adapter {self.name!r}: base_model", self.base_model, error=InvalidAdapterError)
        text(f"adapter {self.name!r}: base_digest", self.base_digest, error=InvalidAdapterError)
        count(f"adapter {self.name!r}: rank", self.rank, error=InvalidAdapterError)
        number(f"adapter {self.name!r}: vram_mb", self.vram_mb, error=InvalidAdapterError)
        flag(f"adapter {self.name!r}: merged", self.merged, error=InvalidAdapterError)
        object.__setattr__(self, "key", AdapterKey(self.name, semver))
        object.__setattr__(self, "semver", semver)


def tenant_adapters(
    count: int,
    *,
    vram_mb: float = 16.0,
    rank: int = 16,
    base_model: str = "llama-3-8b",
    base_digest: str = "sha256:llama-3-8b-demo",
    version: str = "1.0.0",
    prefix: str = "tenant",
) -> list[Adapter]:
    """Make ``count`` same-sized adapters, one per tenant, named ``tenant-01``, ``tenant-02``, ...

    >>> [str(a.key) for a in tenant_adapters(2)]
    ['tenant-01@1.0.0', 'tenant-02@1.0.0']
    """
    _count("count", count)
    # A new list each call, of immutable adapters shared between calls with the same arguments: the fleet
    # panels price thousands of fleets of the same few sizes.
    args = (count, vram_mb, rank, base_model, base_digest, version, prefix)
    try:
        hash(args)
    except TypeError:  # not a cacheable argument: build uncached, so Adapter names the bad value
        return list(_make_tenant_adapters.__wrapped__(*args))
    return list(_make_tenant_adapters(*args))


@functools.lru_cache(maxsize=64, typed=True)
def _make_tenant_adapters(
    count: int, vram_mb: float, rank: int, base_model: str, base_digest: str, version: str, prefix: str
) -> tuple[Adapter, ...]:
    width = max(2, len(str(count)))
    return tuple(
        Adapter(f"{prefix}-{i:0{width}d}", version, base_model, base_digest, rank, vram_mb) for i in range(1, count + 1)
    )
