"""The HTTP contract's sources: ``contract/openapi/``, one small file per tag, per schema and per
kind of component, bundled into the top-level ``openapi.yaml`` that the server serves.

``python -m contract`` rebuilds ``openapi.yaml`` from the sources; docs/openapi-contract.md says how
to edit them.
"""
