"""Perception: the page-side walk, the tree it yields, and the Observation built from it."""
