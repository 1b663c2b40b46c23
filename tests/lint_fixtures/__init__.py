"""Helpers for the linter tests: a minimal valid wiki that a test can plant one defect in."""
