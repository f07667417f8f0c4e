"""The daemon side of RFC-0002: start-up, the accept loop and the asyncio transport.

Private: its public names (`Server`, `VerbHandler`, `Call`, ...) are re-exported by `venom_proto`.
"""
