"""The downloaded lab's pytest setup: the contract suite tests your copy, ``lab/mine``, unless ``LAB_MODULE`` says otherwise.

pytest                                   # every module of lab/mine, red until you write it
pytest tests/contract/test_versions.py   # one module
LAB_MODULE=lab.skeleton pytest           # the untouched skeleton: every test red, each with its hint
"""

import os

os.environ.setdefault("LAB_MODULE", "lab.mine")
