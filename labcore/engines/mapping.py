"""The production mapping: each labcore concept next to the engine setting that plays its part.

One frozen :class:`EngineSetting` per (engine, setting): what the setting does, its documented
default, the labcore objects it corresponds to (importable dotted names, checked by the tests), the
version and the source it was checked against. vLLM's and SGLang's rows are read in their released
wheels (0.33.0 and 0.5.23, ``make engines``): each source names files and the classes, functions and
fields in them, and the tests check every name is defined in that file at the release. LoRAX's rows cite
its documentation and source at its latest release tag. TensorRT-LLM's rows cite its Triton backend's documentation
at a commit and a source file at an unpinned commit: they are marked ``verified=False`` and shown as unverified
(:data:`TENSORRT_LLM_UNVERIFIED` says why). Rows whose ``engine`` is :data:`NONE` record where none of the four
engines has a counterpart in the sources read.

>>> rows = production_mapping()
>>> sorted({r.engine for r in rows}) == sorted(ENGINES + (NONE,))
True
>>> next(r for r in rows if r.setting == "--max-loras-per-batch").default
'8'
"""

from __future__ import annotations

import dataclasses
import html
import importlib
import inspect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .._validate import choice, flag, instance, text
from .allocation import lora_slot_bytes

__all__ = [
    "VLLM",
    "SGLANG",
    "TENSORRT_LLM",
    "TENSORRT_LLM_UNVERIFIED",
    "LORAX",
    "ENGINES",
    "NONE",
    "KINDS",
    "EngineSetting",
    "production_mapping",
    "settings_for",
    "resolve_labcore_name",
    "mapping_rows",
    "mapping_table_html",
]

VLLM = "vLLM"
SGLANG = "SGLang"
TENSORRT_LLM = "TensorRT-LLM"
LORAX = "LoRAX"
ENGINES: tuple[str, ...] = (VLLM, SGLANG, TENSORRT_LLM, LORAX)
#: The "engine" of rows that record a gap: none of the four has a counterpart.
NONE = "none of the four"
KINDS: tuple[str, ...] = ("flag", "config", "env", "api", "plugin", "request", "behaviour", "gap")


@dataclass(frozen=True, slots=True)
class EngineSetting:
    """One engine setting (flag, config key, endpoint, behaviour) and the labcore concept it corresponds to.

    ``labcore`` lists importable names (``"labcore.cache.AdapterCache"``), a ``:param`` suffix naming
    a constructor parameter or record field (``"labcore.cache.AdapterCache:vram_budget_mb"``).
    ``default`` is empty where the source documents none. ``version`` is what the fact was checked
    against (a release's documentation or a commit); ``source`` the page and section or the file.

    >>> EngineSetting("vLLM", "v1", "--x", "flag", "does x", "", "x", ("labcore.cache.AdapterCache",), "")
    Traceback (most recent call last):
    ...
    ValueError: source must be a non-empty string, got ''
    """

    engine: str
    version: str
    setting: str
    kind: str
    does: str
    default: str
    concept: str
    labcore: tuple[str, ...]
    source: str
    note: str = ""
    verified: bool = True

    def __post_init__(self) -> None:
        choice("engine", self.engine, (*ENGINES, NONE))
        for name in ("version", "setting", "does", "concept", "source"):
            text(name, getattr(self, name))
        choice("kind", self.kind, KINDS)
        instance("default", self.default, str, error=ValueError)
        instance("note", self.note, str, error=ValueError)
        names = tuple(instance("labcore", self.labcore, tuple, error=ValueError))
        if not names or not all(isinstance(n, str) and n.startswith("labcore.") for n in names):
            raise ValueError(
                f"labcore must name at least one labcore object like 'labcore.cache.AdapterCache', got {self.labcore!r}"
            )
        flag("verified", self.verified)


def resolve_labcore_name(name: str) -> Any:
    """Import the object a dotted ``labcore`` name points to (``module.Object[.attr][:param]``); raise if absent.

    >>> resolve_labcore_name("labcore.cache.AdapterCache:vram_budget_mb").__name__
    'AdapterCache'
    >>> resolve_labcore_name("labcore.cache.AdapterCache:budget")
    Traceback (most recent call last):
    ...
    LookupError: labcore.cache.AdapterCache has no parameter or field 'budget'
    """

    path, _, param = text("labcore name", name).partition(":")
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                raise LookupError(f"{'.'.join(parts[:cut])} has no attribute {attr!r} (looking up {name!r})")
            obj = getattr(obj, attr)
        break
    else:  # pragma: no cover - 'labcore' itself always imports
        raise LookupError(f"no module in {path!r}")
    if param:
        fields = {f.name for f in dataclasses.fields(obj)} if dataclasses.is_dataclass(obj) else set()
        try:
            fields |= set(inspect.signature(obj).parameters)
        except (TypeError, ValueError):
            pass
        if param not in fields:
            raise LookupError(f"{path} has no parameter or field {param!r}")
    return obj


