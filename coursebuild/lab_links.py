"""Link the pages to the lab: the ``{lab}`` role, for the lab in the live site and the lab's download.

In MyST prose: ``{lab}`Do the lab in your browser <live>``` and ``{lab}`download the lab <download>```.
On the site the first becomes a link to the live site's lab notebook, opened alone in the window
(:func:`labcore.site.lab_live_url`), the second a link to the ``.zip`` (:data:`labcore.site.LAB_DOWNLOAD`),
both relative to the page. When the build has no live site (``COURSE_LITE=0``, or the Lite requirements
missing), a ``live`` link would lead nowhere: it is written as plain text with a note instead.
``{lab-button}`Do the lab <live>``` is the same link drawn as a button (``lab-button``, the landing page's
first screen); without a live site it leads to the download, and says so.

The live copies and the decks do not run Sphinx. In a live copy, :func:`live_markdown` turns a ``live``
link into a Markdown link to the lab notebook, a file beside the chapters there (JupyterLab opens it);
anything else becomes its plain text (:func:`coursebuild.myst_text.to_commonmark`), as on a slide.

>>> href("live", "book/07_do_the_lab")
'../lite/notebooks/index.html?path=do_the_lab.ipynb'
>>> href("download", "book/index")
'../downloads/multi-lora-lab.zip'
"""

from __future__ import annotations

import html
import re

from docutils import nodes

from labcore.site import LAB_DOWNLOAD, LAB_NOTEBOOK, lab_live_url

from .lite.requirements import missing_requirement
from .myst_text import role_text

__all__ = ["TARGETS", "LAB_ROLE", "CSS", "href", "live_markdown", "setup"]

TARGETS = ("live", "download")
CSS = "lab-links.css"  # in coursebuild/static, which coursebuild.panels_site adds to html_static_path
#: the role with its text and target: ``{lab}`text <target>```
LAB_ROLE = re.compile(r"\{lab\}`(?P<text>[^`<]+?)\s*<(?P<target>[^`>]+)>`")
_CONTENT = re.compile(r"(?P<text>[^<]+?)\s*<(?P<target>[^<>]+)>", re.S)


def href(target: str, docname: str) -> str:
    """Return the address of ``target`` (``live`` or ``download``) from the page ``docname``."""
    root = "../" * docname.count("/")
    if target == "live":
        return lab_live_url(root)
    if target == "download":
        return root + LAB_DOWNLOAD
    raise ValueError(f"the lab role's target must be one of {', '.join(TARGETS)}, got {target!r}")


def live_markdown(markdown: str) -> str:
    """Return ``markdown`` with each ``{lab}`text <live>``` made a link to the lab notebook beside it (the live site).

    >>> live_markdown("{lab}`Do the lab <live>` or {lab}`download it <download>`.")
    '[Do the lab](do_the_lab.ipynb) or {lab}`download it <download>`.'
    """
    return LAB_ROLE.sub(lambda m: f"[{m['text']}]({LAB_NOTEBOOK})" if m["target"] == "live" else m[0], markdown)


def _role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{lab}`text <target>``` (a link) and ``{lab-button}`text <target>``` (drawn as a button): see the module doc."""
    match = _CONTENT.fullmatch(text.strip())
    label, target = (match["text"], match["target"].strip()) if match else (role_text("lab", text), "")
    if target not in TARGETS:
        message = inliner.reporter.error(
            f"the lab role needs a target, one of {', '.join(TARGETS)}: {{lab}}`text <live>`; got {text!r}", line=lineno
        )
        return [inliner.problematic(rawtext, rawtext, message)], [message]
    env = inliner.document.settings.env
    button = name == "lab-button"
    if target == "live" and not env.config.lab_live_site:
        if not button:
            return [nodes.inline(text=f"{label} (the live site is not part of this build of the course)")], []
        target, label = "download", f"{label}: download it"  # no live site in this build: the button still leads on
    attrs = ' download=""' if target == "download" else ""
    classes = f"lab-link lab-{target}" + (" lab-button" if button else "")
    link = f'<a class="{classes}" href="{html.escape(href(target, env.docname))}"{attrs}>{html.escape(label)}</a>'
    return [nodes.raw(rawtext, link, format="html")], []


def _add_css(app) -> None:
    app.add_css_file(CSS, priority=800)


def setup(app):
    """Register the ``{lab}`` role; ``lab_live_site`` says whether this build has a live site to link to."""
    app.add_config_value("lab_live_site", missing_requirement() is None, "html")
    app.add_role("lab", _role)
    app.add_role("lab-button", _role)
    app.connect("builder-inited", _add_css)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
