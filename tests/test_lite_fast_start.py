"""coursebuild.lite.fast_start: an optional addon, with Pyodide's private options named in one file.

- the switch: ``COURSE_LITE_FAST_START=0`` turns it off, and a site built without it keeps Pyodide's own
  ``pyodide.mjs`` as the kernel's entry point (a site with the boot module is pointed at it);
- Pyodide's private ``loadPyodide`` options are named only in ``static/pyodide_private.mjs``, which names exactly
  :data:`~coursebuild.lite.fast_start.PRIVATE_PYODIDE_OPTIONS`;
- the vendored Pyodide (``node_modules/pyodide``, ``npm ci``) still declares and reads each of them: after an
  upgrade that drops one, this test names it and says what to do.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from coursebuild import vendor
from coursebuild.lite import fast_start
from coursebuild.lite.fast_start import snapshot
from coursebuild.lite.runtime import KERNEL_PLUGIN
from coursebuild.lite.service_worker import ANCHOR
from coursebuild.lite.site import finish_site

ROOT = Path(__file__).resolve().parents[1]
#: every script of the Live build (the served ones and those run under Node at build time)
SCRIPTS = sorted(p for p in (ROOT / "coursebuild").rglob("*") if p.suffix in {".mjs", ".js"})


def test_the_switch_turns_the_fast_start_off(monkeypatch) -> None:
    monkeypatch.delenv(fast_start.FAST_START_ENV, raising=False)
    assert fast_start.enabled()
    monkeypatch.setenv(fast_start.FAST_START_ENV, "0")
    assert not fast_start.enabled()
    monkeypatch.setenv(fast_start.FAST_START_ENV, "1")
    assert fast_start.enabled()


def _site(tmp_path: Path, *, boot: bool) -> Path:
    """A built site's bones: its config (the kernel at ``pyodide.mjs``), one app page, the boot module if ``boot``."""
    site = tmp_path / "site"
    (site / "static" / "pyodide").mkdir(parents=True)
    (site / "lab").mkdir()
    (site / "lab" / "index.html").write_text(f"{ANCHOR}>{{}}</script>", encoding="utf-8")
    settings = {KERNEL_PLUGIN: {"pyodideUrl": "./static/pyodide/pyodide.mjs"}}
    config = {"jupyter-config-data": {"appVersion": "0.8.6", "litePluginSettings": settings}}
    (site / "jupyter-lite.json").write_text(json.dumps(config), encoding="utf-8")
    if boot:
        (site / "static" / "pyodide" / snapshot.BOOT_MODULE).write_text("", encoding="utf-8")
    return site


@pytest.mark.parametrize("boot", [False, True])
def test_a_site_keeps_pyodides_entry_point_unless_it_has_the_fast_start(tmp_path: Path, boot: bool) -> None:
    site = _site(tmp_path, boot=boot)
    finish_site(site)
    config = json.loads((site / "jupyter-lite.json").read_text(encoding="utf-8"))
    url = config["jupyter-config-data"]["litePluginSettings"][KERNEL_PLUGIN]["pyodideUrl"]
    assert url == f"./static/pyodide/{snapshot.BOOT_MODULE if boot else 'pyodide.mjs'}"


def test_private_options_are_named_in_one_file() -> None:
    private = re.compile(r"\b(_[a-z]\w*)\s*:")  # an option key with a leading underscore
    named = {
        p.relative_to(ROOT).as_posix(): sorted(set(private.findall(p.read_text(encoding="utf-8"))))
        for p in SCRIPTS
        if "lite" in p.relative_to(ROOT).parts
    }  # the Live build's scripts
    named = {path: names for path, names in named.items() if names}
    assert named == {fast_start.PRIVATE_MODULE.relative_to(ROOT).as_posix(): sorted(fast_start.PRIVATE_PYODIDE_OPTIONS)}
    for path in SCRIPTS:  # and no script of the site names one some other way
        if path != fast_start.PRIVATE_MODULE:
            text = path.read_text(encoding="utf-8")
            assert not [n for n in fast_start.PRIVATE_PYODIDE_OPTIONS if n in text], path


def test_the_vendored_pyodide_still_reads_each_private_option() -> None:
    folder = vendor.node_modules(ROOT) / "pyodide"
    if not (folder / "pyodide.d.ts").is_file():
        pytest.skip("node_modules/pyodide is not installed (npm ci)")
    version = json.loads((folder / "package.json").read_text(encoding="utf-8"))["version"]
    options = (folder / "pyodide.d.ts").read_text(encoding="utf-8")
    runtime = "".join((folder / name).read_text(encoding="utf-8") for name in ("pyodide.mjs", "pyodide.asm.mjs"))
    for name in fast_start.PRIVATE_PYODIDE_OPTIONS:
        assert re.search(rf"\b{name}\?:", options) and name in runtime, (
            f"Pyodide {version} (node_modules/pyodide) no longer has loadPyodide's private option {name!r}, which the "
            f"Live site's fast start passes ({fast_start.PRIVATE_MODULE.relative_to(ROOT)}): build the site with "
            f"{fast_start.FAST_START_ENV}=0 until that file uses what this Pyodide offers in its place "
            "(its pyodide.d.ts, the loadPyodide options)"
        )
