"""The course's Live site (JupyterLite, Python in the browser through Pyodide), built with the book or alone.

By noun: :mod:`.requirements` (whether this build makes the Live site), :mod:`.runtime` (Pyodide, its lock and
``jupyter-lite.json``), :mod:`.wheels` (the wheels served through piplite, labcore's built from this tree),
:mod:`.bytecode` (those wheels compiled by Pyodide's own Python), :mod:`.notebooks` (a chapter's live copy),
:mod:`.exercises` (an exercise's own notebook), :mod:`.service_worker` (the pages' service worker),
:mod:`.site` (puts them together; ``python -m coursebuild.lite.site`` builds a site without the book),
:mod:`.sphinx` (the book build's extension) and the optional addon :mod:`.fast_start` (a kernel restored from a
memory snapshot; ``COURSE_LITE_FAST_START=0`` leaves it out).
"""
