"""Train a tiny Llama-style model and a real PEFT LoRA on CPU, then load the adapter onto the wrong base.

Needs the optional real stack (``pip install -r requirements-real.txt``: torch==2.13.0 CPU, peft,
transformers). Fully seeded and single-threaded; writes ``results/real_lora.json`` with the
deterministic figures (metrics, digests, sizes, weight changes, registry outcomes) apart from the
machine-dependent ``timings``. ``tests/test_real_lora.py`` reruns it and compares.

    python scripts/real_lora_demo.py                       # writes results/real_lora.json
    python scripts/real_lora_demo.py --out /tmp/r.json --workdir /tmp/demo   # keep the files

The story, in order:

1. Checkpoint A: a Llama-architecture decoder (config ``labcore/data/models/tiny-llama-demo.json``,
   byte vocabulary, random init) pretrained to copy a string of letters after ``=``.
2. Checkpoint B: the same recipe from another seed (an equally good copier, different weights).
   Two updates of A ("the same" model, new weights): B'(same task) trained further on the copy
   task, B'(new task) trained further on copy mixed with new data (string reversal).
3. A LoRA (r=8 on q_proj, v_proj) trained on A to answer with the Atbash substitution of the
   letters, saved with ``save_pretrained`` as a real PEFT directory.
4. The adapter reloaded with ``PeftModel.from_pretrained`` onto every checkpoint: no error on any.
   Its metric collapses on B and B'(new task), and survives on B'(same task): whether an update
   breaks an adapter cannot be read from the files, only measured. The registry, fed digests of
   the checkpoint files, refuses every pairing but A at registration.
5. Sizes read back without torch (``labcore.peft_files``) against torch and ``labcore.model_config``;
   merged (``merge_and_unload``) vs unmerged forward time.
6. The same LoRA saved with ``modules_to_save=["lm_head"]``: its bytes per role, and its serving size
   with and without the full copy of the head.
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse
import json
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import peft
import torch
import transformers
from peft import LoraConfig, PeftModel, get_peft_model, get_peft_model_state_dict
from transformers import LlamaConfig, LlamaForCausalLM

# labcore comes from the environment (requirements.txt installs it with `-e .`), not from a sys.path edit
from labcore.demo import DEMO_RESULTS_FORMAT, adapter_sizes, register_on_each_checkpoint
from labcore.digest import checkpoint_digest
from labcore.model_config import exact_adapter_mb, load_model_config, lora_params
from labcore.peft_files import LOW_RANK_ROLES, read_peft_adapter
from labcore.sizing import MIB, adapter_vram_mb

ROOT = Path(__file__).resolve().parents[1]

MODEL_NAME = "tiny-llama-demo"  # the base name the adapter records and the registry serves
LETTERS = "abcdefgh"  # Atbash on 8 letters: a<->h, b<->g, c<->f, d<->e (an involution)
ATBASH = {c: LETTERS[len(LETTERS) - 1 - i] for i, c in enumerate(LETTERS)}
SEQ_LETTERS = 8
TASKS = {  # task name -> (separator, answer); the base learns copy, the adapter learns atbash
    "copy": ("=", lambda s: s),
    "atbash": ("=", lambda s: "".join(ATBASH[c] for c in s)),
    "reverse": ("<", lambda s: s[::-1]),  # new data for the updated base B'(new task)
}

SEED_A, SEED_B = 0, 1
PRETRAIN_STEPS = 150  # the copy task is solved (exact match 1.0) after about 50 steps
CONTINUE_STEPS = 150  # B'(same task): A trained further on the copy task
UPDATE_STEPS = 100  # B'(new task): A trained further on copy mixed with a new task (reversal)
LORA_STEPS = 150  # Atbash is solved after about 75 steps
BATCH = 64
PRETRAIN_LR = 3e-3
LORA_LR = 1e-2
LORA_RANK, LORA_ALPHA, LORA_TARGETS = 8, 16, ("q_proj", "v_proj")
EVAL_SEQUENCES = 256
EVAL_SEED = 1234
TIMING_REPEATS = 30
TIMING_BATCH = 64


# -- data --------------------------------------------------------------------------------------


def make_batch(n: int, generator: torch.Generator, *, task: str) -> torch.Tensor:
    """Return ``n`` byte sequences of ``TASKS[task]``: letters, a separator, then the answer."""
    sep, answer = TASKS[task]
    idx = torch.randint(len(LETTERS), (n, SEQ_LETTERS), generator=generator)
    rows = []
    for row in idx.tolist():
        s = "".join(LETTERS[i] for i in row)
        rows.append(list((s + sep + answer(s)).encode("ascii")))
    return torch.tensor(rows, dtype=torch.long)


def make_mixed_batch(n: int, generator: torch.Generator, *, tasks: tuple[str, ...]) -> torch.Tensor:
    """Return a batch split evenly between ``tasks``."""
    return torch.cat([make_batch(n // len(tasks), generator, task=t) for t in tasks])


def loss_and_hits(model: torch.nn.Module, batch: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Return the mean loss on the answer letters and, per sequence, whether every letter is right."""
    logits = model(input_ids=batch[:, :-1]).logits
    answer = slice(SEQ_LETTERS, 2 * SEQ_LETTERS)  # logits at '=' .. second-to-last predict the answer
    pred = logits[:, answer, :]
    target = batch[:, SEQ_LETTERS + 1 :]
    loss = torch.nn.functional.cross_entropy(pred.reshape(-1, pred.shape[-1]), target.reshape(-1))
    hits = (pred.argmax(-1) == target).all(dim=1)
    return loss, hits