# Sources, shortened once here. vLLM and SGLang: a file and its names in the released wheel (vLLM 0.33.0, SGLang
# 0.5.23, read by make engines; the tests check every name is defined in that file at the release).
_V, _S = "0.33.0", "0.5.23"
_VLLM_LORA_CONFIG = "vllm-0.33.0 vllm/config/lora.py LoRAConfig"
_VLLM_ARGS = "vllm-0.33.0 vllm/engine/arg_utils.py EngineArgs.enable_lora and EngineArgs.add_cli_args"
_VLLM_SCHED = "vllm-0.33.0 vllm/v1/core/sched/scheduler.py Scheduler.schedule"
_VLLM_LAYERS = (
    "vllm-0.33.0 vllm/lora/layers/base_linear.py BaseLinearLayerWithLoRA.create_lora_weights; "
    "vllm/lora/layers/column_parallel_linear.py MergedColumnParallelLinearWithLoRA; "
    "vllm/lora/layers/vocab_parallel_embedding.py VocabParallelEmbeddingWithLoRA.create_lora_weights"
)
_VLLM_KV = "vllm-0.33.0 vllm/v1/core/kv_cache_utils.py _gen_lora_extra_hash_keys"
_VLLM_MANAGER = "vllm-0.33.0 vllm/lora/model_manager.py LoRAModelManager.__init__ and LRUCacheLoRAModelManager"
_VLLM_LOAD = (
    "vllm-0.33.0 vllm/entrypoints/serve/lora/api_router.py attach_router; vllm/entrypoints/serve/lora/"
    "protocol.py LoadLoRAAdapterRequest"
)
_VLLM_ENV = (
    "vllm-0.33.0 vllm/envs.py VLLM_ALLOW_RUNTIME_LORA_UPDATING; vllm/entrypoints/serve/engine/serving.py; "
    "vllm/entrypoints/serve/lora/api_router.py attach_router"
)
_VLLM_RESOLVER = (
    "vllm-0.33.0 vllm/lora/resolver.py LoRAResolver.resolve_lora; vllm/plugins/lora_resolvers/"
    "filesystem_resolver.py FilesystemResolver._get_lora_req_from_path and register_filesystem_resolver"
)
_SGLANG_FIELDS = "sglang-0.5.23 sglang/srt/arg_groups/fields/lora.py Lora"
_SGLANG_BATCH = "sglang-0.5.23 sglang/srt/lora/lora_manager.py LoRAManager.validate_lora_batch"
_SGLANG_PIN = "sglang-0.5.23 sglang/srt/lora/lora_manager.py LoRAManager.validate_new_adapter"
_SGLANG_LOAD = "sglang-0.5.23 sglang/srt/entrypoints/http_server.py load_lora_adapter and unload_lora_adapter"
_SGLANG_HOOK = "sglang-0.5.23 sglang/srt/arg_groups/lora_hook.py check_lora_server_args"
_SGLANG_MODEL = "sglang-0.5.23 sglang/srt/entrypoints/openai/serving_base.py OpenAIServingBase"
_TRT_DOCS = "triton-inference-server/tensorrtllm_backend docs/model_config.md (commit 05ceae03)"
_TRT_MODEL = (
    "triton-inference-server/tensorrtllm_backend all_models/inflight_batcher_llm/tensorrt_llm/1/model.py, "
    "get_peft_cache_config (commit 01200cc4)"
)
_L = "0.12.1"  # LoRAX's latest release tag, v0.12.1 (2024-11-21); read by scripts/lorax_facts.py
_LORAX_TAG = f"predibase/lorax v{_L} (commit c0e57983)"
_LORAX_LAUNCHER = f"{_LORAX_TAG} docs/reference/launcher.md"
_LORAX_INDEX = f"{_LORAX_TAG} docs/index.md, Features"
_LORAX_MAIN = f"{_LORAX_TAG} launcher/src/main.rs, struct Args"
_LORAX_SERVER = f"{_LORAX_TAG} server/lorax_server/models/flash_causal_lm.py, ADAPTER_MEMORY_FRACTION"
_LORAX_PRS = (
    "predibase/lorax pull requests #303 (merged 2024-03-04: the reservation) and #306 (2024-03-06: the "
    "scheduler loads an adapter only if it fits the reservation; it gives 128 as the old default)"
)
_TRT_LLMAPI = (
    "NVIDIA/TensorRT-LLM tensorrt_llm/llmapi/llm_args.py, class PeftCacheConfig, field device_cache_percent "
    "(three stored versions of the file in the code index agree; commit not pinned)"
)

