"""Self-check quizzes, one per chapter, organised by domain noun like the plots, panels and checks.

Each module builds its chapter's :class:`Quiz` from labcore's own numbers; a chapter shows it in one
line (``cache_quiz().show()``), and the page answers with no kernel (jupyterquiz's static JavaScript).
:data:`QUIZZES` lists every quiz by name; the browser tests click every answer of every quiz on the
built pages and compare the page's verdict with :meth:`Quiz.grade`.

>>> sorted(QUIZZES)[:1]
['cache_quiz']
>>> QUIZZES["cache_quiz"]().questions[2].answer
2.0
"""

from __future__ import annotations

from collections.abc import Callable

from ._quiz import Choice, MultipleChoice, Numeric, Quiz
from .cache import cache_quiz

__all__ = ["Choice", "MultipleChoice", "Numeric", "Quiz", "QUIZZES", "cache_quiz"]

#: Every chapter quiz, by name (the name of its factory).
QUIZZES: dict[str, Callable[[], Quiz]] = {f.__name__: f for f in (cache_quiz,)}
