# Generated from labcore/adapter.py by scripts/make_skeleton.py. Do not edit this copy:
# cp -r lab/skeleton lab/mine, fill in every TODO(lab), then LAB_MODULE=lab.mine pytest tests/contract

"""The ``Adapter`` record: one versioned LoRA, bound to the base checkpoint it was trained on.

>>> a = Adapter("support-bot", "2.1.0", "llama-3-8b", "sha256:aa11", rank=16, vram_mb=16.0)
>>> a.key
'support-bot@2.1.0'
"""
from __future__ import annotations
import functools
from dataclasses import dataclass, field
from .errors import InvalidAdapterError
from .versions import Version, parse_version
from ._validate import count, flag, number, text
_count = count
__all__ = ['Adapter', 'REF_SEPARATORS', 'tenant_adapters']
REF_SEPARATORS = (':', '@')

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
        raise NotImplementedError('TODO(lab): implement adapter.Adapter.__post_init__: see what tests/contract/test_adapter.py asks of it')

def tenant_adapters(count: int, *, vram_mb: float=16.0, rank: int=16, base_model: str='llama-3-8b', base_digest: str='sha256:llama-3-8b-demo', version: str='1.0.0', prefix: str='tenant') -> list[Adapter]:
    """Make ``count`` same-sized adapters, one per tenant, named ``tenant-01``, ``tenant-02``, ...

    >>> [a.key for a in tenant_adapters(2)]
    ['tenant-01@1.0.0', 'tenant-02@1.0.0']
    """
    raise NotImplementedError('TODO(lab): implement adapter.tenant_adapters: Make ``count`` same-sized adapters, one per tenant, named ``tenant-01``, ``tenant-02``, ...')
