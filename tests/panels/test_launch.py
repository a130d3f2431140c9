"""labcore.panels.launch: both engines' launch commands for every state, ready to copy, with what each flag costs."""

import pytest

from labcore.engines import FLAG_DEFAULTS, PlanInputs, launch_commands, serving_plan
from labcore.panels.launch import command_text, launch_panel


def test_the_default_state_is_the_calculators_fleet_and_the_engines_own_plan():
    row = launch_panel().row()
    vllm, sglang = serving_plan(
        PlanInputs(
            model="llama-3.1-8b",
            gpu="H100-80GB",
            tenants=40,
            rank=16,
            context_tokens=8192,
            target_modules=["q_proj", "v_proj"],
        )
    )
    assert (row["vllm_sequences"], row["sglang_sequences"]) == (vllm.sequences, sglang.sequences)
    assert row["vllm_lora_mib"] == round(vllm.lora_mib, 6) and row["sglang_lora_mib"] == round(sglang.lora_mib, 6)
    assert "sequences of 8,192" in row["readout"] and "40 adapters in host memory" in row["readout"]


def test_each_command_is_the_engines_command_one_flag_a_line():
    row = launch_panel().row(targets="all", rank=64)
    cmds = launch_commands(PlanInputs(model="llama-3.1-8b", gpu="H100-80GB", tenants=40, rank=64, context_tokens=8192))
    for engine in ("vllm", "sglang"):
        text = row[f"{engine}_command"]
        assert text == command_text(cmds[engine])
        assert " ".join(text.replace(" \\\n", " ").split()) == cmds[engine].command  # pasted, it is the same line
        assert all(line.endswith(" \\") for line in text.splitlines()[:-1])
        assert len(text.splitlines()) == 1 + len(cmds[engine].flags)
    assert "--lora-target-modules" not in row["vllm_command"]  # vLLM's default is every supported module
    assert "--lora-target-modules all" in row["sglang_command"]


def test_every_flag_that_costs_memory_says_how_much_and_every_flag_has_a_cited_default():
    row = launch_panel().row()
    for flag in (
        "--max-loras 8",
        "--max-cpu-loras 40",
        "--gpu-memory-utilization 0.9",
        "--max-model-len 8192",
        "--max-loras-per-batch 9",
        "--max-loaded-loras 40",
        "--mem-fraction-static 0.9",
        "--context-length 8192",
    ):
        assert f"{flag}: " in row["costs"] and " MiB " in row["costs"]
    named = {
        flag
        for line in (row["vllm_command"] + "\n" + row["sglang_command"]).splitlines()
        for flag in line.split()
        if flag.startswith("--") and flag != "--model-path"
    }
    assert named <= {flag for _engine, flag in FLAG_DEFAULTS}


@pytest.fixture(scope="module")
def panel():
    """The launch panel, its grid computed once for the tests that read the whole grid (about 1.8 s)."""
    return launch_panel()


def test_the_page_shows_both_commands_with_a_copy_button(panel):
    spec = panel.spec()
    texts = spec["usermeta"]["labcore_texts"]
    assert [(t["field"], t["copy"]) for t in texts] == [
        ("vllm_command", True),
        ("sglang_command", True),
        ("costs", False),
    ]
    assert len(panel.rows()) <= 6000


def test_a_model_too_big_for_the_gpu_is_refused_in_words(panel):
    row = panel.row(model="qwen3-14b", gpu="L4-24GB")
    assert row["vllm_sequences"] == row["sglang_sequences"] == 0 and "no room" in row["readout"]
    assert row["vllm_plot"] is None
    # no command to copy: the panel says by how much the plan is short and what would fit, and the first option does
    assert "vllm serve" not in row["vllm_command"] and "launch_server" not in row["sglang_command"]
    assert "exceed the engine's share by" in row["vllm_command"]
    option = row["vllm_command"].split("What would fit, one change at a time:\n- ")[1].split("\n")[0]
    assert option == "tensor parallel 2 (--tp 2: two L4-24GB)"
    state = panel.lookup(model="qwen3-14b", gpu="L4-24GB")
    assert all(
        p.fits
        for p in serving_plan(
            PlanInputs(
                model="qwen3-14b",
                gpu="L4-24GB",
                tenants=state["tenants"],
                rank=state["rank"],
                context_tokens=state["context_tokens"],
                target_modules=("q_proj", "v_proj"),
                tp=2,
            )
        )
    )
