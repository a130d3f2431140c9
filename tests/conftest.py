"""Shared test settings: hypothesis runs derandomized (same examples every run) with no deadline."""

from hypothesis import settings

settings.register_profile("course", derandomize=True, deadline=None, max_examples=200, print_blob=True)
settings.load_profile("course")
