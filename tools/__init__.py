"""Repository tools run by the nox sessions (not shipped in any package)."""
