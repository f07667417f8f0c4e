"""The checks, one module per RFC part; collected by pytest through the suite's plugin."""