_ROWS: tuple[tuple[Any, ...], ...] = (
    # ---- vLLM ------------------------------------------------------------------------------
    (
        VLLM,
        _V,
        "--enable-lora",
        "flag",
        "turns on LoRA serving (help: 'If True, enable handling of LoRA adapters.') with the LoRAConfig of the "
        "rows below; a request names its adapter in the model field",
        "off (--enable-lora / --no-enable-lora)",
        "dynamic mode of MultiLoRARouter",
        ("labcore.router.MultiLoRARouter", "labcore.router.MODE_DYNAMIC"),
        _VLLM_ARGS,
    ),
    (
        VLLM,
        _V,
        "--max-loras",
        "config",
        "'Max number of LoRAs in a single batch': the GPU slots; the scheduler skips a waiting request whose "
        "adapter would exceed it ('Scheduling would exceed max_loras, skip.'); a request for the base model needs "
        "no slot",
        "1",
        "SlotScheduler(max_slots=..., base_takes_slot=False), BatchCostModel(max_loras=...)",
        (
            "labcore.slots.SlotScheduler:max_slots",
            "labcore.slots.SlotScheduler:base_takes_slot",
            "labcore.batching.BatchCostModel:max_loras",
        ),
        f"{_VLLM_LORA_CONFIG}.max_loras; {_VLLM_SCHED}",
        "a slot count, not MiB: what a slot costs is the next row",
    ),
    (
        VLLM,
        _V,
        "--max-lora-rank",
        "config",
        "'Max LoRA rank'; allowed values 1, 8, 16, 32, 64, 128, 256, 320, 512 (MaxLoRARanks); at model load every "
        "slot gets an A (rank x input) and a B (output x rank) buffer at this rank, whatever an adapter's own rank, "
        "in every LoRA-capable module (packed qkv_proj with k and v at the grouped-query width, o_proj, packed "
        "gate_up_proj, down_proj, and the embedding and lm_head where the model class declares embedding_modules)",
        "16",
        "lora_slot_bytes / slot_pool_mb(max_lora_rank=...); Adapter.rank",
        (
            "labcore.engines.allocation.lora_slot_bytes:max_rank",
            "labcore.slots.slot_pool_mb:max_lora_rank",
            "labcore.adapter.Adapter:rank",
        ),
        f"{_VLLM_LORA_CONFIG}.max_lora_rank and MaxLoRARanks; {_VLLM_LAYERS} (labcore.engines.allocation.SOURCES)",
        "the slots cost the maximum rank over every supported module, not an adapter's own size: 8 slots at the "
        f"default rank on Llama-3-8B are {lora_slot_bytes('vllm', 'llama-3-8b', slots=8, max_rank=16) / 2**20:,.1f} MiB",
    ),
    (
        VLLM,
        _V,
        "--lora-target-modules",
        "config",
        'LoRAConfig.target_modules: \'Restrict LoRA to specific module suffixes (e.g., ["o_proj", "qkv_proj"]). '
        "If None, all supported LoRA modules are used'",
        "None (every supported module)",
        "lora_buffers(target_modules=...)",
        ("labcore.engines.allocation.lora_buffers:target_modules",),
        f"{_VLLM_LORA_CONFIG}.target_modules",
        "the packed names: q_proj selects all of qkv_proj's three slices",
    ),
    (
        VLLM,
        _V,
        "--max-cpu-loras",
        "config",
        "'Maximum number of LoRAs to store in CPU memory. Must be >= than max_loras'",
        "max_loras (when unset)",
        "TieredCache host tier",
        ("labcore.tiers.TieredCache:host_budget_mb",),
        f"{_VLLM_LORA_CONFIG}.max_cpu_loras and LoRAConfig._validate_lora_config",
    ),
    (
        VLLM,
        _V,
        "LRUCacheLoRAModelManager",
        "behaviour",
        "keeps two LRU caches: the active adapters (capacity lora_slots) and the registered ones (capacity), "
        "evicting the least recently used",
        "",
        "AdapterCache (LRU)",
        ("labcore.cache.AdapterCache",),
        _VLLM_MANAGER,
    ),
    (
        VLLM,
        _V,
        "POST /v1/load_lora_adapter, /v1/unload_lora_adapter",
        "api",
        "load an adapter at run time by lora_name and lora_path, unload it by name; attached only with "
        "VLLM_ALLOW_RUNTIME_LORA_UPDATING, which logs 'This should ONLY be used for local development!'",
        "",
        "AdapterRegistry.register",
        ("labcore.registry.AdapterRegistry.register",),
        _VLLM_LOAD,
    ),
    (
        VLLM,
        _V,
        "VLLM_ALLOW_RUNTIME_LORA_UPDATING",
        "env",
        "must be true ('1' or 'true') for the load/unload endpoints and for a LoRAResolver to be asked about an "
        "unknown model name",
        "false",
        "who may change the registry at run time",
        ("labcore.registry.AdapterRegistry",),
        _VLLM_ENV,
    ),
    (
        VLLM,
        _V,
        "LoRAResolver plugins",
        "plugin",
        "resolve_lora(base_model_name, lora_name) -> LoRARequest or None, tried on a request for a name not yet "
        "loaded; the built-in lora_filesystem_resolver (VLLM_PLUGINS, VLLM_LORA_RESOLVER_CACHE_DIR) loads a "
        "directory of that name whose adapter_config.json has peft_type LORA and base_model_name_or_path equal to "
        "the served model",
        "",
        "AdapterRegistry.resolve",
        ("labcore.registry.AdapterRegistry.resolve",),
        _VLLM_RESOLVER,
        "the registry's place: a resolver can do what labcore's registry does; the built-in filesystem resolver "
        "checks neither a version nor a digest",
    ),
    (
        VLLM,
        _V,
        "prefix-cache block hash, LoRA extra key",
        "behaviour",
        "adds the adapter's lora_name and lora_path to every block hash of a LoRA request ('re-pointing a LoRA "
        "name at a different adapter does not reuse KV'); new weights written to the same path still share blocks",
        "",
        "PrefixCache(key_policy=KEY_BY_NAME)",
        ("labcore.prefix_cache.PrefixCache:key_policy", "labcore.prefix_cache.KEY_BY_NAME"),
        _VLLM_KV,
        "by name and path, not by content: labcore's KEY_BY_NAME is the case where the path stays the same",
    ),
    # ---- SGLang ----------------------------------------------------------------------------
    (
        SGLANG,
        _S,
        "--max-loras-per-batch",
        "flag",
        "'Maximum number of adapters for a running batch, include base-only request.'; sizes the GPU memory "
        "reserved for LoRA; the batch check counts the batch's distinct adapter ids with the base model's None "
        "among them",
        "8",
        "SlotScheduler(max_slots=..., base_takes_slot=True)",
        ("labcore.slots.SlotScheduler:max_slots", "labcore.slots.SlotScheduler:base_takes_slot"),
        f"{_SGLANG_FIELDS}.max_loras_per_batch; {_SGLANG_BATCH}",
    ),
    (
        SGLANG,
        _S,
        "--max-loaded-loras",
        "flag",
        "'limits the maximum number of LoRA adapters loaded in CPU memory at a time'; must be >= "
        "max-loras-per-batch and hold every --lora-paths entry",
        "",
        "TieredCache host tier",
        ("labcore.tiers.TieredCache:host_budget_mb",),
        f"{_SGLANG_FIELDS}.max_loaded_loras; {_SGLANG_HOOK}",
    ),
    (
        SGLANG,
        _S,
        "--lora-eviction-policy",
        "flag",
        "eviction when the GPU memory pool is full: lru (least recently used) or fifo (first in, first out)",
        "lru",
        "AdapterCache (LRU) or FifoAdapterCache",
        ("labcore.cache.AdapterCache", "labcore.cache.FifoAdapterCache"),
        f"{_SGLANG_FIELDS}.lora_eviction_policy",
    ),
    (
        SGLANG,
        _S,
        'pinned adapters ("pinned": true)',
        "config",
        "a pinned adapter keeps its GPU pool slot until unloaded; at most max-loras-per-batch - 1 may be pinned, "
        "'to avoid starvation for unpinned adapters and base models'",
        "not pinned",
        "SlotScheduler(pinned=...), max_pinned; AdapterCache.pin",
        ("labcore.slots.SlotScheduler:pinned", "labcore.slots.max_pinned", "labcore.cache.AdapterCache.pin"),
        _SGLANG_PIN,
        "labcore.admission pins an adapter only while a request is in flight; SGLang's pin is for good",
    ),
    (
        SGLANG,
        _S,
        "POST /load_lora_adapter, /unload_lora_adapter",
        "api",
        "load and unload adapters after start-up; without --lora-paths at start, --max-lora-rank and "
        "--lora-target-modules are both required",
        "",
        "AdapterRegistry.register",
        ("labcore.registry.AdapterRegistry.register",),
        f"{_SGLANG_LOAD}; {_SGLANG_HOOK}",
    ),
    (
        SGLANG,
        _S,
        'model: "base-model:adapter-name"',
        "request",
        "the OpenAI-compatible API names the adapter after the base and a colon",
        "",
        'parse_model_ref("base:adapter") (no @version)',
        ("labcore.router.parse_model_ref",),
        _SGLANG_MODEL,
    ),
    # ---- TensorRT-LLM ----------------------------------------------------------------------
    (
        TENSORRT_LLM,
        "model_config.md @ 05ceae03",
        "lora_cache_gpu_memory_fraction",
        "config",
        "'Fraction of GPU memory used for LoRA cache. Computed as a fraction of left over memory after engine "
        "load, and after KV cache is loaded.' (the Triton backend's default; it fills the executor's "
        "PeftCacheConfig.device_cache_percent)",
        "0.05",
        "AdapterCache(vram_budget_mb=fraction x the memory left) out of memory_split",
        ("labcore.cache.AdapterCache:vram_budget_mb", "labcore.capacity.memory_split"),
        f"{_TRT_DOCS}, tensorrt_llm model, LoRA cache; {_TRT_MODEL}",
        "a fraction, not MiB: of the free memory after the engine and the KV cache",
    ),
    (
        TENSORRT_LLM,
        "llm_args.py (code index)",
        "PeftCacheConfig.device_cache_percent",
        "api",
        "the LLM API's LoRA device cache: 'Proportion of free device memory after engine load to use for cache, as "
        "a fraction from 0 to 1'",
        "0.02",
        "AdapterCache(vram_budget_mb=fraction x the memory left)",
        ("labcore.cache.AdapterCache:vram_budget_mb",),
        _TRT_LLMAPI,
        "the same cache as lora_cache_gpu_memory_fraction, with another default when no Triton config sets it",
    ),
    (
        TENSORRT_LLM,
        "model_config.md @ 05ceae03",
        "lora_cache_host_memory_bytes",
        "config",
        "'Size of host LoRA cache in bytes'",
        "1G",
        "TieredCache host tier",
        ("labcore.tiers.TieredCache:host_budget_mb",),
        f"{_TRT_DOCS}, tensorrt_llm model, LoRA cache",
    ),
    (
        TENSORRT_LLM,
        "model_config.md @ 05ceae03",
        "lora_cache_optimal_adapter_size, lora_cache_max_adapter_size",
        "config",
        "the cache is paged: the optimal adapter size sizes the cache pages, the max adapter size the smallest page",
        "8 and 64",
        "labcore counts MiB, not pages: Adapter.vram_mb",
        ("labcore.adapter.Adapter:vram_mb",),
        f"{_TRT_DOCS}, tensorrt_llm model, LoRA cache",
    ),
    (
        TENSORRT_LLM,
        "model_config.md @ 05ceae03",
        "lora_task_id (request input)",
        "request",
        "the unique task ID of a LoRA: the first request sends it with the weights and config, later ones the ID "
        "alone; 'If the cache is full, the oldest LoRA will be evicted'; an error if the ID is not cached",
        "",
        "Adapter.key (name@version) as the cache key",
        ("labcore.adapter.Adapter:key",),
        f"{_TRT_DOCS}, Model Input and Output",
    ),
    # ---- LoRAX -----------------------------------------------------------------------------
    (
        LORAX,
        _L,
        "--max-active-adapters",
        "flag",
        "'Maximum number of adapters that can be placed on the GPU and accept requests at a time'",
        "1024",
        "SlotScheduler(max_slots=...)",
        ("labcore.slots.SlotScheduler:max_slots",),
        f"{_LORAX_MAIN}; {_LORAX_LAUNCHER}; {_LORAX_PRS}",
        "128 before the adapter memory reservation; since then --adapter-memory-fraction is the real bound",
    ),
    (
        LORAX,
        _L,
        "--adapter-memory-fraction",
        "flag",
        "'Reservation of memory set aside for loading adapters onto the GPU. Increasing this value will reduce the "
        "size of the KV cache'; 'NOT scaled relative to cuda_memory_fraction, but is expressed in absolute terms': a "
        "fraction of the GPU's total memory, kept out of the KV cache; an adapter is moved to the GPU only when it "
        "fits",
        "0.1",
        "AdapterCache(vram_budget_mb=fraction x the GPU) out of memory_split",
        ("labcore.cache.AdapterCache:vram_budget_mb", "labcore.capacity.memory_split"),
        f"{_LORAX_MAIN}; {_LORAX_SERVER}; {_LORAX_PRS}",
        "a fraction of the whole GPU, where TensorRT-LLM's is a fraction of what the KV cache left",
    ),
    (
        LORAX,
        _L,
        "--adapter-cycle-time-s",
        "flag",
        "'The time in seconds between adapter exchanges'",
        "2",
        "no timer in labcore: adapters are exchanged on demand (AdapterCache.access)",
        ("labcore.cache.AdapterCache.access",),
        _LORAX_LAUNCHER,
    ),
    (
        LORAX,
        _L,
        "Adapter Exchange Scheduling",
        "behaviour",
        "'asynchronously prefetches and offloads adapters between GPU and CPU memory'; adapters come "
        "just-in-time from the Hugging Face Hub, Predibase or any filesystem, named by adapter_id",
        "",
        "TieredCache (GPU over host over storage)",
        ("labcore.tiers.TieredCache",),
        _LORAX_INDEX,
    ),
    (
        LORAX,
        _L,
        "--adapter-id",
        "flag",
        "the adapter to load; 'Should be compatible with the model specified in model_id' (advice; nothing checks it)",
        "empty",
        "AdapterRegistry.register (which checks)",
        ("labcore.registry.AdapterRegistry.register",),
        _LORAX_LAUNCHER,
    ),
    # ---- where none of them has a counterpart ---------------------------------------------
    (
        NONE,
        "the sources above",
        "semver resolution of name@version",
        "gap",
        "each engine names an adapter by one opaque identifier: vLLM's lora_name (with an integer lora_int_id), "
        "SGLang's adapter name, TensorRT-LLM's lora_task_id, LoRAX's adapter_id; none of the pages read resolves "
        "'latest' by semantic version or pins name@x.y.z",
        "",
        "AdapterRegistry.resolve, parse_model_ref",
        ("labcore.registry.AdapterRegistry.resolve", "labcore.router.parse_model_ref"),
        f"{_VLLM_LOAD}; {_SGLANG_LOAD}; {_TRT_DOCS}; {_LORAX_INDEX}",
        "put the registry in front: resolve name@version to a path, then load that path under a name that includes the version",
    ),
    (
        NONE,
        "the sources above",
        "base-checkpoint digest binding",
        "gap",
        "no engine checks that an adapter was trained on the weights being served: vLLM's filesystem resolver "
        "compares the base model's name string, the JSON form of --lora-modules takes a base_model_name for the "
        "model card, LoRAX advises compatibility",
        "",
        "AdapterRegistry.register refusing a digest mismatch",
        ("labcore.registry.AdapterRegistry.register", "labcore.errors.BaseDigestMismatchError"),
        f"{_VLLM_RESOLVER}; vllm/entrypoints/common/cli_args.py BaseFrontendArgs.lora_modules; {_LORAX_LAUNCHER}",
        "labcore.digest hashes the weight files the server loaded; check it before every load",
    ),
)


