"""How the tenants' adapters reach a running engine: a fixed list at start, vLLM's filesystem resolver, or loading.

Three routes, as vLLM 0.33.0 and SGLang 0.5.23 offer them:

* ``static``: a fixed set named at start, ``--lora-modules name=path ...`` (vLLM,
  ``vllm/entrypoints/common/cli_args.py`` ``LoRAParserAction``) and ``--lora-paths name=path ...``
  (SGLang, ``sglang/srt/arg_groups/fields/lora.py``);
* ``resolver``: tenants that come and go, each in a folder named after it; vLLM's
  ``lora_filesystem_resolver`` plugin (``vllm/plugins/lora_resolvers/filesystem_resolver.py``, registered
  in the wheel's ``entry_points.txt``) loads ``VLLM_LORA_RESOLVER_CACHE_DIR/<name>`` on the first request
  for ``<name>``, only with ``VLLM_ALLOW_RUNTIME_LORA_UPDATING`` on (``vllm/envs.py``,
  ``vllm/entrypoints/serve/engine/serving.py``) and only if the folder's ``adapter_config.json`` has
  ``peft_type`` LORA and ``base_model_name_or_path`` equal to the served model. SGLang has no resolver:
  its adapters arrive by the loading call;
* ``runtime``: an operator loads each adapter with ``POST /v1/load_lora_adapter`` (vLLM, with
  ``VLLM_ALLOW_RUNTIME_LORA_UPDATING``; ``vllm/entrypoints/serve/lora/api_router.py``) or
  ``POST /load_lora_adapter`` (SGLang, ``sglang/srt/entrypoints/http_server.py``), body
  ``{"lora_name": ..., "lora_path": ...}``.

>>> a = adapter_loading("static", 3)
>>> a.names, a.path("tenant-02")
(('tenant-01', 'tenant-02', 'tenant-03'), '/adapters/tenant-02')
"""

from __future__ import annotations

import json
import posixpath
import shlex
from dataclasses import dataclass

from .._validate import choice, count, distinct, text
from ..adapter import tenant_adapters

__all__ = [
    "ADAPTER_MODES",
    "DEFAULT_ADAPTER_DIR",
    "VLLM_PORT",
    "SGLANG_PORT",
    "AdapterLoading",
    "adapter_loading",
    "load_call",
]

#: The three routes, in the order the plan command lists them.
ADAPTER_MODES: tuple[str, ...] = ("static", "resolver", "runtime")
#: Where the commands expect the tenants' PEFT folders (adapter_config.json, adapter_model.safetensors).
DEFAULT_ADAPTER_DIR = "/adapters"
#: The servers' default ports: vLLM ``BaseFrontendArgs.port`` 8000 (vllm/entrypoints/common/cli_args.py),
#: SGLang ``port`` 30000 (sglang/srt/arg_groups/fields/serving.py).
VLLM_PORT = 8000
SGLANG_PORT = 30000
#: The environment variables each route sets for vLLM (names read in vllm/envs.py at 0.33.0).
VLLM_ENV: dict[str, tuple[tuple[str, str], ...]] = {
    "static": (),
    "resolver": (("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "True"), ("VLLM_PLUGINS", "lora_filesystem_resolver")),
    "runtime": (("VLLM_ALLOW_RUNTIME_LORA_UPDATING", "True"),),
}
_BAD_CHARS = frozenset(" \t\n=,")


@dataclass(frozen=True, slots=True)
class AdapterLoading:
    """Hold how the adapters arrive: the route (:data:`ADAPTER_MODES`), their folder, and the tenants' names.

    >>> AdapterLoading("static", "/srv/a", ("a", "b")).path("b")
    '/srv/a/b'
    >>> AdapterLoading("by post", "/a", ("a",))
    Traceback (most recent call last):
    ...
    ValueError: adapter loading must be one of 'static', 'resolver', 'runtime', got 'by post'
    """

    mode: str
    directory: str
    names: tuple[str, ...]

    def __post_init__(self) -> None:
        choice("adapter loading", self.mode, ADAPTER_MODES)
        text("adapter directory", self.directory)
        distinct("adapter names", self.names, nonempty=True)
        for word in (self.directory, *self.names):
            if _BAD_CHARS & set(word):
                raise ValueError(f"adapter directory and names take no spaces, '=' or ',', got {word!r}")

    def path(self, name: str) -> str:
        """Return the folder of tenant ``name``'s adapter."""
        return posixpath.join(self.directory, name)

    def pairs(self) -> str:
        """Return the fixed set as ``name=path`` words, the form both engines' lists take."""
        return " ".join(f"{n}={self.path(n)}" for n in self.names)


def adapter_loading(mode: str, tenants: int, *, directory: str = DEFAULT_ADAPTER_DIR) -> AdapterLoading:
    """Return the route ``mode`` for ``tenants`` adapters in ``directory``, named as :func:`~labcore.adapter.tenant_adapters` names them.

    >>> adapter_loading("resolver", 12).names[-1]
    'tenant-12'
    """
    count("tenants", tenants)
    return AdapterLoading(mode, directory, tuple(a.name for a in tenant_adapters(tenants)))


def load_call(engine_port: int, route: str, name: str, path: str) -> str:
    """Return the ``curl`` line that loads one adapter into a running server.

    >>> load_call(30000, "/load_lora_adapter", "t", "/a/t")
    'curl -X POST localhost:30000/load_lora_adapter -H \\'Content-Type: application/json\\' -d \\'{"lora_name": "t", "lora_path": "/a/t"}\\''
    """
    body = json.dumps({"lora_name": name, "lora_path": path})
    return shlex.join(
        ["curl", "-X", "POST", f"localhost:{engine_port}{route}", "-H", "Content-Type: application/json", "-d", body]
    )
