"""The room's server (``make serve``): gzip copies made once beside the site, sent only to browsers that accept them,
never for files compressed already; HEAD, 304, Cache-Control, a folder's index keeping its query, 30 browsers at once.
And the recorded first visit (results/first_visit.json): what the server sent compressed is less than the files."""

from __future__ import annotations

import gzip
import http.client
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from coursebuild import serve
from coursebuild.serve import compress_site, create_server, room_addresses, site_app
from coursebuild.workshop import first_visit

WASM = bytes(range(256)) * 4000 + b"\0" * 200_000  # compresses, like Pyodide's runtime
SNAPSHOT = gzip.compress(os.urandom(50_000))  # a file that is gzip already (kernel.snapshot.gz)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "html"
    for rel, data in {
        "index.html": b"<html>course</html>" * 100,
        "lite/notebooks/index.html": b"<html>notebook app</html>" * 100,
        "lite/static/pyodide/pyodide.asm.wasm": WASM,
        "lite/static/pyodide/kernel.snapshot.gz": SNAPSHOT,
        "lite/static/pyodide/python_stdlib.zip": b"PK" + os.urandom(20_000),
        "lite/pypi/labcore-1.1.0-py3-none-any.whl": b"PK" + b"x" * 20_000,
        "_static/logo.png": b"\x89PNG" + b"y" * 5_000,
        "_static/noise.js": os.urandom(10_000),  # compresses by less than 5%: no copy
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root


@pytest.fixture
def served(site: Path, tmp_path: Path) -> Iterator[tuple[str, int]]:
    compress_site(site, tmp_path / "gzip")
    server = create_server(site_app(site, compressed=tmp_path / "gzip"), host="127.0.0.1", port=0)
    threading.Thread(target=server.run, daemon=True).start()
    yield "127.0.0.1", server.effective_port
    server.close()


def get(address: tuple[str, int], path: str, method: str = "GET", **headers: str) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(*address, timeout=30)
    conn.request(method, path, headers={k.replace("_", "-"): v for k, v in headers.items()})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


def test_gzip_copies_are_made_once_beside_the_site_for_what_compresses(site: Path, tmp_path: Path) -> None:
    before = sorted(p.relative_to(site) for p in site.rglob("*"))
    counts = compress_site(site, tmp_path / "gzip")
    copies = sorted(p.relative_to(tmp_path / "gzip").as_posix() for p in (tmp_path / "gzip").rglob("*.gz"))
    assert copies == ["index.html.gz", "lite/notebooks/index.html.gz", "lite/static/pyodide/pyodide.asm.wasm.gz"]
    assert counts == {"compressed": 3, "kept": 0, "skipped": 1}  # noise.js; .gz, .zip, .whl and .png never tried
    assert sorted(p.relative_to(site) for p in site.rglob("*")) == before  # nothing written into the site
    assert compress_site(site, tmp_path / "gzip") == {"compressed": 0, "kept": 4, "skipped": 0}
    (site / "index.html").write_bytes(b"<html>rebuilt</html>" * 100)
    os.utime(site / "index.html", ns=(1, 1))
    assert compress_site(site, tmp_path / "gzip")["compressed"] == 1


def test_a_browser_that_accepts_gzip_gets_the_runtime_compressed(served: tuple[str, int]) -> None:
    status, headers, body = get(served, "/lite/static/pyodide/pyodide.asm.wasm", Accept_Encoding="gzip, deflate, br")
    assert status == 200 and headers["content-encoding"] == "gzip" and headers["content-type"] == "application/wasm"
    assert headers["vary"] == "Accept-Encoding" and int(headers["content-length"]) == len(body) < len(WASM) / 5
    assert gzip.decompress(body) == WASM
    status, headers, body = get(served, "/lite/static/pyodide/pyodide.asm.wasm")
    assert status == 200 and "content-encoding" not in headers and body == WASM


@pytest.mark.parametrize(
    "path", ["/lite/static/pyodide/kernel.snapshot.gz", "/lite/static/pyodide/python_stdlib.zip", "/_static/logo.png"]
)
def test_files_compressed_already_go_as_they_are(served: tuple[str, int], site: Path, path: str) -> None:
    status, headers, body = get(served, path, Accept_Encoding="gzip")
    assert status == 200 and "content-encoding" not in headers and body == (site / path.lstrip("/")).read_bytes()


def test_head_cache_headers_and_not_modified(served: tuple[str, int]) -> None:
    status, headers, body = get(served, "/index.html", "HEAD", Accept_Encoding="gzip")
    assert status == 200 and body == b"" and int(headers["content-length"]) > 0
    assert headers["cache-control"] == "max-age=600, public" and "last-modified" in headers
    status, _, body = get(served, "/index.html", If_None_Match=headers["etag"], Accept_Encoding="gzip")
    assert status == 304 and body == b""


def test_a_folder_serves_its_index_and_keeps_the_query(served: tuple[str, int]) -> None:
    status, _, body = get(served, "/lite/notebooks/?path=01_why_multi_lora.ipynb")
    assert status == 200 and body.startswith(b"<html>notebook app")
    status, headers, _ = get(served, "/lite/notebooks?path=01_why_multi_lora.ipynb")
    assert status == 301 and headers["location"] == "notebooks/?path=01_why_multi_lora.ipynb"
    assert get(served, "/")[0] == 200 and get(served, "/lite/nothing.js")[0] == 404


def test_thirty_browsers_at_once(served: tuple[str, int]) -> None:
    def one(_: int) -> bytes:
        return get(served, "/lite/static/pyodide/pyodide.asm.wasm", Accept_Encoding="gzip")[2]

    with ThreadPoolExecutor(30) as pool:
        bodies = list(pool.map(one, range(30)))
    assert all(gzip.decompress(body) == WASM for body in bodies)


def test_a_site_without_a_build_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=f"{tmp_path} has no index.html"):
        site_app(tmp_path, compressed=None)


