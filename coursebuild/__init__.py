"""Build plumbing of the course's site (not part of labcore): vendored browser libraries and the panels' page glue."""
