"""The daemon side every product shares: shared verbs, events, configuration and `serve`."""
