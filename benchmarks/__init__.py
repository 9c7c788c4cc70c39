"""Reproducible benchmarks of pressroom; run them with ``benchmarks/run_all.py``."""