#: Why TensorRT-LLM's rows are unverified: they were read in its Triton backend's documentation at a commit and in a
#: copy of llm_args.py at an unpinned commit, not at its latest release (1.2.1). Its package on PyPI is a 10 kB stub
#: whose build downloads the wheel from another host, which cannot be reached here, and a snapshot of its repository
#: (2.5 GB) is over what this project's fetch brings; so no TensorRT-LLM fact is re-checked by ``make engines``.
TENSORRT_LLM_UNVERIFIED = (
    "not checked at TensorRT-LLM's latest release (1.2.1): read in its Triton backend's "
    "documentation at a commit and a copy of llm_args.py at an unpinned commit"
)


def production_mapping() -> tuple[EngineSetting, ...]:
    """Return every (engine, setting) record, engines in :data:`ENGINES` order, then the gaps.

    TensorRT-LLM's records are ``verified=False`` (:data:`TENSORRT_LLM_UNVERIFIED`); every other record is read at
    the engine's release.
    """
    return tuple(_setting(row) for row in _ROWS)


def _setting(row: tuple[Any, ...]) -> EngineSetting:
    """Build one record of :data:`_ROWS` (its nine fields, then an optional note) by keyword."""
    engine, version, setting, kind, does, default, concept, names, source, *rest = row
    if len(rest) > 1:
        raise ValueError(f"a mapping row has nine fields and an optional note, got {len(row)}: {row[:3]!r}")
    return EngineSetting(
        engine=engine,
        version=version,
        setting=setting,
        kind=kind,
        does=does,
        default=default,
        concept=concept,
        labcore=names,
        source=source,
        note=rest[0] if rest else "",
        verified=engine != TENSORRT_LLM,
    )


