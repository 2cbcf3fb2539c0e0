"""The protocol's messages, each defined once: every message of the two sockets in both
directions and every JSON body of the HTTP endpoints, as msgspec types.

The server reads what a client sends by these types (`contract.reading`), the specs
`docs/asyncapi.yaml` and `docs/openapi.yaml` are generated from them (`make spec`,
`contract.spec`), and the tests check every frame they receive against the specs. Like
`games`, this package knows nothing of Django: a client may import it.

Where each lives: `base` (the shared shapes: ids, cards, times), `registry` (what the
specs list), `table_in` (what a client sends a table), `table_out` (what a table sends),
`variants/` (each variant's `view` and events), `lobby` (the lobby socket), `http` (the
JSON endpoints), `codes` (error and close codes).
"""
