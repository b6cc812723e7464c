"""One Registry type for every registry: a read-only mapping whose failed lookups name the
value, what is accepted and the closest names."""

import ast
import importlib
from pathlib import Path

import pytest

from anonspread.errors import InvalidParameterError, UnknownNameError
from anonspread.registry import Registry

ROOT = Path(__file__).resolve().parents[1]


def test_a_registry_is_a_read_only_mapping_in_registration_order():
    reg = Registry("colour")
    assert reg.add("red", 1) == 1 and reg.add("blue", 2) == 2
    assert list(reg) == ["red", "blue"] and reg.names() == ["blue", "red"]
    assert dict(reg.items()) == {"red": 1, "blue": 2} and len(reg) == 2
    assert reg["red"] == 1 and reg.get("red") == 1 and "red" in reg and "green" not in reg
    assert reg.get("green", None) is None and reg.get("green", 7) == 7
    assert [] not in reg  # an unhashable value is simply not a name
    assert reg != {"red": 1, "blue": 2} and reg == reg and len({reg, reg}) == 1
    reg.remove("red")
    reg.remove("red")  # absent: no error
    assert list(reg) == ["blue"]


def test_failed_lookups_name_the_value_and_suggest():
    reg = Registry("estimator", parameter="estimator")
    for name in ("jordan", "rumor", "ml"):
        reg.add(name, object())
    with pytest.raises(UnknownNameError) as info:
        reg.get("jordn")
    assert str(info.value) == ("estimator must be one of ['jordan', 'ml', 'rumor']; got 'jordn'; "
                               "did you mean 'jordan'?")
    assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)
    with pytest.raises(KeyError, match=r"got \['x'\]"):
        reg[["x"]]
    plain = Registry("experiment")
    plain.add("fig2.1", 1)
    with pytest.raises(UnknownNameError, match=r"^unknown experiment 'fig2\.2'; did you mean 'fig2\.1'\?$"):
        plain.get("fig2.2")
    with pytest.raises(UnknownNameError, match=r"; known: fig2\.1$"):
        plain.get("zzz")
    with pytest.raises(UnknownNameError, match="no thing is registered"):
        Registry("thing").get("x")
    many = Registry("graph", listing="anonspread sweep --list", parameter="graph")
    for i in range(20):
        many.add(f"g{i:02d}", i)
    with pytest.raises(UnknownNameError,
                       match=r"graph must be one of 20 registered graph names \(list them with "
                             r"'anonspread sweep --list'\); got 'nope'$"):
        many.get("nope")


def test_registration_refuses_a_second_item_unless_replaced():
    reg = Registry("protocol")
    item = object()
    reg.add("a", item)
    reg.add("a", item)  # the same object again: no-op
    with pytest.raises(InvalidParameterError, match="protocol name 'a' is already registered; pass replace=True"):
        reg.add("a", object())
    other = object()
    assert reg.add("a", other, replace=True) is other and reg["a"] is other
    with pytest.raises(InvalidParameterError, match="name must be a non-empty str naming a protocol; got 3"):
        reg.add(3, object())


def test_the_loader_runs_once_before_the_first_lookup():
    calls = []
    reg = Registry("experiment")
    reg.set_loader(lambda: (calls.append(1), reg.add("x", 1)))
    assert calls == []
    assert "x" in reg and reg["x"] == 1 and list(reg) == ["x"] and len(reg) == 1
    assert calls == [1]


def test_every_registry_of_the_package_is_a_registry():
    from anonspread import adversaries, datasets, harness, spread  # noqa: F401
    from anonspread.adversaries import transactions
    from anonspread.datasets import _registry as dataset_registry
    from anonspread.harness import components, executors, kinds
    from anonspread.harness import registry as experiments

    compose = importlib.import_module("anonspread.harness.compose")  # the package exports a function of that name
    from anonspread.spread import dandelion, limits, protocols

    for reg in (protocols.PROTOCOLS, dandelion.STEM_PROTOCOLS, adversaries.ESTIMATORS,
                adversaries.SPY_ESTIMATORS, adversaries.TRAJECTORIES,
                transactions.TRANSACTION_ESTIMATORS, transactions.TRANSACTION_ESTIMATOR_PROTOCOLS,
                dataset_registry._REGISTRY, limits._REACH, components._CONVENTIONS, kinds.KINDS,
                experiments._EXPERIMENTS, compose._TEMPLATES, executors._EXECUTORS):
        assert isinstance(reg, Registry), reg
    assert sorted(protocols.PROTOCOLS) == ["adaptive-diffusion", "flooding", "line",
                                           "random-diffusion", "tree", "tree-pseudocode"]
    assert sorted(dandelion.STEM_PROTOCOLS) == ["continuous-diffusion", "dandelion", "dandelion++"]
    assert set(adversaries.TRAJECTORIES) == set(protocols.PROTOCOLS)


def _isinstance_targets(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
            target = node.args[1]
            for elt in target.elts if isinstance(target, ast.Tuple) else [target]:
                names.add(ast.unparse(elt))
    return names


def test_the_engines_do_not_ask_which_protocol_they_run():
    """The message-level engine and exact enumeration dispatch through the protocol (its
    message_behaviour) and the registry (TRAJECTORIES), never on protocol classes."""
    protocol_classes = {"AdaptiveDiffusion", "Flooding", "LineProtocol", "RandomDiffusion",
                        "TreeProtocol", "TreeProtocolPseudocode", "ContinuousDiffusion",
                        "StemProtocol", "Dandelion", "DandelionPlusPlus"}
    for rel in ("spread/events.py", "adversaries/exact.py", "spread/simulate.py", "adversaries/transactions.py"):
        assert not _isinstance_targets(ROOT / rel) & protocol_classes, rel
