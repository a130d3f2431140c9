"""Turn the MyST prose of a book notebook into plain CommonMark, for places that do not run Sphinx.

The book's markdown cells use MyST: roles (``{glue:text}`key:fmt```, ``{term}`slot```,
``{ref}`text <label>```), directives (``:::{note}``, ``:::{glossary}``), targets (``(label)=``),
comments (``% ...``) and block breaks (``+++``). A reveal.js deck (nbconvert) or a JupyterLab
without MyST support would show all of that literally. :func:`to_commonmark` rewrites it:

* glue roles become the value the book build glued, formatted by myst-nb's own rule
  (:func:`substitute_glue`); every other role becomes its plain text
  (the ``text`` of ``text <target>``, else the content); ``{math}`` becomes ``$...$`` and
  ``{code}``/``{literal}`` an inline code span;
* admonitions become a block quote opening with the bold title, ``{glossary}`` a list of
  ``**term**: definition`` lines, ``{math}`` a ``$$`` block, ``{code-block}`` a code fence, figures
  and images a Markdown image; directives named in ``drop`` vanish with their content, and any
  other directive keeps its content (options removed), its argument in bold;
* targets, comments and block breaks are removed.

Plain fenced code and inline code spans are left untouched, so prose that quotes a role in
backticks keeps it.

>>> to_commonmark("A {term}`slot <gpu-slot>` holds {glue:text}`n:.0f` adapters.", {"n": "7.6"})
'A slot holds 8 adapters.'
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from myst_nb.core.variables import format_plain_text

__all__ = ["ADMONITIONS", "GLUE_ROLE", "format_glue", "substitute_glue", "role_text", "to_commonmark"]

#: Directives shown as a block quote with a bold title (the admonitions of MyST and Sphinx).
ADMONITIONS = frozenset(
    {
        "admonition",
        "attention",
        "caution",
        "danger",
        "error",
        "hint",
        "important",
        "note",
        "seealso",
        "tip",
        "warning",
        "versionadded",
        "versionchanged",
        "deprecated",
    }
)
#: Directives whose content is not prose: dropped whatever ``drop`` says.
NON_PROSE = frozenset(
    {
        "toctree",
        "tableofcontents",
        "bibliography",
        "eval-rst",
        "raw",
        "only",
        "glue:figure",
        "glue:any",
        "glue",
        "include",
        "literalinclude",
        "contents",
        "index",
    }
)
_CODE_DIRECTIVES = frozenset({"code", "code-block", "code-cell", "sourcecode"})
_MATH_DIRECTIVES = frozenset({"math", "equation"})
_IMAGE_DIRECTIVES = frozenset({"figure", "image", "figure-md"})

# A role `{name}`content`` (any number of backticks) or, to skip it, an inline code span.
_INLINE = re.compile(
    r"\{(?P<role>[A-Za-z][\w:.+-]*)\}(?P<ticks>`+)(?P<content>.+?)(?P=ticks)(?!`)"
    r"|(?P<span>(?P<sticks>`+).+?(?P=sticks)(?!`))",
    re.S,
)
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,}|:{3,})\s*(?P<info>.*)$")
_DIRECTIVE_INFO = re.compile(r"^\{(?P<name>[A-Za-z][\w:.+-]*)\}\s*(?P<arg>.*)$")
_OPTION = re.compile(r"^:[\w-]+:(\s.*)?$")
_TARGET = re.compile(r"^\s*\([\w.:-]+\)=\s*$")
_TEXT_TARGET = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]*)>$", re.S)


GLUE_ROLE = re.compile(r"\{glue(?::text)?\}`([^`]+)`")


def format_glue(text: str, fmt_spec: str) -> str:
    """Format a glued ``text/plain`` value as the ``{glue:text}`` role does on the page (myst-nb's rule).

    >>> format_glue("97.5", ".0f"), format_glue("'H100'", "")
    ('98', 'H100')
    """

    return format_plain_text(text, fmt_spec)


def substitute_glue(markdown: str, values: Mapping[str, str] | None) -> str:
    """Replace every ``{glue:text}`key:fmt``` role by its formatted value.

    With ``values`` None (no build output to read), each role becomes a visible note instead.

    >>> substitute_glue("saves {glue:text}`pct:.1f`%", {"pct": "97.5"})
    'saves 97.5%'
    >>> substitute_glue("{glue:text}`pct`", None)
    '*[pct: see the book page]*'
    """

    def paste(match: re.Match) -> str:
        key, _, fmt_spec = match[1].partition(":")
        if values is None:
            return f"*[{key}: see the book page]*"
        if key not in values:
            raise KeyError(f"glue key {key!r} has no value in the executed notebook; glued keys: {sorted(values)}")
        return format_glue(values[key], fmt_spec)

    return GLUE_ROLE.sub(paste, markdown)


def role_text(role: str, content: str, glue: Mapping[str, str] | None = None) -> str:
    """Return what one MyST role shows as plain CommonMark.

    >>> role_text("term", "working set <working-set>"), role_text("ref", "ch-cache"), role_text("math", "r^2")
    ('working set', 'ch-cache', '$r^2$')
    >>> role_text("glue:text", "pct:.1f", {"pct": "97.456"}), role_text("code", "a`b")
    ('97.5', '`` a`b ``')
    """
    if role in ("glue", "glue:text", "glue:md", "glue:any"):
        return substitute_glue("{glue:text}`" + content + "`", glue)
    if role == "math":
        return f"${content}$"
    if role in ("code", "literal", "samp", "file", "command"):
        ticks = "``" if "`" in content else "`"
        pad = " " if ticks == "``" else ""
        return f"{ticks}{pad}{content}{pad}{ticks}"
    if role.startswith("cite"):
        return f"[{content}]"
    match = _TEXT_TARGET.match(content)
    if match and match["text"]:
        return match["text"]
    return match["target"] if match else content


def _inline(text: str, glue: Mapping[str, str] | None) -> str:
    def replace(match: re.Match) -> str:
        if match["span"] is not None:
            return match["span"]
        return role_text(match["role"], match["content"], glue)

    return _INLINE.sub(replace, text)


def _strip_options(lines: list[str]) -> list[str]:
    """Drop a directive's leading option lines (``:key: value`` or a ``---`` YAML block)."""
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is not None:
            return lines[end + 1 :]
    i = 0
    while i < len(lines) and _OPTION.match(lines[i].strip()):
        i += 1
    return lines[i:]


def _glossary(lines: list[str], glue: Mapping[str, str] | None) -> str:
    """Turn a glossary body (terms at the margin, definitions indented) into ``**term**: definition`` lines."""
    entries: list[tuple[list[str], list[str]]] = []
    for line in lines:
        if not line.strip():
            continue
        if line[:1].isspace():
            if entries:
                entries[-1][1].append(line.strip())
        elif entries and not entries[-1][1]:
            entries[-1][0].append(line.strip())  # several terms for one definition
        else:
            entries.append(([line.strip()], []))
    return "\n\n".join(
        "**" + ", ".join(_inline(t, glue) for t in terms) + "**: " + _inline(" ".join(body), glue)
        for terms, body in entries
    )


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def _directive(name: str, arg: str, body: list[str], glue: Mapping[str, str] | None, drop: Collection[str]) -> str:
    if name in drop or name in NON_PROSE:
        if name == "glue:md" and glue is not None:
            return role_text("glue:text", arg, glue)
        return ""
    body = _strip_options(body)
    if name in _CODE_DIRECTIVES:
        return "```" + arg.split()[0] * bool(arg.split()) + "\n" + "\n".join(body) + "\n```"
    if name in _MATH_DIRECTIVES:
        return "$$\n" + "\n".join(body).strip() + "\n$$"
    if name == "glossary":
        return _glossary(body, glue)
    content = _blocks(body, glue, drop).strip()
    if name in _IMAGE_DIRECTIVES:
        image = f"![{_inline(content.splitlines()[0], glue) if content else ''}]({arg.strip()})" if arg else ""
        return "\n\n".join(part for part in (image, content) if part)
    if name in ADMONITIONS:
        title = _inline(arg, glue) if arg else name.replace("seealso", "see also").capitalize()
        title = title if title[-1:] in ".?!:" else title + "."
        return _quote(f"**{title}**" + (f" {content}" if content else ""))
    heading = f"**{_inline(arg, glue)}**" if arg else ""
    return "\n\n".join(part for part in (heading, content) if part)


def _blocks(lines: list[str], glue: Mapping[str, str] | None, drop: Collection[str]) -> str:
    """Rewrite a list of lines: fences (code kept, directives converted), targets/comments/breaks removed."""
    out: list[str] = []
    prose: list[str] = []

    def flush() -> None:
        if prose:
            out.append(_inline("\n".join(prose), glue))
            prose.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            mark = fence["fence"]
            close = re.compile(rf"^ {{0,3}}{re.escape(mark[0])}{{{len(mark)},}}\s*$")
            end = next((j for j in range(i + 1, len(lines)) if close.match(lines[j])), len(lines))
            body = lines[i + 1 : end]
            directive = _DIRECTIVE_INFO.match(fence["info"].strip())
            flush()
            if directive or mark[0] == ":":  # a colon fence without a directive name holds prose
                converted = (
                    _directive(directive["name"], directive["arg"].strip(), body, glue, drop)
                    if directive
                    else _blocks(body, glue, drop)
                )
                if converted.strip():
                    out.append(f"\n{converted}\n")  # a block of its own (no lazy continuation)
            else:
                out.append("\n".join(lines[i : end + 1]))  # plain code: untouched
            i = end + 1
            continue
        stripped = line.strip()
        if _TARGET.match(line) or stripped.startswith("%") or stripped == "+++":
            i += 1
            continue
        prose.append(line)
        i += 1
    flush()
    return "\n".join(out)


def to_commonmark(text: str, glue: Mapping[str, str] | None = None, *, drop: Collection[str] = ()) -> str:
    """Return MyST markdown ``text`` as plain CommonMark (see the module doc).

    ``glue`` maps glue keys to their ``text/plain`` values (None: each glue role becomes a note
    to see the book page); directives named in ``drop`` are removed with their content.

    >>> print(to_commonmark(":::{note}\\nThe budget is a **wall**.\\n:::\\n(cache)=\\nUse `{term}` roles."))
    <BLANKLINE>
    > **Note.** The budget is a **wall**.
    <BLANKLINE>
    Use `{term}` roles.
    >>> to_commonmark(":::{glossary}\\nslot\\n  Room for one adapter in a batch.\\n:::").strip()
    '**slot**: Room for one adapter in a batch.'
    >>> to_commonmark("```{solution} ex-1\\n:class: dropdown\\n42\\n```", drop={"solution"})
    ''
    """
    return _blocks(text.split("\n"), glue, drop)