def settings_for(engine: str, records: Iterable[EngineSetting] | None = None) -> tuple[EngineSetting, ...]:
    """Return the records of one ``engine`` (or of :data:`NONE`).

    >>> [r.setting for r in settings_for("LoRAX")][:2]
    ['--max-active-adapters', '--adapter-memory-fraction']
    """
    choice("engine", engine, (*ENGINES, NONE))
    return tuple(r for r in (production_mapping() if records is None else records) if r.engine == engine)


def mapping_rows(records: Sequence[EngineSetting] | None = None) -> list[dict[str, str]]:
    """Return the records as display rows (one dict per record) for :func:`labcore.tables.html_table`.

    >>> mapping_rows()[0]["setting"]
    '--enable-lora'
    """
    rows = []
    for r in production_mapping() if records is None else records:
        rows.append(
            {
                "engine": r.engine,
                "setting": r.setting,
                "does": r.does,
                "default": r.default or "\u2014",
                "labcore": r.concept,
                "checked": f"{r.version}{'' if r.verified else ' (unverified)'}",
                "source": r.source + (f". {r.note}" if r.note else ""),
            }
        )
    return rows


#: The page tables' style (the short table of :mod:`labcore.engines.summary` uses it too).
TABLE_STYLE = (
    "width:100%;table-layout:fixed;font-size:0.85em;line-height:1.35;overflow-wrap:anywhere;border-collapse:collapse"
)
_WIDTHS = ("20%", "32%", "20%", "28%")
CELL_STYLE = "vertical-align:top;padding:0.35em 0.5em;border-top:1px solid rgba(128,128,128,0.35)"


