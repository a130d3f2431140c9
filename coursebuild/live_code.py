"""The code of a live copy: a chapter's code cells as the browser's kernel can run them.

The live kernel (Pyodide) has labcore but no myst-nb, no matplotlib and, until it is loaded, no numpy: glue shows
its value as the book's cell does, the matplotlib imports are wrapped so a figure cell shows the book's stored
figure, and a cell that needs numpy says so instead of failing. :func:`live_code` applies all three.

A cell the book hides (``remove-cell``) but whose names later cells read is shown in the live copy as only the
statements that define them (:func:`defining_statements`): a learner who runs the cells they see, in order, has
every name each of them reads.
"""

from __future__ import annotations

import ast
import re

from IPython.core.inputtransformer2 import TransformerManager

#: a chapter reads ``Path("..") / "results"``; the live copy finds ``results`` beside it
PARENT_RESULTS = re.compile(r"""Path\((["'])\.\.\1\)\s*/\s*(["'])results\2""")

__all__ = [
    "PARENT_RESULTS",
    "GLUE_IMPORT",
    "GLUE_DEF",
    "HIDDEN_NAMES_HEAD",
    "guard_optional_imports",
    "guard_numpy_cell",
    "live_code",
    "cell_names",
    "defining_statements",
]

GLUE_IMPORT = "from myst_nb import glue"
#: what the live copy runs instead of ``GLUE_IMPORT``: show the value as the book's cell does
GLUE_DEF = """\
def glue(name, variable, display=True):  # live copy: myst-nb's glue only feeds the book's prose
    if display:
        from IPython.display import display as show
        show(variable)"""

MATPLOTLIB_LINES = ("%matplotlib inline", "import matplotlib.pyplot as plt")
MATPLOTLIB_GUARD = """\
try:  # the live version's kernel has no matplotlib: each figure cell shows the book's figure instead
{lines}
except ImportError:
    {fallback}"""
NUMPY_LINE = "import numpy as np"
NUMPY_GUARD = """\
try:
    import numpy as np
except ImportError:  # the live version's kernel has no numpy
    np = None
    print("(numpy is not in this live kernel: the cells that compute with np print a note instead)")"""


def guard_optional_imports(source: str) -> str:
    """Return a code cell's source with its matplotlib/numpy import lines wrapped for offline use.

    ``%matplotlib inline`` and ``import matplotlib.pyplot as plt`` (top-level lines) become one
    ``try`` block at the place of the first of them, whose ``except ImportError`` binds ``plt``
    to ``labcore.plots.offline_pyplot()``; ``import numpy as np`` gets ``np = None`` without numpy.

    >>> print(guard_optional_imports("%matplotlib inline\\nimport matplotlib.pyplot as plt\\nx = 1"))
    try:  # the live version's kernel has no matplotlib: each figure cell shows the book's figure instead
        %matplotlib inline
        import matplotlib.pyplot as plt
    except ImportError:
        from labcore.plots import offline_pyplot; plt = offline_pyplot()
    x = 1
    """
    lines = source.split("\n")
    found = [line for line in lines if line.rstrip() in MATPLOTLIB_LINES]
    out: list[str] = []
    for line in lines:
        if line.rstrip() in MATPLOTLIB_LINES:
            if line is found[0]:
                fallback = (
                    "from labcore.plots import offline_pyplot; plt = offline_pyplot()"
                    if any(f.rstrip() == MATPLOTLIB_LINES[1] for f in found)
                    else "pass"
                )
                out.append(
                    MATPLOTLIB_GUARD.format(lines="\n".join("    " + f.rstrip() for f in found), fallback=fallback)
                )
        elif line.rstrip() == NUMPY_LINE:
            out.append(NUMPY_GUARD)
        else:
            out.append(line)
    return "\n".join(out)


NUMPY_USE = re.compile(r"\bnp\.")
NUMPY_SKIP = """\
if np is None:  # the live version's kernel has no numpy
    print("(skipped in the live version: this cell computes with numpy, which its kernel does not have; "
          "the book page shows its output)")
else:
{body}"""