@torch.no_grad()
def exact_match(model: torch.nn.Module, batch: torch.Tensor) -> float:
    """Return the share of sequences whose whole answer is right (teacher-forced argmax = greedy here)."""
    model.eval()
    _, hits = loss_and_hits(model, batch)
    return hits.float().mean().item()


def train(model: torch.nn.Module, *, steps: int, lr: float, seed: int, tasks: tuple[str, ...]) -> float:
    """Train with AdamW on fresh seeded batches of ``tasks`` (mixed evenly); return the final loss."""
    generator = torch.Generator().manual_seed(seed)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
    model.train()
    loss = torch.tensor(float("nan"))
    for _ in range(steps):
        loss, _ = loss_and_hits(model, make_mixed_batch(BATCH, generator, tasks=tasks))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    model.eval()
    return loss.item()


# -- models ------------------------------------------------------------------------------------


def tiny_config() -> LlamaConfig:
    """Build the transformers config from the same data file ``labcore.model_config`` sizes from."""
    data = json.loads((ROOT / "labcore" / "data" / "models" / f"{MODEL_NAME}.json").read_text())
    data = {
        k: v
        for k, v in data.items()
        if not k.startswith("_") and k not in ("architectures", "model_type", "torch_dtype")
    }
    return LlamaConfig(**data)


def new_model(seed: int) -> LlamaForCausalLM:
    torch.manual_seed(seed)
    return LlamaForCausalLM(tiny_config())


def save_base(model: LlamaForCausalLM, folder: Path) -> None:
    model.save_pretrained(folder, safe_serialization=True)


def load_base(folder: Path) -> LlamaForCausalLM:
    model = LlamaForCausalLM.from_pretrained(folder)
    model.eval()
    return model


@torch.no_grad()
def relative_change(a: torch.nn.Module, b: torch.nn.Module) -> float:
    """Return ``||W_b - W_a|| / ||W_a||`` over all parameters together (Frobenius norm)."""
    diff = sum(((pb - pa) ** 2).sum() for pa, pb in zip(a.parameters(), b.parameters(), strict=True))
    norm = sum((pa**2).sum() for pa in a.parameters())
    return float(torch.sqrt(diff / norm))


@torch.no_grad()
def median_forward_ms(models: dict[str, torch.nn.Module], batch: torch.Tensor, repeats: int) -> dict[str, float]:
    """Time one forward pass of each model, interleaved so that machine load hits all alike; medians in ms."""
    times: dict[str, list[float]] = {key: [] for key in models}
    for model in models.values():
        model(input_ids=batch)  # warm-up
    for _ in range(repeats):
        for key, model in models.items():
            t0 = time.perf_counter()
            model(input_ids=batch)
            times[key].append((time.perf_counter() - t0) * 1000)
    return {key: statistics.median(values) for key, values in times.items()}


# -- the demo ----------------------------------------------------------------------------------


