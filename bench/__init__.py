"""Benchmarks: `python -m bench` (or `nox -s bench`); see docs/benchmarks.md."""
