"""The reference bot: a client of the public protocol only (docs/asyncapi.yaml,
docs/openapi.yaml, docs/protocol.md), runnable as ``python -m bot`` (bot/README.md).

It imports nothing of the server but `contract` (the message definitions) and `games`
(the pure rules engine's strategy code); tests/test_architecture.py holds it to that.
"""
