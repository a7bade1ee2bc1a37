"""``python -m contract [--check | --split]``

Without arguments: rebuilds ``openapi.yaml`` from ``contract/openapi/`` (docs/openapi-contract.md).
``--check``: exits 1, changing nothing, if ``openapi.yaml`` is not the bundle of the sources.
``--split``: the other way round, after a merge that edited ``openapi.yaml`` itself: rewrites
``contract/openapi/`` from it (each schema stays in its file; a new one goes beside the one before it).
"""
from __future__ import annotations

import argparse
import sys
import time

from .bundler import BUNDLE, REBUILD, SOURCES, ContractError, bundle, placements, split, write, write_sources


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m contract", description=__doc__.split("\n\n")[1])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="exit 1 if openapi.yaml is not the sources' bundle")
    mode.add_argument("--split", action="store_true", help="rewrite contract/openapi/ from openapi.yaml")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        if args.split:
            write_sources(split(BUNDLE.read_text(encoding="utf-8"), placements()))
            done = f"wrote {SOURCES.relative_to(BUNDLE.parent)}/ from openapi.yaml"
        elif args.check:
            if bundle() != BUNDLE.read_text(encoding="utf-8"):
                print(f"openapi.yaml is not the bundle of contract/openapi/: run `{REBUILD}`", file=sys.stderr)
                return 1
            done = "openapi.yaml is the bundle of contract/openapi/"
        else:
            done = "wrote openapi.yaml" if write() else "openapi.yaml was up to date"
    except ContractError as error:
        print(f"contract/openapi/: {error}", file=sys.stderr)
        return 1
    print(f"{done} ({(time.perf_counter() - started) * 1000:.0f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
