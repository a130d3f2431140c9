"""Errors raised by labcore: one base class, one subclass per way a request can be wrong.

Every subclass also subclasses the builtin it refines, so ``except ValueError`` and
``except KeyError`` keep working for callers who do not know labcore.

>>> issubclass(BaseDigestMismatchError, ValueError) and issubclass(BaseDigestMismatchError, LabcoreError)
True
"""

from __future__ import annotations

import os

__all__ = [
    "LabcoreError",
    "InvalidVersionError",
    "InvalidModelRefError",
    "InvalidAdapterError",
    "UnknownBaseError",
    "BaseDigestMismatchError",
    "VersionExistsError",
    "WrongBaseError",
    "AdapterTooLargeError",
    "AdapterNotFoundError",
    "AdapterInUseError",
    "QueueFullError",
    "RegistryFileError",
    "ModelConfigError",
    "CheckpointDigestError",
    "UnsafeAdapterFormatError",
    "AdapterFileError",
    "UnknownEngineError",
    "UnsupportedModelError",
]


class LabcoreError(Exception):
    """Base class of every error labcore raises on purpose."""


class InvalidVersionError(LabcoreError, ValueError):
    """A version string is not strict ``MAJOR.MINOR.PATCH`` semver."""


class InvalidModelRefError(LabcoreError, ValueError):
    """A model reference does not follow ``base[:adapter[@version]]``."""


class InvalidAdapterError(LabcoreError, ValueError):
    """An adapter record has a field the registry could not route or size."""


class UnknownBaseError(LabcoreError, ValueError):
    """An adapter names a base checkpoint the registry was never told about."""


class BaseDigestMismatchError(LabcoreError, ValueError):
    """An adapter was trained on another checkpoint than the one being served."""


class VersionExistsError(LabcoreError, ValueError):
    """A ``name@version`` is already registered; versions are immutable."""


class WrongBaseError(LabcoreError, ValueError):
    """A request or adapter targets a base model this router does not serve."""


class AdapterTooLargeError(LabcoreError, ValueError):
    """An adapter is bigger than the whole cache budget, so it can never be resident."""


class AdapterInUseError(LabcoreError, ValueError):
    """Not enough VRAM can be freed because the resident adapters are pinned by in-flight requests."""


class RegistryFileError(LabcoreError, ValueError):
    """A saved registry file is malformed or fails re-validation."""


class QueueFullError(LabcoreError, RuntimeError):
    """A request found no evictable VRAM and no room left in the admission queue."""


class AdapterNotFoundError(LabcoreError, KeyError):
    """No registered adapter matches a name or ``name@version``."""

    def __str__(self) -> str:  # KeyError would repr() the message; show it as written.
        return str(self.args[0]) if self.args else ""


class AdapterFileError(LabcoreError, ValueError):
    """An adapter directory or file is missing, malformed, or inconsistent; the message names the file."""

    def __init__(self, path: str | os.PathLike[str], problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


class UnsafeAdapterFormatError(AdapterFileError):
    """An adapter ships only pickle-based weights (``adapter_model.bin``), which labcore never loads."""


class CheckpointDigestError(LabcoreError, ValueError):
    """A checkpoint cannot be digested: no weight files, unreadable, or changed while being read."""


class ModelConfigError(LabcoreError, ValueError):
    """A model config is missing a dimension, has an inconsistent one, or a target is unknown."""


class UnknownEngineError(LabcoreError, ValueError):
    """An engine name is not one whose LoRA allocation labcore models (``labcore.engines``)."""


class UnsupportedModelError(LabcoreError, ValueError):
    """A model has a feature (experts of some kind, a large vocabulary...) an engine's LoRA code refuses."""
