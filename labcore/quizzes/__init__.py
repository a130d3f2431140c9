"""Self-check quizzes, one per chapter, organised by domain noun like the plots, panels and checks.

Each module builds its chapter's :class:`Quiz` from labcore's own numbers; a chapter shows it in one
line (``cache_quiz().show()``), and the page answers with no kernel (jupyterquiz's static JavaScript).
:data:`QUIZZES` lists every quiz by name; the browser tests click every answer of every quiz on the
built pages and compare the page's verdict with :meth:`Quiz.grade`.

>>> "cache_quiz" in QUIZZES and all(name == f.__name__ for name, f in QUIZZES.items())
True
>>> QUIZZES["cache_quiz"]().questions[2].answer
2.0
"""

from __future__ import annotations

from collections.abc import Callable

from ._quiz import Choice, MultipleChoice, Numeric, Quiz
from .admission import admission_quiz
from .affinity import affinity_quiz
from .batching import batching_quiz
from .cache import cache_quiz
from .canary import canary_quiz
from .capstone import capstone_quiz
from .contract import contract_quiz
from .engines import engines_quiz
from .fleet import fleet_quiz, why_multi_lora_quiz
from .real_files import real_files_quiz
from .registry import registry_quiz
from .router import router_quiz
from .sim import sim_quiz
from .sizing import sizing_quiz
from .tiers import tiers_quiz

#: Every chapter quiz, by name (the name of its factory: every ``*_quiz`` the package imports from its noun modules;
#: which chapter asks which is declared by the chapters' manifests, :data:`labcore.chapters.QUIZZES`).
QUIZZES: dict[str, Callable[[], Quiz]] = {
    name: f for name, f in sorted(globals().items()) if name.endswith("_quiz") and name[0] != "_"
}

__all__ = ["Choice", "MultipleChoice", "Numeric", "Quiz", "QUIZZES", *QUIZZES]
