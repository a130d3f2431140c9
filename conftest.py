"""Repository-wide pytest setup (applies to tests/ and to nbval over book/).

nbval starts each notebook's kernel with this process's environment.  An exported
``MPLBACKEND=Agg`` would make figures vanish from re-executed outputs (the kernel's
inline backend is replaced), so it is cleared here; in-process tests fall back to Agg
on their own when there is no display.  The Hugging Face variables keep the
real-PEFT chapter from contacting a hub that is unreachable here.
"""

from __future__ import annotations

import os

os.environ.pop("MPLBACKEND", None)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
