"""The contract's unions against the code and against the generators: each game's command union is
exactly its command schemas, and every variant of every union carries its discriminator as a
required single-value enum (docs/openapi-contract.md)."""
from __future__ import annotations

from .spec import SPEC


COMMAND_UNIONS = {"scharfe-schoten": "ScharfeSchotenCommand", "schafkopf": "SchafkopfCommand",
                  "scharwenzel": "ScharwenzelCommand"}


def _name(ref: str) -> str:
    return ref.rsplit("/", 1)[1]


def test_command_unions_match_the_code():
    """Each `<Game>Command` is exactly the game's command schemas in the code (types, fields, required fields);
    `Command` maps every type to one schema: the game's own where only one game has it, else a shared one."""
    from api.commands import command_schemas

    schemas = SPEC["components"]["schemas"]
    games_of: dict[str, dict[str, str]] = {}
    for game, union in COMMAND_UNIONS.items():
        code = command_schemas(game)
        mapping = schemas[union]["discriminator"]["mapping"]
        assert set(mapping) == set(code), game
        assert sorted(r["$ref"] for r in schemas[union]["oneOf"]) == sorted(mapping.values()), game
        for kind, ref in mapping.items():
            schema, fields = schemas[_name(ref)], code[kind]().fields
            assert schema["properties"]["type"] == {"type": "string", "enum": [kind]}, ref
            assert set(schema["properties"]) == set(fields), ref
            assert set(schema["required"]) == {n for n, f in fields.items() if f.required}, ref
            assert schema["additionalProperties"] is False, ref
            games_of.setdefault(kind, {})[game] = ref
    generic = schemas["Command"]["discriminator"]["mapping"]
    assert set(generic) == set(games_of)
    assert sorted(r["$ref"] for r in schemas["Command"]["oneOf"]) == sorted(generic.values())
    shared = {kind: refs for kind, refs in games_of.items() if len(refs) > 1}
    for kind, refs in games_of.items():
        if kind not in shared:
            assert generic[kind] == next(iter(refs.values())), kind
    assert {kind: _name(generic[kind]) for kind in shared} == {
        "play": "PlayCommand", "pass": "PassCommand", "bid": "BidCommand"}
    # A shared type is the union of the games' own schemas, so a command from any view's `legal`
    # is a valid body as it is (anyOf where two games' commands can look alike: `G9`, `pass`).
    assert sorted(r["$ref"] for r in schemas["PlayCommand"]["anyOf"]) == sorted(shared["play"].values())
    assert sorted(r["$ref"] for r in schemas["PassCommand"]["anyOf"]) == sorted(shared["pass"].values())
    assert sorted(r["$ref"] for r in schemas["BidCommand"]["oneOf"]) == sorted(shared["bid"].values())


def test_every_union_variant_carries_its_discriminator_as_a_required_single_value_enum():
    """What code generators that ignore `discriminator` need to pick the right variant."""
    schemas = SPEC["components"]["schemas"]
    unions = {name: schema for name, schema in schemas.items() if "discriminator" in schema}
    assert len(unions) >= 13
    for name, union in unions.items():
        key = union["discriminator"]["propertyName"]
        assert len(union["discriminator"]["mapping"]) == len(union["oneOf"]), name
        for value, ref in union["discriminator"]["mapping"].items():
            target = schemas[_name(ref)]
            # The shared command types (PlayCommand, PassCommand, BidCommand) unite the games' own forms.
            variants = [r["$ref"] for r in target.get("oneOf", target.get("anyOf", [{"$ref": ref}]))]
            for variant in variants:
                schema = schemas[_name(variant)]
                assert key in schema["required"], (name, variant)
                assert schema["properties"][key] == {"type": "string", "enum": [value]}, (name, variant)