def mapping_table_html(records: Sequence[EngineSetting] | None = None) -> str:
    """Return the records as one compact HTML table for a book page: setting and default, what it does, labcore, source.

    Long file paths wrap (``overflow-wrap: anywhere``), so the table fits the page column and a phone.

    >>> page = mapping_table_html(settings_for("SGLang"))
    >>> page.count("<tr>"), "<code>--max-loras-per-batch</code>" in page, "default 8" in page
    (7, True, True)
    """

    def cell(inner: str) -> str:
        return f'<td style="{CELL_STYLE}">{inner}</td>'

    head = "".join(
        f'<th style="{CELL_STYLE};text-align:left;width:{w}">{h}</th>'
        for h, w in zip(("setting", "what it does", "in labcore", "checked against"), _WIDTHS, strict=True)
    )
    body = []
    for r in production_mapping() if records is None else records:
        default = f"<br><small>default {html.escape(r.default)}</small>" if r.default else ""
        note = f"<br><small>{html.escape(r.note)}</small>" if r.note else ""
        checked = f"<b>{html.escape(r.version)}</b>{'' if r.verified else ' (unverified)'}<br>{html.escape(r.source)}"
        body.append(
            "<tr>"
            + cell(f"<code>{html.escape(r.setting)}</code>{default}")
            + cell(html.escape(r.does))
            + cell(html.escape(r.concept) + note)
            + cell(checked)
            + "</tr>"
        )
    return (
        f'<table class="lc-table lc-engines" style="{TABLE_STYLE}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )
