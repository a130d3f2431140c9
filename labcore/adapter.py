"""The ``Adapter`` record: one versioned LoRA, bound to the base checkpoint it was trained on.

>>> a = Adapter("support-bot", "2.1.0", "llama-3-8b", "sha256:aa11", rank=16, vram_mb=16.0)
>>> a.key
'support-bot@2.1.0'
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .errors import InvalidAdapterError
from .versions import Version, parse_version

__all__ = ["Adapter", "REF_SEPARATORS", "tenant_adapters"]

REF_SEPARATORS = (":", "@")  # the model-ref grammar base:adapter@version reserves these


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
        if not isinstance(self.name, str) or not self.name.strip():
            raise InvalidAdapterError(f"adapter name must be a non-empty string, got {self.name!r}")
        for sep in REF_SEPARATORS:
            if sep in self.name:
                raise InvalidAdapterError(
                    f"adapter name {self.name!r} must not contain {sep!r} "
                    "(reserved by the model-ref grammar base:adapter@version)"
                )
        semver = parse_version(self.version)
        for label, value in (("base_model", self.base_model), ("base_digest", self.base_digest)):
            if not isinstance(value, str) or not value.strip():
                raise InvalidAdapterError(f"adapter {self.name!r}: {label} must be a non-empty string, got {value!r}")
        if isinstance(self.rank, bool) or not isinstance(self.rank, int) or self.rank <= 0:
            raise InvalidAdapterError(f"adapter {self.name!r}: rank must be a positive int, got {self.rank!r}")
        if (
            isinstance(self.vram_mb, bool)
            or not isinstance(self.vram_mb, (int, float))
            or not self.vram_mb > 0
            or math.isinf(self.vram_mb)
        ):
            raise InvalidAdapterError(f"adapter {self.name!r}: vram_mb must be a positive finite number, got {self.vram_mb!r}")
        if not isinstance(self.merged, bool):
            raise InvalidAdapterError(f"adapter {self.name!r}: merged must be True or False, got {self.merged!r}")
        object.__setattr__(self, "key", f"{self.name}@{self.version}")
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
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"count must be a positive int, got {count!r}")
    width = max(2, len(str(count)))
    return [
        Adapter(f"{prefix}-{i:0{width}d}", version, base_model, base_digest, rank, vram_mb)
        for i in range(1, count + 1)
    ]
