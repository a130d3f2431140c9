"""References as values: a model reference (:class:`ModelRef`) and an adapter version's key (:class:`AdapterKey`).

A client names what it wants in text, ``base[:adapter[@version]]``; that text is parsed once, at the edge,
and from there on the parsed values travel: the registry, the cache, the router's decisions and the
eviction log carry an :class:`AdapterKey`, never the string ``"name@version"`` to be split again.
A key prints as its text (``str(key)``), so a page or a log line shows what a client would write.

>>> key = AdapterKey.parse("support-bot@1.10.0")
>>> key.name, key.version, str(key)
('support-bot', (1, 10, 0), 'support-bot@1.10.0')
>>> sorted([key, AdapterKey("support-bot", (1, 9, 0))])[0] == AdapterKey.parse("support-bot@1.9.0")   # semver order
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ._validate import text
from .errors import InvalidAdapterError, InvalidModelRefError, InvalidVersionError
from .versions import Version, format_version, parse_version

__all__ = ["REF_SEPARATORS", "AdapterKey", "ModelRef", "adapter_ref_parts", "parse_adapter_ref"]

REF_SEPARATORS = (":", "@")  # the model-ref grammar base:adapter@version reserves these
_AT = REF_SEPARATORS[1]


def adapter_ref_parts(ref: str) -> tuple[str, str | None]:
    """Cut the text ``"name@version"`` or ``"name"`` into the name and the version text (``None`` if none).

    The grammar's one cut at ``@``, for the parsers only (:func:`parse_adapter_ref` and the model-ref
    parser); the version text is read by :func:`labcore.versions.parse_version`. ``"name@"`` gives an
    empty version, which that parser refuses.

    >>> adapter_ref_parts("support-bot@2.1.0"), adapter_ref_parts("support-bot"), adapter_ref_parts("support-bot@")
    (('support-bot', '2.1.0'), ('support-bot', None), ('support-bot', ''))
    """
    name, at, version = ref.partition(_AT)
    return name, (version if at else None)


def parse_adapter_ref(ref: str) -> tuple[str, Version | None]:
    """Parse ``"name"`` or ``"name@x.y.z"`` into the name and its parsed version (``None`` if unpinned).

    >>> parse_adapter_ref("support-bot@1.10.0"), parse_adapter_ref("support-bot")
    (('support-bot', (1, 10, 0)), ('support-bot', None))
    >>> parse_adapter_ref("support-bot@1.10")
    Traceback (most recent call last):
    ...
    labcore.errors.InvalidVersionError: invalid version '1.10': expected exactly MAJOR.MINOR.PATCH, e.g. '2.1.0'
    """
    if not isinstance(ref, str):
        raise InvalidAdapterError(f"adapter ref must be a string like 'name' or 'name@1.2.0', got {ref!r}")
    name, version = adapter_ref_parts(ref)
    return name, (None if version is None else parse_version(version))


@dataclass(frozen=True, slots=True, order=True)
class AdapterKey:
    """The identity of one adapter version: its name and its parsed version; prints as ``"name@version"``.

    Frozen and hashable (the cache's key), ordered by name then semver. The version is the tuple a
    ``parse_version`` returns (three ints), kept as a :class:`labcore.versions.Version`.

    >>> AdapterKey("support-bot", (2, 1, 0))
    AdapterKey(name='support-bot', version=(2, 1, 0))
    >>> f"{AdapterKey('a', (1, 0, 0)):>8}|"
    ' a@1.0.0|'
    >>> AdapterKey("support@bot", (1, 0, 0))
    Traceback (most recent call last):
    ...
    labcore.errors.InvalidAdapterError: adapter key name 'support@bot' must not contain '@' (reserved by the model-ref grammar base:adapter@version)
    """

    name: str
    version: Version
    _hash: int = field(init=False, repr=False, compare=False)
    _text: str = field(init=False, repr=False, compare=False)  # "" until the first str(), then its text

    def __post_init__(self) -> None:
        text("adapter key name", self.name, error=InvalidAdapterError)
        for sep in REF_SEPARATORS:
            if sep in self.name:
                raise InvalidAdapterError(
                    f"adapter key name {self.name!r} must not contain {sep!r} "
                    "(reserved by the model-ref grammar base:adapter@version)"
                )
        version = self.version
        if not (isinstance(version, tuple) and len(version) == 3):  # what the lab's parse_version returns, as it is
            raise InvalidVersionError(
                f"adapter key {self.name!r}: version must be a parsed (MAJOR, MINOR, PATCH) tuple, got {version!r}"
            )
        object.__setattr__(self, "version", version if type(version) is Version else Version(version))
        object.__setattr__(self, "_hash", hash((self.name, version)))
        object.__setattr__(self, "_text", "")  # not formatted here: a lab's format_version may still be a TODO

    @classmethod
    def parse(cls, ref: str) -> AdapterKey:
        """Parse the text ``"name@x.y.z"`` (a version is required) into a key: the one edge that reads a key's text.

        >>> AdapterKey.parse("tenant-01@1.0.0") == AdapterKey("tenant-01", (1, 0, 0))
        True
        >>> AdapterKey.parse("tenant-01")
        Traceback (most recent call last):
        ...
        labcore.errors.InvalidAdapterError: invalid adapter key 'tenant-01': expected 'name@MAJOR.MINOR.PATCH'
        """
        name, version = parse_adapter_ref(ref)
        if version is None:
            raise InvalidAdapterError(f"invalid adapter key {ref!r}: expected 'name@MAJOR.MINOR.PATCH'")
        return cls(name, version)

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        if not self._text:  # the first str() of this key; a message naming many keys reuses it (names are non-empty)
            object.__setattr__(self, "_text", f"{self.name}{_AT}{format_version(self.version)}")
        return self._text

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


@dataclass(frozen=True, slots=True)
class ModelRef:
    """A parsed ``base[:adapter[@version]]`` reference, carrying its version parsed once (``semver``).

    >>> ModelRef("llama-3-8b", "support-bot", "2.1.0").semver
    (2, 1, 0)
    """

    base: str
    adapter: str | None = None
    version: str | None = None
    #: ``version`` parsed (``None`` when unpinned): what the registry looks the adapter up by.
    semver: Version | None = field(init=False, repr=False, compare=False)
    #: The reference as a client writes it, ``base[:adapter[@version]]`` (also ``str(ref)``).
    text: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ref_text = self.base if self.adapter is None else f"{self.base}:{self.adapter_ref}"
        for part in (self.base, self.adapter):  # a separator inside a part would read as another ref
            if part is not None and any(sep in part for sep in REF_SEPARATORS):
                raise InvalidModelRefError(
                    f"invalid model ref {ref_text!r}: {part!r} holds one of the separators {REF_SEPARATORS} "
                    "(expected 'base', 'base:adapter' or 'base:adapter@MAJOR.MINOR.PATCH')"
                )
        object.__setattr__(self, "semver", None if self.version is None else parse_version(self.version))
        object.__setattr__(self, "text", ref_text)

    @property
    def adapter_ref(self) -> str | None:
        """The adapter part as a client writes it: ``"name@version"``, ``"name"``, or ``None`` for the bare base."""
        if self.adapter is None:
            return None
        return self.adapter if self.version is None else f"{self.adapter}{_AT}{self.version}"

    @property
    def key(self) -> AdapterKey | None:
        """The key of the pinned adapter version, or ``None`` (the bare base, or an unpinned name).

        >>> ModelRef("llama-3-8b", "support-bot", "2.1.0").key
        AdapterKey(name='support-bot', version=(2, 1, 0))
        """
        if self.adapter is None or self.semver is None:
            return None
        return AdapterKey(self.adapter, self.semver)

    def __str__(self) -> str:
        return self.text
