"""The sans-I/O protocol core: bytes in, events out. No sockets, no event loop."""