def test_the_room_addresses_are_the_laptops_network_addresses(monkeypatch: pytest.MonkeyPatch) -> None:
    """The outgoing interface's address and the host name's, loopback left out, as a learner types them."""

    class Probe:
        def __init__(self, *_: object) -> None:
            pass

        def __enter__(self) -> Probe:
            return self

        def __exit__(self, *_: object) -> None:
            pass

        def connect(self, _: object) -> None:
            pass

        def getsockname(self) -> tuple[str, int]:
            return "10.1.2.3", 40000

    monkeypatch.setattr(serve.socket, "socket", Probe)
    monkeypatch.setattr(serve.socket, "gethostbyname_ex", lambda _: ("laptop", [], ["127.0.1.1", "192.168.1.20"]))
    assert room_addresses(8123) == ["http://10.1.2.3:8123/", "http://192.168.1.20:8123/"]
    monkeypatch.setattr(serve.socket, "gethostbyname_ex", lambda _: ("laptop", [], ["127.0.0.1"]))
    assert room_addresses(8000) == ["http://10.1.2.3:8000/"]


def test_the_recorded_first_visit_sent_less_compressed() -> None:
    """results/first_visit.json: uncompressed, the server sends what is on disk; compressed, less, for both phases."""
    visit = first_visit()
    assert visit.live_sent_bytes < visit.live_sent_plain_bytes and visit.static_sent_bytes < visit.static_bytes
    assert abs(visit.live_sent_plain_bytes - visit.live_bytes) < 0.02 * visit.live_bytes
    assert visit.sent_bytes == visit.static_sent_bytes + visit.live_sent_bytes


def test_the_command_compresses_serves_and_says_where(site: Path, tmp_path: Path) -> None:
    """``python -m coursebuild.serve`` (what ``make serve`` runs): copies made, the site served, its address printed."""
    command = [sys.executable, "-m", "coursebuild.serve", "--site", str(site), "--bind", "127.0.0.1", "--port", "0"]
    server = subprocess.Popen(
        [*command, "--compressed", str(tmp_path / "gzip")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert server.stdout is not None
        lines = [server.stdout.readline() for _ in range(4)]
        assert lines[0].startswith("gzip copies: 3 made now, 0 kept, 1 not worth it"), lines
        found = re.search(r"learners open:\s+http://127\.0\.0\.1:(\d+)/", "".join(lines))
        assert found, lines
        status, headers, body = get(("127.0.0.1", int(found[1])), "/index.html", Accept_Encoding="gzip")
        assert status == 200 and headers["content-encoding"] == "gzip" and gzip.decompress(body).startswith(b"<html>")
    finally:
        server.terminate()
        server.wait(10)