def run(workdir: Path) -> dict:
    warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)
    warnings.filterwarnings("ignore", message="Could not find a config file in", category=UserWarning)
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    t_start = time.perf_counter()
    timings: dict[str, float] = {}
    eval_copy = make_batch(EVAL_SEQUENCES, torch.Generator().manual_seed(EVAL_SEED), task="copy")
    eval_atbash = make_batch(EVAL_SEQUENCES, torch.Generator().manual_seed(EVAL_SEED), task="atbash")

    # 1-2. four checkpoints of "the same" model
    t0 = time.perf_counter()
    final_loss = {}
    model_a = new_model(SEED_A)
    final_loss["A"] = train(model_a, steps=PRETRAIN_STEPS, lr=PRETRAIN_LR, seed=SEED_A, tasks=("copy",))
    save_base(model_a, workdir / "base_A")
    model_b = new_model(SEED_B)
    final_loss["B"] = train(model_b, steps=PRETRAIN_STEPS, lr=PRETRAIN_LR, seed=SEED_B, tasks=("copy",))
    save_base(model_b, workdir / "base_B")
    same = load_base(workdir / "base_A")
    final_loss["B_prime_same_task"] = train(
        same, steps=CONTINUE_STEPS, lr=PRETRAIN_LR, seed=SEED_A + 100, tasks=("copy",)
    )
    save_base(same, workdir / "base_B_prime_same_task")
    new = load_base(workdir / "base_A")
    final_loss["B_prime_new_task"] = train(
        new, steps=UPDATE_STEPS, lr=PRETRAIN_LR, seed=SEED_A + 100, tasks=("copy", "reverse")
    )
    save_base(new, workdir / "base_B_prime_new_task")
    timings["pretrain_s"] = time.perf_counter() - t0

    bases = {key: workdir / f"base_{key}" for key in ("A", "B_prime_same_task", "B_prime_new_task", "B")}
    base_models = {key: load_base(folder) for key, folder in bases.items()}
    digests = {key: checkpoint_digest(folder) for key, folder in bases.items()}

    # 3. the adapter, trained on A and saved as a real PEFT directory
    t0 = time.perf_counter()
    lora_base = load_base(bases["A"])
    lora_base.name_or_path = MODEL_NAME  # what PEFT records as base_model_name_or_path
    lora_base.config._name_or_path = MODEL_NAME
    peft_model = get_peft_model(
        lora_base,
        LoraConfig(
            r=LORA_RANK, lora_alpha=LORA_ALPHA, lora_dropout=0.0, target_modules=list(LORA_TARGETS), bias="none"
        ),
    )
    final_loss["lora"] = train(peft_model, steps=LORA_STEPS, lr=LORA_LR, seed=SEED_A + 200, tasks=("atbash",))
    adapter_dir = workdir / "adapter_atbash"
    peft_model.save_pretrained(adapter_dir)
    torch_state = get_peft_model_state_dict(peft_model)
    torch_tensor_bytes = sum(t.numel() * t.element_size() for t in torch_state.values())
    torch_param_count = sum(t.numel() for t in torch_state.values())
    timings["lora_train_s"] = time.perf_counter() - t0

    # 4. load onto each checkpoint with the real peft loader: nothing is raised
    metrics: dict[str, dict] = {}
    loaded: dict[str, PeftModel] = {}
    for key in bases:
        base = load_base(bases[key])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = PeftModel.from_pretrained(base, adapter_dir)
        model.eval()
        loaded[key] = model
        metrics[key] = {
            "base_copy_exact_match": exact_match(base_models[key], eval_copy),
            "adapter_atbash_exact_match": exact_match(model, eval_atbash),
            "load_raised": None,  # a raise would have stopped the script here
            "load_warnings": sorted({f"{w.category.__name__}: {str(w.message).splitlines()[0]}" for w in caught}),
        }

    files = read_peft_adapter(adapter_dir)
    adapter = files.to_adapter(
        name="atbash", version="1.0.0", base_model=MODEL_NAME, base_digest=digests["A"], serving_dtype="fp32"
    )
    registry, _ = register_on_each_checkpoint(
        adapter, digests, base_model=MODEL_NAME
    )  # a fresh registry per checkpoint

    # 5. sizes three ways
    tiny = load_model_config(MODEL_NAME)
    sizes = {
        **adapter_sizes(files),  # what the files say, read without torch
        "torch_param_count": torch_param_count,
        "torch_tensor_bytes": torch_tensor_bytes,
        "model_config_params": lora_params(tiny, LORA_RANK, LORA_TARGETS),
        "model_config_fp32_bytes": round(exact_adapter_mb(tiny, LORA_RANK, LORA_TARGETS, bytes=4) * MIB),
        "naive_fp32_bytes": round(
            adapter_vram_mb(LORA_RANK, tiny.hidden_size, tiny.num_hidden_layers, LORA_TARGETS, bytes=4) * MIB
        ),
        "adapter_vram_mb_fp32": adapter.vram_mb,
    }

    # merged vs unmerged: same function, different cost
    unmerged = loaded["A"]
    eval_inputs = eval_atbash[:, :-1]
    merged = PeftModel.from_pretrained(load_base(bases["A"]), adapter_dir).merge_and_unload()
    merged.eval()
    with torch.no_grad():
        logits_unmerged = unmerged(input_ids=eval_inputs).logits
        logits_merged = merged(input_ids=eval_inputs).logits
    ms = median_forward_ms(
        {"base": base_models["A"], "unmerged": unmerged, "merged": merged}, eval_inputs[:TIMING_BATCH], TIMING_REPEATS
    )
    plain_ms, unmerged_ms, merged_ms = ms["base"], ms["unmerged"], ms["merged"]
    merge = {
        "merged_type": type(merged).__name__,
        "merged_atbash_exact_match": exact_match(merged, eval_atbash),
        "max_abs_logit_diff": float((logits_merged - logits_unmerged).abs().max()),
    }
    timings.update(
        {
            "forward_batch": [int(d) for d in eval_inputs[:TIMING_BATCH].shape],
            "forward_repeats": TIMING_REPEATS,
            "base_forward_ms": plain_ms,
            "unmerged_forward_ms": unmerged_ms,
            "merged_forward_ms": merged_ms,
            "unmerged_over_merged": unmerged_ms / merged_ms,
            "unmerged_over_base": unmerged_ms / plain_ms,
            "total_s": time.perf_counter() - t_start,
        }
    )

    # 6. the same LoRA saved with a full copy of the output head (modules_to_save): what a cache must hold
    head_model = get_peft_model(
        load_base(bases["A"]),
        LoraConfig(
            r=LORA_RANK,
            lora_alpha=LORA_ALPHA,
            lora_dropout=0.0,
            target_modules=list(LORA_TARGETS),
            bias="none",
            modules_to_save=["lm_head"],
        ),
    )
    head_model.save_pretrained(workdir / "adapter_with_head")
    with_head = read_peft_adapter(workdir / "adapter_with_head")
    sizes["modules_to_save_lm_head"] = {
        "bytes_by_role": with_head.bytes_by_role(),
        "serving_bf16_bytes": with_head.serving_bytes("bf16"),
        "serving_bf16_low_rank_bytes": with_head.serving_bytes("bf16", include=LOW_RANK_ROLES),
        "module_copy_over_lora": with_head.module_copy_bytes / with_head.lora_bytes,
    }

    deterministic = {
        "setup": {
            "model": MODEL_NAME,
            "letters": LETTERS,
            "seq_letters": SEQ_LETTERS,
            "seeds": {"A": SEED_A, "B": SEED_B},
            "pretrain_steps": PRETRAIN_STEPS,
            "continue_steps": CONTINUE_STEPS,
            "update_steps": UPDATE_STEPS,
            "tasks": {key: sep for key, (sep, _) in TASKS.items()},
            "lora_steps": LORA_STEPS,
            "batch": BATCH,
            "eval_sequences": EVAL_SEQUENCES,
            "lora": {"r": LORA_RANK, "alpha": LORA_ALPHA, "targets": list(LORA_TARGETS)},
            "base_params": sum(p.numel() for p in model_a.parameters()),
        },
        "final_loss": final_loss,
        "weight_change": {key: relative_change(base_models["A"], base_models[key]) for key in bases},
        "digests": digests,
        "metrics": metrics,
        "registry": registry,
        "adapter": {
            "name": adapter.name,
            "version": adapter.version,
            "base_model": adapter.base_model,
            "base_digest": adapter.base_digest,
            "rank": adapter.rank,
        },
        "sizes": sizes,
        "merge": merge,
    }
    return {
        "format": DEMO_RESULTS_FORMAT,
        "deterministic": deterministic,
        "timings": timings,
        "environment": {
            "python": sys.version.split()[0],
            "torch": torch.__version__,
            "peft": peft.__version__,
            "transformers": transformers.__version__,
            "threads": torch.get_num_threads(),
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "real_lora.json")
    parser.add_argument("--workdir", type=Path, default=None, help="keep checkpoints and the adapter here")
    args = parser.parse_args(argv)
    if args.workdir is None:
        with tempfile.TemporaryDirectory(prefix="real_lora_") as tmp:
            results = run(Path(tmp))
    else:
        args.workdir.mkdir(parents=True, exist_ok=True)
        results = run(args.workdir)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    d, t = results["deterministic"], results["timings"]
    for key, m in d["metrics"].items():
        print(
            f"base {key:18s} change vs A {d['weight_change'][key]:.3f}  copy {m['base_copy_exact_match']:.3f}  "
            f"adapter atbash {m['adapter_atbash_exact_match']:.3f}  registry: {d['registry'][key]}"
        )
    s = d["sizes"]
    print(
        f"adapter tensors {s['tensor_bytes']} B (torch {s['torch_tensor_bytes']}, config {s['model_config_fp32_bytes']}, naive {s['naive_fp32_bytes']})"
    )
    print(
        f"forward ms: base {t['base_forward_ms']:.2f} merged {t['merged_forward_ms']:.2f} unmerged {t['unmerged_forward_ms']:.2f}; total {t['total_s']:.1f} s"
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
