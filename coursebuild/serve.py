"""Serve the built site to a room from the instructor's laptop, compressed: ``make serve`` (or ``python -m coursebuild.serve``).

WhiteNoise answers each request from the files of the built site (GET and HEAD, ranges, ``Last-Modified``, ``ETag``
and ``304 Not Modified``, ``Cache-Control``) and Waitress serves it, many browsers at once on a few threads. Every
file that compresses (the WebAssembly runtime, JavaScript, JSON, HTML, CSS, SVG, notebooks) is gzipped once into a
folder beside the site, never into it; a browser that accepts gzip gets that copy with ``Content-Encoding: gzip``
and unpacks it itself. Files that are compressed already (``.gz``, ``.zip``, wheels, images, fonts) go as they are.

>>> should_compress("lite/static/pyodide/pyodide.asm.wasm"), should_compress("lite/static/pyodide/python_stdlib.zip")
(True, False)
>>> should_compress("lite/static/pyodide/kernel.snapshot.gz"), should_compress("lite/pypi/labcore-1.1.0-py3-none-any.whl")
(False, False)
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import quote
from wsgiref.headers import Headers

import waitress  # type: ignore[import-untyped]
from whitenoise import WhiteNoise  # type: ignore[import-untyped]
from whitenoise.compress import Compressor  # type: ignore[import-untyped]
from whitenoise.responders import Response, StaticFile  # type: ignore[import-untyped]

__all__ = [
    "DEFAULT_PORT",
    "WsgiApp",
    "compress_site",
    "should_compress",
    "site_app",
    "recording",
    "create_server",
    "room_addresses",
    "main",
]

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PORT = 8000
#: how long a browser keeps a file before it asks again (then ``304 Not Modified`` if the file did not change)
MAX_AGE_S = 600
#: WhiteNoise's list of compressed formats, and the formats it does not know are zip files or compressed already
_SKIP = Compressor(
    extensions=(*Compressor.SKIP_COMPRESS_EXTENSIONS, "whl", "ico", "avif", "zst", "svgz", "mo"), quiet=True
)
_SKIPPED = "skipped.json"  # in the compressed folder: files whose gzip copy would not be 5% smaller, by size and time

Environ = dict[str, Any]
StartResponse = Callable[..., Any]
WsgiApp = Callable[[Environ, StartResponse], Iterable[bytes]]


def should_compress(path: str) -> bool:
    """Return whether the file at ``path`` is worth a gzip copy (False for archives, images, fonts, wheels)."""
    return bool(_SKIP.should_compress(path))


def _stamp(path: Path) -> list[int]:
    stat = path.stat()
    return [stat.st_size, stat.st_mtime_ns]


def compress_site(site: Path, into: Path, *, workers: int | None = None) -> dict[str, int]:
    """Gzip every compressible file of ``site`` into ``into`` (same relative paths, ``.gz`` added), once.

    A copy whose time equals its file's is kept; one that would not be 5% smaller is not written (and remembered
    in ``into/skipped.json``). Return the counts: files compressed now, kept, skipped.
    """
    into.mkdir(parents=True, exist_ok=True)
    skipped_file = into / _SKIPPED
    skipped: dict[str, list[int]] = json.loads(skipped_file.read_text()) if skipped_file.is_file() else {}
    todo: list[Path] = []
    kept = 0
    for path in sorted(p for p in site.rglob("*") if p.is_file() and should_compress(p.name)):
        rel = path.relative_to(site).as_posix()
        copy = into / f"{rel}.gz"
        if skipped.get(rel) == _stamp(path) or (copy.is_file() and copy.stat().st_mtime_ns == path.stat().st_mtime_ns):
            kept += 1
        else:
            todo.append(path)

    def one(path: Path) -> tuple[str, bool]:
        data = path.read_bytes()
        packed = Compressor.compress_gzip(data)
        rel = path.relative_to(site).as_posix()
        if not data or len(packed) > 0.95 * len(data):
            return rel, False
        copy = into / f"{rel}.gz"
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes(packed)
        stat = path.stat()
        os.utime(copy, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        return rel, True

    with ThreadPoolExecutor(max_workers=workers) as pool:  # zlib lets go of the GIL: one file per core
        done = list(pool.map(one, todo))
    for rel, written in done:
        if written:
            skipped.pop(rel, None)
        else:
            skipped[rel] = _stamp(site / rel)
    skipped_file.write_text(json.dumps(skipped, indent=0, sort_keys=True) + "\n")
    return {
        "compressed": sum(written for _, written in done),
        "kept": kept,
        "skipped": sum(not w for _, w in done),
    }


def _not_found(environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
    body = f"Not found: {environ.get('PATH_INFO', '')}\n".encode()
    start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))])
    return [body]


class _ToFolder:
    """Redirect a folder's address without its slash to the folder, keeping the query (``?path=`` in Live)."""

    def __init__(self, folder_url: str) -> None:
        self._location = quote(folder_url.rsplit("/", 2)[-2] + "/")

    def get_response(self, method: str, environ: Environ) -> Response:
        query = environ.get("QUERY_STRING", "")
        location = f"{self._location}?{query}" if query else self._location
        return Response(HTTPStatus.MOVED_PERMANENTLY, [("Location", location)], None)


