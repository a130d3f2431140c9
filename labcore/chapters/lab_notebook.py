"""The lab notebook's manifest: a page beside the chapters (the notebook chapter 7's Live button opens), whose Live
kernel runs the contract suite."""

from __future__ import annotations

from ..site import LAB_NOTEBOOK
from ._chapter import Chapter

CHAPTER = Chapter(number=None, slug=LAB_NOTEBOOK.removesuffix(".ipynb"), live=("suite",))
