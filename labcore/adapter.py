"""The ``Adapter`` record: one versioned LoRA, bound to the base checkpoint it was trained on.

An adapter version is identified by its key, ``name@version``: the registry, the cache and the router
all name it so. This module owns that key: :func:`adapter_key` builds it and :func:`split_key` splits
it (or a bare name), so nothing else formats or splits the string.

>>> a = Adapter("support-bot", "2.1.0", "llama-3-8b", "sha256:aa11", rank=16, vram_mb=16.0)
>>> a.key, split_key(a.key), split_key("support-bot")
('support-bot@2.1.0', ('support-bot', '2.1.0'), ('support-bot', None))
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from .errors import InvalidAdapterError
from .versions import Version, parse_version
from ._validate import count, flag, number, text

_count = count  # tenant_adapters' own ``count`` argument shadows the helper

__all__ = ["Adapter", "REF_SEPARATORS", "adapter_key", "split_key", "tenant_adapters"]

REF_SEPARATORS = (":", "@")  # the model-ref grammar base:adapter@version reserves these
_KEY_SEPARATOR = REF_SEPARATORS[1]


def adapter_key(name: str, version: str) -> str:
    """Return the key of adapter ``name`` at ``version``: ``"name@version"``.

    >>> adapter_key("support-bot", "2.1.0")
    'support-bot@2.1.0'
    """
    return f"{name}{_KEY_SEPARATOR}{version}"


def split_key(ref: str) -> tuple[str, str | None]:
    """Split an adapter ref, ``"name@version"`` or ``"name"``, into the name and the version text (``None`` if none).

    The version text is not parsed here (:func:`labcore.versions.parse_version` is its one parser);
    ``"name@"`` gives an empty version, which that parser refuses.

    >>> split_key("support-bot@2.1.0"), split_key("support-bot"), split_key("support-bot@")
    (('support-bot', '2.1.0'), ('support-bot', None), ('support-bot', ''))
    """
    name, at, version = ref.partition(_KEY_SEPARATOR)
    return name, (version if at else None)


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
    key: str = field(init=False, repr=False, compare=False)
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
        object.__setattr__(self, "key", adapter_key(self.name, self.version))
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

    >>> [a.key for a in tenant_adapters(2)]
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
def _make_tenant_adapters(count: int, vram_mb: float, rank: int, base_model: str, base_digest: str, version: str,
                          prefix: str) -> tuple[Adapter, ...]:
    width = max(2, len(str(count)))
    return tuple(
        Adapter(f"{prefix}-{i:0{width}d}", version, base_model, base_digest, rank, vram_mb)
        for i in range(1, count + 1)
    )
