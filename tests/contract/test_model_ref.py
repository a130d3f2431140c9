"""Contract: parse_model_ref splits base[:adapter[@version]] and refuses everything else."""

import pytest


@pytest.mark.parametrize(
    "ref, expected",
    [
        ("llama-3-8b:support-bot@2.1.0", ("llama-3-8b", "support-bot", "2.1.0")),
        ("llama-3-8b:support-bot", ("llama-3-8b", "support-bot", None)),
        ("llama-3-8b", ("llama-3-8b", None, None)),
    ],
)
def test_parse_model_ref_accepts_the_three_forms(lab, ref, expected):
    parsed = lab.parse_model_ref(ref)
    assert (parsed.base, parsed.adapter, parsed.version) == expected


@pytest.mark.parametrize(
    "bad",
    ["", ":", "llama-3-8b:", ":support-bot", "llama-3-8b:support-bot:x", "llama-3-8b:support-bot@",
     "llama-3-8b:support-bot@2.1", "llama-3-8b@2.1.0", "llama-3-8b:support-bot@2.1.0@3.0.0",
     "llama-3-8b:@2.1.0", "llama-3-8b:support-bot@v2.1.0"],
)
def test_parse_model_ref_rejects_malformed_refs(lab, bad):
    with pytest.raises(ValueError) as info:
        lab.parse_model_ref(bad)
    assert repr(bad) in str(info.value) or bad in str(info.value)
