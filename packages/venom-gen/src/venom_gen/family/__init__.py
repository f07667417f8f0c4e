"""``venom``: one client for every daemon of the family (``ls``, ``describe``, ``call``).

``venom ls`` lists this user's daemon sockets with hello's answer; ``venom describe TARGET``
shows a daemon's verbs as its own CLI's help, from the model it serves; ``venom call TARGET
VERB PARAMS`` calls one verb, its params checked against that model first. A TARGET is a tool
name, a socket path or an ``ssh://`` URL. It runs on the product CLI's own parts (its output,
validators, help, auth and transports) and never imports a product: a daemon whose package is
not installed here is reached all the same. Installed as the ``venom`` console script of
venom-gen (``uv tool install venom-gen``).
"""

from ._main import main

__all__ = ("main",)
