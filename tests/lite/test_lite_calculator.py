"""The fleet calculator's Live copy plans with the reader's own files: uploaded with the file list's Upload button
(File > Open... from the notebook), read by the "Your GPU's own numbers" cell after Run All, named in its output.

Builds its own live site with the calculator alone (``coursebuild.lite.site.build_site``) and serves it from
127.0.0.1; needs what the other live tests need (skips without it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import subprocess
import sys
import time

import pytest

from ._pages import ROOT, launch, run_notebook, tool_missing, visible_code_cells

CALCULATOR = ROOT / "book" / "fleet_calculator.ipynb"
SMI = "name, memory.total [MiB]\nNVIDIA A100-SXM4-80GB, 81920 MiB\n"
BENCH = {
    "request_throughput": 9.5,
    "mean_ttft_ms": 88.0,
    "p99_ttft_ms": 301.0,
    "mean_itl_ms": 17.5,
    "p99_itl_ms": 44.0,
    "model_id": "meta-llama/Llama-3.1-8B",
}

pytestmark = [pytest.mark.browser, pytest.mark.lite]


@pytest.fixture(scope="module")
def calculator_site(tmp_path_factory):
    why = tool_missing()
    if why:
        pytest.skip(why)
    from coursebuild.lite.site import build_site

    site = build_site(tmp_path_factory.mktemp("calc") / "out", [CALCULATOR], root=ROOT, glue="note")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port), "--directory", str(site)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            break
        time.sleep(0.1)
    yield site, f"http://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(10)


def test_the_uploaded_files_are_the_numbers_of_the_plan(calculator_site, tmp_path):
    site, base = calculator_site
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "nvidia-smi.csv").write_text(SMI)
    (mine / "vllm-bench.json").write_text(json.dumps(BENCH))
    live = site / "lite" / "files" / CALCULATOR.name

    async def walk():
        from playwright.async_api import async_playwright

        async with async_playwright() as playwright:
            browser = await launch(playwright, tmp_path / "profile")
            try:
                page = await browser.new_page()
                await page.goto(f"{base}/lite/notebooks/index.html?path={CALCULATOR.name}")
                await page.locator(".jp-CodeCell").first.wait_for(timeout=90_000)
                await page.get_by_role("menuitem", name="File", exact=True).click()
                async with browser.expect_page() as opened:
                    await page.get_by_role("menuitem", name="Open…").click()
                tree = await opened.value
                await tree.get_by_role("button", name="Upload").wait_for(timeout=60_000)
                async with tree.expect_file_chooser() as chooser:
                    await tree.get_by_role("button", name="Upload").click()
                await (await chooser.value).set_files([str(mine / "nvidia-smi.csv"), str(mine / "vllm-bench.json")])
                for name in ("nvidia-smi.csv", "vllm-bench.json"):
                    await tree.get_by_text(name, exact=True).first.wait_for(timeout=30_000)
                await tree.close()
                await page.close()
                return await run_notebook(browser, base, CALCULATOR.name, visible_code_cells(live))
            finally:
                await browser.close()

    run = asyncio.run(walk())
    assert run.failure is None and run.unrun == 0 and not run.blocked, (run.failure, run.unrun, run.blocked)
    printed = next((o for o in run.outputs if "GPU memory" in o and "one GPU's throughput" in o), "")
    assert "GPU memory 81,920 MiB: from nvidia-smi.csv (NVIDIA A100-SXM4-80GB)" in printed, run.outputs[-6:]
    assert "one GPU's throughput 9.5 requests/s: from vllm-bench.json" in printed
    assert "base latency: TTFT mean 88 ms, p99 301 ms; ITL mean 17.5 ms, p99 44 ms: from vllm-bench.json" in printed
    assert "example" not in printed  # both numbers are the reader's, neither the shipped example's
