"""A lint of the suite: no ``assert`` on the bare result of a call that returns a report
object (a dataclass, or a class with no truth value of its own). Such an object is always
true, so the assert can never fail: ``assert verify_chain(gid)`` checked nothing, while
``assert verify_chain(gid).ok`` does."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import typing
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent
PACKAGES = ("server", "core", "client_kivy")


def _imports(tree: ast.Module) -> dict[str, Any]:
    """Names the file binds to our own modules and functions (``from server.games import
    chain``, ``from server.games.chain import verify_chain``, ``import core``)."""
    names: dict[str, Any] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.split(".")[0] in PACKAGES:
            for alias in node.names:
                try:
                    mod = importlib.import_module(node.module)
                    obj = getattr(mod, alias.name, None)
                    if obj is None:
                        obj = importlib.import_module(f"{node.module}.{alias.name}")
                except Exception:
                    continue
                names[alias.asname or alias.name] = obj
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES:
                    try:
                        mod = importlib.import_module(alias.name)
                        if alias.asname is None:  # (``import a.b`` binds ``a``)
                            mod = importlib.import_module(alias.name.split(".")[0])
                        names[alias.asname or alias.name.split(".")[0]] = mod
                    except Exception:
                        continue
    return names


def _resolve(node: ast.expr, names: dict[str, Any]) -> Any:
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _resolve(node.value, names)
        return getattr(base, node.attr, None) if base is not None else None
    return None


def _no_truth(cls: Any) -> bool:
    """A class whose instances cannot mean "yes" or "no" by themselves."""
    if not inspect.isclass(cls) or cls in (bool, int, float, str, bytes, object):
        return False
    if dataclasses.is_dataclass(cls):
        return getattr(cls, "__len__", None) is None
    return getattr(cls, "__bool__", None) is None and getattr(cls, "__len__", None) is None


def _returns(fn: Any) -> Any:
    try:
        return typing.get_type_hints(fn).get("return")
    except Exception:
        return None


def always_true_asserts(source: str, names: dict[str, Any] | None = None) -> list[str]:
    """``line: call`` of each assert in ``source`` on the bare result of a call returning a
    class with no truth value (also through ``db(fn, ...)``-style helpers: any of the call's
    arguments that is such a function)."""
    tree = ast.parse(source)
    names = _imports(tree) if names is None else names
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert):
            continue
        tests = node.test.values if isinstance(node.test, ast.BoolOp) else [node.test]
        for test in tests:
            if isinstance(test, ast.Await):
                test = test.value
            if not isinstance(test, ast.Call):
                continue
            for candidate in [test.func, *test.args]:
                fn = _resolve(candidate, names)
                if callable(fn) and not inspect.isclass(fn) and _no_truth(_returns(fn)):
                    out.append(f"{node.lineno}: {ast.unparse(test)}")
                    break
    return out


def test_the_lint_finds_an_assert_on_a_report():
    from server.games import chain, seating

    src = ("async def t(db, gid):\n"
           "    assert await db(chain.verify_chain, gid)\n"
           "    assert chain.verify_chain(gid)\n"
           "    assert chain.verify_chain(gid).ok\n"
           "    assert seating.seat_holder_ok(gid, 0)\n")
    assert always_true_asserts(src, {"chain": chain, "seating": seating}) == [
        "2: db(chain.verify_chain, gid)", "3: chain.verify_chain(gid)"]


def test_no_assert_in_the_suite_is_always_true():
    found = []
    for path in sorted(TESTS.glob("*.py")):
        found += [f"{path.name}:{hit}" for hit in always_true_asserts(path.read_text())]
    assert found == []


def test_a_chain_report_refuses_to_be_a_truth_value():
    from server.games.chain import ChainReport

    report = ChainReport(False, 3, 2, "hash mismatch")
    try:
        bool(report)
    except TypeError as exc:
        assert "report.ok" in str(exc)
    else:
        raise AssertionError("a ChainReport was taken as a truth value")