class _Site(WhiteNoise):
    """WhiteNoise over one folder, its gzip copies read from another folder (``compressed``), or none."""

    def __init__(self, site: Path, compressed: Path | None, *, max_age: int) -> None:
        self._site, self._compressed = site, compressed
        super().__init__(_not_found, root=str(site), max_age=max_age)

    @staticmethod
    def is_compressed_variant(path: str, stat_cache: object = None) -> bool:
        return False  # every file of the site is served as itself (kernel.snapshot.gz is the snapshot, not a copy)

    def add_file_to_dictionary(self, url: str, path: str, stat_cache: object = None) -> None:
        """Add the file at ``url``; an ``index.html`` also at its folder's address (no redirect: it drops a query)."""
        self.files[url] = self.get_static_file(path, url)
        if url.endswith("/index.html"):
            folder = url[: -len("index.html")]
            self.files[folder] = self.files[url]
            if folder != "/":
                self.files[folder.rstrip("/")] = _ToFolder(folder)

    def get_static_file(self, path: str, url: str, stat_cache: object = None) -> StaticFile:
        headers = self._headers_for(path, url)
        encodings = None
        if self._compressed is not None:
            copy = self._compressed / f"{Path(path).relative_to(self._site).as_posix()}.gz"
            if copy.is_file() and copy.stat().st_mtime_ns == Path(path).stat().st_mtime_ns:
                encodings = {"gzip": str(copy)}
        return StaticFile(path, headers.items(), stat_cache=None, encodings=encodings)

    def _headers_for(self, path: str, url: str) -> Headers:
        headers = Headers([])
        self.add_mime_headers(headers, path, url)
        self.add_cache_headers(headers, path, url)
        return headers


def site_app(site: Path, *, compressed: Path | None, max_age: int = MAX_AGE_S) -> WsgiApp:
    """Return the WSGI application serving ``site``, with the gzip copies in ``compressed`` (None: uncompressed)."""
    if not (site / "index.html").is_file():
        raise FileNotFoundError(f"{site} has no index.html: build the site first (make book)")
    app: WsgiApp = _Site(site, compressed, max_age=max_age)
    return app


def recording(app: WsgiApp, sink: Callable[[str, int, int, str], None]) -> WsgiApp:
    """Return ``app`` telling ``sink`` of each response: path, status, body bytes sent, ``Content-Encoding`` or "".

    The body's bytes are its ``Content-Length`` (WhiteNoise sets it on every file), 0 for HEAD.
    """

    def app_recorded(environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        def start(status: str, headers: list[tuple[str, str]], *exc_info: Any) -> Any:
            named = {k.lower(): v for k, v in headers}
            body = 0 if environ["REQUEST_METHOD"] == "HEAD" else int(named.get("content-length", 0))
            sink(environ.get("PATH_INFO", ""), int(status.split()[0]), body, named.get("content-encoding", ""))
            return start_response(status, headers, *exc_info)

        return app(environ, start)

    return app_recorded


def create_server(app: WsgiApp, *, host: str, port: int, threads: int = 8) -> Any:
    """Return a Waitress server for ``app`` on ``host:port`` (port 0: any free port), ready to ``run()``.

    Waitress sends the files from its main loop; its ``threads`` only answer requests, so 30 browsers with six
    connections each fit (``connection_limit`` 400, ``poll`` instead of ``select``'s 1,024 descriptors).
    """
    # a room's browsers ask for many files at once: Waitress warns of every request that waits for a thread (for
    # milliseconds); the instructor's terminal keeps only errors
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    return waitress.create_server(
        app, host=host, port=port, threads=threads, connection_limit=400, asyncore_use_poll=True, ident="coursebuild"
    )


def room_addresses(port: int) -> list[str]:
    """Return the addresses this laptop answers on for the room (its network addresses), each as a learner types it."""
    found: set[str] = set()
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.255.255.255", 1))  # UDP: nothing is sent; this only picks the outgoing interface
            found.add(probe.getsockname()[0])
    except OSError:
        pass
    try:
        found.update(socket.gethostbyname_ex(socket.gethostname())[2])
    except OSError:
        pass
    return [f"http://{ip}:{port}/" for ip in sorted(found) if not ip.startswith("127.") and ip != "0.0.0.0"]


def _lines(site: Path, host: str, port: int, counts: dict[str, int] | None) -> Iterator[str]:
    if counts is not None:
        yield f"gzip copies: {counts['compressed']} made now, {counts['kept']} kept, {counts['skipped']} not worth it"
    yield f"Serving {site} on {host}:{port} (Ctrl+C stops it)"
    yield f"  on this laptop:  http://localhost:{port}/   (Live works here: localhost may start a service worker)"
    for address in room_addresses(port) if host in ("0.0.0.0", "") else [f"http://{host}:{port}/"]:
        yield f"  learners open:   {address}"
    yield "After a new build of the site, stop this and start it again (it lists the site's files when it starts)."


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, default=ROOT / "_build" / "html", help="the built site (make book)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT)
    parser.add_argument("--bind", default="0.0.0.0", help="0.0.0.0: every network of this laptop (default)")
    parser.add_argument("--compressed", type=Path, help="where the gzip copies go (default: beside the site)")
    parser.add_argument("--no-compress", action="store_true", help="send every file as it is on disk")
    args = parser.parse_args(argv)
    site = args.site.resolve()
    compressed = None if args.no_compress else (args.compressed or site.parent / f"{site.name}-gzip").resolve()
    counts = None if compressed is None else compress_site(site, compressed)
    server = create_server(site_app(site, compressed=compressed), host=args.bind, port=args.port)
    print("\n".join(_lines(site, args.bind, server.effective_port, counts)), flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()


if __name__ == "__main__":
    main()
