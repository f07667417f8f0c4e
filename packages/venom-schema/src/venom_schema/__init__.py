"""venom-schema: Venom verb manifests (RFC-0004) and the normalized model every surface reads.

The public face is in submodules, so that importing one light module (the CLI's path goes
through ``.runtime``, ``.surfaces``, ``.names`` and ``.grants``) costs no other:
`venom_schema.model` (the model's types), `.manifest` (validation and the standard bundles),
`.declare` (verbs declared in Python, on pydantic), `.zon` (the ZON reader), `.model_cache`
(compiling the cache beside a manifest), `.canonical` (the digest), `.surfaces` (which verbs
each surface shows), `.names` (the CLI and man-page name mappings), `.runtime` (compiled
validators), `.registry` (handlers as venom-proto verbs) and `.grants` (the grant vocabulary
and policy).
"""

__all__: tuple[str, ...] = ()
