"""Each exercise that needs code has its own Live notebook, staged beside the chapters, that runs top to bottom.

The static page's button opens it (:func:`coursebuild.exercises_site.exercise_live_href`), so it must stand alone:
in a plain Python kernel (as the live site's for labcore.progress, see tests/test_live_run_all.py), Run All with the
placeholder answer raises nothing, prints the check's ✗ verdict and stores no progress; with the exercise's right
answer (its record's ``right``, put in place of the placeholder just before the check call) the check prints ✓
and stores exactly that exercise, right.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from coursebuild.exercises_site import exercise_html, exercise_live_href
from coursebuild.lite.exercises import FROM_CHAPTER_HEAD, exercise_notebook_name
from coursebuild.lite.site import stage_contents
from labcore.chapters import EXERCISES
from tests.test_live_run_all import _Kernel, _stored

ROOT = Path(__file__).resolve().parents[1]
NEEDS_CODE = [e for e in EXERCISES if not e.has_rule]
CHECK_CALL = re.compile(r"^(check_\w+)\((\w+)\)\s*$", re.M)


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    chapters = sorted({ROOT / "book" / f"{e.page}.ipynb" for e in NEEDS_CODE})
    dest = tmp_path_factory.mktemp("lite_contents")
    return dest, stage_contents(chapters, dest, glue="note")


def _text(outputs: list) -> str:
    return "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")


def test_the_six_exercises_that_need_code_are_the_ones_the_brief_names() -> None:
    assert [e.label for e in NEEDS_CODE] == ["2.1", "3.1", "7.2", "10.3", "14.3", "16.1"]


@pytest.mark.parametrize("exercise", NEEDS_CODE, ids=lambda e: e.label)
def test_its_notebook_is_staged_and_its_box_opens_it(exercise, staged) -> None:  # noqa: ANN001
    dest, written = staged
    name = exercise_notebook_name(exercise.label)
    assert name in written and (dest / name).is_file()
    nb = nbformat.read(dest / name, as_version=4)
    nbformat.validate(nb)
    sources = [c.source for c in nb.cells]
    assert sources[1].startswith("# Live version only (JupyterLite"), "the chapter's setup cell comes first"
    assert sources[2].startswith(FROM_CHAPTER_HEAD)
    assert any(f"**Exercise {exercise.label}.**" in s for s in sources if s)
    assert f"]({exercise.page}.ipynb)" in sources[-1] and nb.cells[-1].cell_type == "markdown"
    href = exercise_live_href(exercise.label, f"book/{exercise.page}")
    assert href == f"../lite/notebooks/index.html?path={name}"
    box = exercise_html(exercise, live_href=href)
    assert f'href="{href}"' in box and f"Open exercise {exercise.label} in Live</a>" in box


@pytest.mark.slow
@pytest.mark.parametrize("exercise", NEEDS_CODE, ids=lambda e: e.label)
def test_it_runs_alone_storing_nothing_until_the_right_answer(exercise, staged, tmp_path: Path) -> None:  # noqa: ANN001
    dest, _ = staged
    nb = nbformat.read(dest / exercise_notebook_name(exercise.label), as_version=4)
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    check = code[-1]
    call = CHECK_CALL.search(nb.cells[check].source)
    assert call and call[1] == exercise.grade.__name__.replace("grade_", "check_")
    with _Kernel(f"{exercise.page}.ipynb", tmp_path, len(nb.cells)) as kernel:
        stored, printed = [], ""
        for i in code:
            outputs = kernel.run(nb.cells[i], i)
            stored += _stored(outputs)
            printed = _text(outputs)
        assert stored == [], f"Run All with the placeholder stored {stored}"
        assert printed.startswith("✗"), printed
        right = (
            f"from labcore.chapters import EXERCISES as _EXERCISES\n"
            f"{call[2]} = next(e.right for e in _EXERCISES if e.label == {exercise.label!r})\n"
        )
        typed = nbformat.v4.new_code_cell(nb.cells[check].source.replace(call[0], right + call[0]))
        outputs = kernel.run(typed, check)
    assert _text(outputs).startswith("✓"), _text(outputs)
    assert [(e["kind"], e["key"], e["value"]) for e in _stored(outputs)] == [("exercises", exercise.key, {"ok": True})]
