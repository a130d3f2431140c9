"""Learner implementations of the labcore contract: ``lab.skeleton`` (generated) and your ``lab.mine``."""
