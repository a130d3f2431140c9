"""Read the LoRAX facts the course cites at a release tag, from a git clone, into labcore/data/engines.

LoRAX's launcher is Rust and its server ships in a container, so no PyPI package holds the files the course
cites (``make engines`` reads vLLM and SGLang from their wheels). This script reads them at the tag with
``git show`` (no checkout, nothing run): every launcher flag of ``struct Args`` (launcher/src/main.rs) with its
default and doc comment, the flags and defaults of docs/reference/launcher.md, the environment defaults of the
server's flash_causal_lm.py, and the bold feature names of docs/index.md; it writes
``lorax-<version>-<date>.json``.

    git clone <predibase/lorax> /tmp/lorax
    python scripts/lorax_facts.py --repo /tmp/lorax --tag v0.12.1 --out labcore/data/engines
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
from pathlib import Path

MAIN_RS = "launcher/src/main.rs"
LAUNCHER_MD = "docs/reference/launcher.md"
INDEX_MD = "docs/index.md"
SERVER = "server/lorax_server/models/flash_causal_lm.py"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def args_struct(rust: str) -> dict[str, dict]:
    """Return each field of ``struct Args`` as its flag: default (clap's default_value), env, doc comment."""
    body = rust[rust.index("struct Args {") :]
    body = body[: body.index("\n}\n")]
    flags, doc, clap = {}, [], ""
    for line in body.splitlines()[1:]:
        text = line.strip()
        if text.startswith("///"):
            doc.append(text[3:].strip())
        elif text.startswith("#[clap("):
            clap = text
        elif m := re.fullmatch(r"(\w+): (.+),", text):
            default = re.search(r'default_value = "([^"]*)"', clap)
            flags["--" + m[1].replace("_", "-")] = {
                "default": default[1] if default else None,
                "type": m[2],
                "env": "env" in clap,
                "doc": re.sub(r"<https?://[^>]+>", "<link>", " ".join(doc)),
                "file": MAIN_RS,
            }
            doc, clap = [], ""
    return flags


def launcher_md(text: str) -> dict[str, str | None]:
    """Return each flag documented in launcher.md with the default it states (None where it states none)."""
    found = {}
    for m in re.finditer(r"^ {6}(--[\w-]+)(.*?)(?=^ {6}--|\Z)", text, re.M | re.S):
        default = re.search(r"\[default: ?([^\]]*)\]", m[2])
        found[m[1]] = default[1].strip() if default else None
    return found


def read(repo: Path, tag: str) -> dict:
    commit = git(repo, "rev-parse", f"{tag}^{{commit}}").strip()
    show = lambda path: git(repo, "show", f"{tag}:{path}")  # noqa: E731
    return {
        "engine": "lorax",
        "version": tag.removeprefix("v"),
        "tag": tag,
        "commit": commit,
        "tag_date": git(repo, "log", "-1", "--format=%cs", commit).strip(),
        "read_on": datetime.date.today().isoformat(),
        "read_from": "a git clone of predibase/lorax at the tag (git show; nothing built or run)",
        "flags": args_struct(show(MAIN_RS)),
        "launcher_md_defaults": launcher_md(show(LAUNCHER_MD)),
        "server_env_defaults": dict(re.findall(r'^\w+ = \w+\(os\.getenv\("(\w+)", "([^"]*)"\)\)', show(SERVER), re.M)),
        "features": re.findall(r"\*\*([^*:]+):\*\*", show(INDEX_MD)),
        "files": [MAIN_RS, LAUNCHER_MD, INDEX_MD, SERVER],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, required=True, help="a git clone of predibase/lorax")
    parser.add_argument("--tag", default="v0.12.1")
    parser.add_argument("--out", type=Path, default=Path("labcore/data/engines"))
    args = parser.parse_args()
    facts = read(args.repo, args.tag)
    out = args.out / f"lorax-{facts['version']}-{facts['read_on']}.json"
    out.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(
        f"wrote {out}: {len(facts['flags'])} launcher flags, {len(facts['launcher_md_defaults'])} documented, "
        f"{len(facts['server_env_defaults'])} server env defaults, {len(facts['features'])} features"
    )


if __name__ == "__main__":
    main()
