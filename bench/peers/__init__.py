"""The peer benchmarks\x27 servers, clients and row builders (see bench/bench_peers.py)."""