def guard_numpy_cell(source: str) -> str:
    """Return a cell that computes with ``np`` wrapped so that, without numpy (``np is None``), it prints a note instead.

    A final expression is shown with ``display`` (inside the ``else`` it would not be the cell's value).

    >>> print(guard_numpy_cell("x = np.ones(2)\\nx.sum()"))
    if np is None:  # the live version's kernel has no numpy
        print("(skipped in the live version: this cell computes with numpy, which its kernel does not have; "
              "the book page shows its output)")
    else:
        x = np.ones(2)
        display(x.sum())
    """

    if not NUMPY_USE.search(source) or NUMPY_LINE in source:
        return source
    lines = source.rstrip("\n").split("\n")
    try:
        body = ast.parse(source).body
    except SyntaxError:  # IPython magics: leave the cell as it is
        return source
    if body and isinstance(body[-1], ast.Expr):
        first, last = body[-1].lineno - 1, body[-1].end_lineno
        expr = "\n".join(lines[first:last])
        lines[first:last] = f"display({expr})".split("\n")
    return NUMPY_SKIP.format(body="\n".join("    " + line if line else line for line in lines))


def live_code(source: str) -> str:
    """Return a (non-setup) code cell's source as the live copy runs it.

    >>> live_code('data = Path("..") / "results" / "real_lora.json"')
    'data = Path("results") / "real_lora.json"'
    >>> live_code("from myst_nb import glue").startswith("def glue(")
    True
    """
    lines = [GLUE_DEF if line.strip() == GLUE_IMPORT else line for line in source.split("\n")]
    return guard_optional_imports(guard_numpy_cell(PARENT_RESULTS.sub('Path("results")', "\n".join(lines))))


def _tree(source: str) -> ast.Module | None:
    try:  # IPython magics become Python on the same lines
        return ast.parse(TransformerManager().transform_cell(source))
    except SyntaxError:
        return None


def _statement_names(node: ast.AST) -> tuple[set[str], set[str]]:
    defined: set[str] = set()
    read: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            (read if isinstance(sub.ctx, ast.Load) else defined).add(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(sub.name)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            defined.update((a.asname or a.name).split(".")[0] for a in sub.names)
        elif isinstance(sub, ast.arg):
            defined.add(sub.arg)
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            defined.add(sub.name)
    return defined, read


def _free_names(statements: list[ast.stmt]) -> tuple[set[str], set[str]]:
    defined: set[str] = set()
    free: set[str] = set()
    for node in statements:  # a name a statement binds itself (a loop's, a comprehension's) is not read from before
        bound, read = _statement_names(node)
        free |= read - bound - defined
        defined |= bound
    return defined, free


def cell_names(source: str) -> tuple[set[str], set[str]]:
    """Return the names a code cell defines and the names it reads from earlier cells (unparsable: neither).

    >>> [sorted(names) for names in cell_names("from math import ceil\\ndef f(n):\\n    return ceil(n / k)")]
    [['ceil', 'f', 'n'], ['k']]
    """
    tree = _tree(source)
    return _free_names(tree.body) if tree is not None else (set(), set())


#: the first line of a hidden cell's statements shown in the live copy
HIDDEN_NAMES_HEAD = "# From a cell the book hides: the names the cells below use"


def defining_statements(source: str, names: set[str]) -> str:
    """Return the top-level statements of ``source`` that define ``names`` (and what they need from the cell).

    Checks and glue calls drop out; the result opens with :data:`HIDDEN_NAMES_HEAD`.

    >>> print(defining_statements("k = 2\\nEXACT_MB = 8.0 * k\\nglue('x', EXACT_MB, display=False)", {"EXACT_MB"}))
    # From a cell the book hides: the names the cells below use
    k = 2
    EXACT_MB = 8.0 * k
    """
    tree = _tree(source)
    if tree is None:
        raise ValueError(f"a hidden cell that later cells need does not parse: {source[:80]!r}")
    lines, wanted, kept = source.split("\n"), set(names), []
    for node in reversed(tree.body):
        defined, read = _free_names([node])
        if defined & wanted:
            kept.append(node)
            wanted |= read
    spans = ["\n".join(lines[node.lineno - 1 : node.end_lineno]) for node in reversed(kept)]
    return "\n".join([HIDDEN_NAMES_HEAD, *spans])
