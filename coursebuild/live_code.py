"""The code of a live copy: a chapter's code cells as the browser's kernel can run them.

The live kernel (Pyodide) has labcore but no myst-nb, no matplotlib and, until it is loaded, no numpy: glue shows
its value as the book's cell does, the matplotlib imports are wrapped so a figure cell shows the book's stored
figure, and a cell that needs numpy says so instead of failing. :func:`live_code` applies all three.
"""

from __future__ import annotations

import ast
import re

#: a chapter reads ``Path("..") / "results"``; the live copy finds ``results`` beside it
PARENT_RESULTS = re.compile(r"""Path\((["'])\.\.\1\)\s*/\s*(["'])results\2""")

__all__ = ["PARENT_RESULTS", "GLUE_IMPORT", "GLUE_DEF", "guard_optional_imports", "guard_numpy_cell", "live_code"]

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
                fallback = ("from labcore.plots import offline_pyplot; plt = offline_pyplot()"
                            if any(f.rstrip() == MATPLOTLIB_LINES[1] for f in found) else "pass")
                out.append(MATPLOTLIB_GUARD.format(
                    lines="\n".join("    " + f.rstrip() for f in found), fallback=fallback))
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
    import ast

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
