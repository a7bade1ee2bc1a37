"""The fast copy every fold uses is ``dataclasses.replace``, minus the cost."""
from __future__ import annotations

import dataclasses
import pickle

import pytest

from domain.frozen import replace
from domain.registry import all_games
from domain.schafkopf.game_types import Order
from domain.table import TableState

from .harness import random_playout


@pytest.mark.parametrize("name,players,rules", [("schafkopf", 4, {"deals": 2}), ("scharwenzel", 4, {"deals": 1}),
                                                ("scharfe-schoten", 3, {"rounds": 1})])
def test_a_copy_equals_the_standard_one_and_stays_frozen(name, players, rules):
    _, state, _ = random_playout(all_games()[name], players, seed=3, rules=rules)
    inner = state.inner
    field = dataclasses.fields(inner)[0].name
    fast, standard = replace(inner, **{field: getattr(inner, field)}), dataclasses.replace(inner)
    assert fast == standard == inner and fast is not inner
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(fast, field, None)
    assert pickle.loads(pickle.dumps(fast)) == inner  # snapshots still round-trip
    assert replace(state, events=1).events == 1 and state.events != 1  # the original is untouched


def test_an_unknown_field_is_refused_as_dataclasses_does():
    with pytest.raises(TypeError):
        replace(TableState(), nonsense=1)


def test_a_class_that_derives_fields_after_init_takes_the_standard_path():
    order = Order(("EO", "GO"), ("A", "10"))
    other = replace(order, trumps=("HO",))
    assert other.is_trump("HO") and not other.is_trump("EO")  # its lookup table was rebuilt
