"""LoRAX's rows in the production mapping are stated and cited at its latest release tag, v0.12.1, and agree with
the facts scripts/lorax_facts.py read there (labcore/data/engines/lorax-0.12.1-<date>.json)."""

from __future__ import annotations

import re

import pytest

from labcore.engines import LORAX, production_mapping
from labcore.engines.releases import TAGGED_RELEASES, release_facts, release_facts_name

FACTS = release_facts("lorax")
ROWS = [r for r in production_mapping() if r.engine == LORAX]
FLAG_ROWS = [r for r in ROWS if r.kind == "flag"]


def test_the_facts_file_is_the_release_tag_read_on_its_date():
    assert release_facts_name("lorax") == f"lorax-{TAGGED_RELEASES['lorax']}-{FACTS['read_on']}.json"
    assert (FACTS["tag"], FACTS["version"], FACTS["tag_date"]) == ("v0.12.1", "0.12.1", "2024-11-21")
    assert FACTS["commit"].startswith("c0e57983")


def test_every_lorax_row_is_cited_at_the_tag_in_a_file_read_there():
    assert len(ROWS) == 5
    for row in ROWS:
        assert row.version == FACTS["version"], row.setting
        cited = re.findall(r"predibase/lorax v0\.12\.1 \(commit c0e57983\) (\S+)", row.source)
        assert cited and all(path.rstrip(",;") in FACTS["files"] for path in cited), row.source
        assert "code index" not in row.source and not re.search(r"commit (?!c0e57983)[0-9a-f]{8}", row.source)


@pytest.mark.parametrize("row", FLAG_ROWS, ids=lambda r: r.setting)
def test_each_flag_exists_at_the_tag_with_the_default_and_words_the_course_quotes(row):
    fact = FACTS["flags"][row.setting]
    documented = FACTS["launcher_md_defaults"].get(row.setting)
    stated = "" if row.default == "empty" else row.default
    assert stated in (fact["default"], documented), (row.setting, fact["default"], documented)
    for quote in re.findall(r"'([^']+)'", row.does):
        assert quote.rstrip(".") in fact["doc"].replace("`", ""), (row.setting, quote)  # the course drops backticks


def test_the_server_reads_the_fraction_the_launcher_passes_and_the_feature_is_named():
    fraction = FACTS["flags"]["--adapter-memory-fraction"]["default"]
    assert FACTS["server_env_defaults"]["ADAPTER_MEMORY_FRACTION"] == fraction == "0.1"
    behaviour = next(r for r in ROWS if r.kind == "behaviour")
    assert behaviour.setting in FACTS["features"]
