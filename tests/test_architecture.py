"""The shape of the code, checked from its text: no import cycle among the modules of core/,
server/ and client_kivy/ (module-level and function-local imports alike); one direction
between the apps (leagues depends on games, never the other way) and between the layers
(the event store imports nothing of the sockets and threads that listen to it); no module
using another's private names; and one writer of the event log
(:mod:`server.games.append`)."""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "server", "client_kivy")
STORE = "server.games.append"
"""The one writer of the event log."""
STORE_MODULES = tuple(f"server.games.{m}" for m in (
    "chain", "cache", "listeners", "append", "corrections", "creating", "seating", "reading"))
"""The event store, by concern (docs/protocol.md, "Storage")."""
LISTENING_LAYER = tuple(f"server.games.{m}" for m in (
    "shards", "dbpool", "hub", "frames", "consumers", "routing", "runtime", "bots", "botworker",
    "clocks", "loopsubmit", "tables", "views"))
"""What runs around the store and hears of its commits (:mod:`server.games.listeners`)."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue  # (Django's migrations import nothing of the code's modules)
            found[_module_name(path)] = path
    return found


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute module a ``from`` import at ``level`` dots of ``module`` names."""
    if level == 0:
        return name or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([name] if name else [])])


def imports_of(module: str, path: Path, known: set[str]) -> dict[str, int]:
    """{imported module of the project: line of its first import} for every ``import`` and
    ``from ... import`` in the file, at any depth (functions, methods, ``if`` blocks)."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    out: dict[str, int] = {}

    def add(target: str, line: int) -> None:
        # ``import a.b.c`` imports a.b.c (its packages' __init__ are not edges: they are
        # run first by Python, but a package importing its own submodules is no cycle).
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target and target != module:
            out.setdefault(target, line)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node.level, node.module)
            for alias in node.names:
                sub = f"{base}.{alias.name}" if base else alias.name
                add(sub if sub in known else base, node.lineno)
    return out


def import_graph() -> dict[str, dict[str, int]]:
    modules = _modules()
    known = set(modules)
    return {m: imports_of(m, p, known) for m, p in modules.items()}


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each as one
    cycle through its modules, smallest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    comps: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return [_one_cycle(graph, comp) for comp in sorted(comps, key=len)]


def _one_cycle(graph: dict[str, dict[str, int]], comp: list[str]) -> list[str]:
    """A shortest import path from the component's first module back to itself."""
    start, members = comp[0], set(comp)
    paths = {start: [start]}
    todo = [start]
    while todo:
        nxt = []
        for v in todo:
            for w in sorted(graph[v]):
                if w == start:
                    return [*paths[v], start]
                if w in members and w not in paths:
                    paths[w] = [*paths[v], w]
                    nxt.append(w)
        todo = nxt
    return comp


def _describe(graph: dict[str, dict[str, int]], cycle: list[str]) -> str:
    return " -> ".join(
        f"{a} (line {graph[a][b]})" for a, b in itertools.pairwise(cycle)
    ) + f" -> {cycle[-1]}"


def test_the_import_graph_is_read_with_function_local_imports() -> None:
    graph = import_graph()
    # (the checker sees the imports it must: a function-local one, relative ones)
    assert "server.games.hub" in graph["server.games.tables"]  # (inside _revoke_sockets)
    assert "server.games.append" in graph["server.games.clocks"]
    assert "core.api" in graph["core.teeko"]
    assert len(graph) > 50


def test_cycles_are_found_and_named() -> None:
    graph = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}}
    found = cycles(graph)
    assert found == [["a", "b", "c", "a"]]
    assert _describe(graph, found[0]) == "a (line 1) -> b (line 2) -> c (line 3) -> a"


def test_no_import_cycle_among_the_project_modules() -> None:
    graph = import_graph()
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(_describe(graph, c) for c in found)


# The SQL and ORM writes of the event table: an INSERT statement's text, or Django's.
_EVENT_WRITE = re.compile(
    r"INSERT\s+INTO\s+games_event\b|\bEvent\.objects\.(create|bulk_create|get_or_create"
    r"|update_or_create)\b|\bEvent\(\s*game|\b_INSERT_(HEAD|ROW|ROW_AT)\b",
    re.IGNORECASE,
)


def test_only_the_store_writes_events() -> None:
    writers = []
    for module, path in _modules().items():
        text = path.read_text()
        for m in _EVENT_WRITE.finditer(text):
            if module != STORE:
                line = text.count("\n", 0, m.start()) + 1
                writers.append(f"{path.relative_to(ROOT)}:{line}: {m.group(0)}")
    assert not writers, "event-log writes outside the store:\n" + "\n".join(writers)
    store_text = _modules()[STORE].read_text()
    assert len(re.findall(r"INSERT\s+INTO\s+games_event\b", store_text)) == 1
    # ... and builds its statements in one function, whoever appends (one SQL text).
    builders = sorted(
        node.name
        for node in ast.walk(ast.parse(store_text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and any(isinstance(n, ast.Name) and n.id == "_INSERT_HEAD" for n in ast.walk(node))
    )
    assert builders == ["_statements"], builders


def test_the_event_write_pattern_finds_writes() -> None:
    for text in ('cur.execute("INSERT INTO games_event (game_id) VALUES (1)")',
                 "Event.objects.create(game=g, seq=1)", "Event.objects.bulk_create(rows)",
                 "insert into  games_event values",
                 "cur.execute(store._INSERT_HEAD + rows, params)"):
        assert _EVENT_WRITE.search(text), text
    for text in ("SELECT seq FROM games_event", "Seat.objects.bulk_create(rows)",
                 "INSERT INTO games_eventx"):
        assert not _EVENT_WRITE.search(text), text


def _reach(graph: dict[str, dict[str, int]], starts: tuple[str, ...]) -> dict[str, list[str]]:
    """{module reached: an import path to it} from ``starts``, through any depth."""
    paths = {s: [s] for s in starts}
    todo = list(starts)
    while todo:
        v = todo.pop(0)
        for w in sorted(graph.get(v, {})):
            if w not in paths:
                paths[w] = [*paths[v], w]
                todo.append(w)
    return paths


def _imports_across(graph: dict[str, dict[str, int]], frm: str, to: str) -> list[str]:
    """Every import of a module under ``to`` by a module under ``frm`` (file and line)."""
    return [f"{a} imports {b} (line {line})" for a, out in sorted(graph.items())
            if a == frm or a.startswith(frm + ".")
            for b, line in sorted(out.items()) if b == to or b.startswith(to + ".")]


def test_the_apps_depend_one_way_leagues_on_games() -> None:
    graph = import_graph()
    assert _imports_across(graph, "server.leagues", "server.games")  # (the checker sees those)
    found = _imports_across(graph, "server.games", "server.leagues")
    assert not found, ("the games app imports the leagues app (ask through server.games.hooks, "
                       "tell through server.games.listeners):\n" + "\n".join(found))


def test_the_one_way_check_finds_an_import_against_it() -> None:
    graph = {"server.games.x": {"server.leagues.models": 3}, "server.leagues.y": {}}
    assert _imports_across(graph, "server.games", "server.leagues") == [
        "server.games.x imports server.leagues.models (line 3)"]


def test_the_store_imports_nothing_of_what_listens_to_it() -> None:
    graph = import_graph()
    assert set(STORE_MODULES) <= set(graph)
    reached = _reach(graph, STORE_MODULES)
    assert "server.games.models" in reached  # (the checker follows the store's imports)
    found = [" -> ".join(reached[m]) for m in LISTENING_LAYER if m in reached]
    assert not found, "the store reaches the layer that listens to it:\n" + "\n".join(found)


# A module's private names (``_x``, not ``__x__``) are its own. Known exceptions, each being
# fixed by another change (remove the entry with the fix):
PRIVATE_USE_ALLOWED: set[tuple[str, str]] = set()
"""(module, name) pairs allowed to use another module's private name: none."""


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_uses(module: str, tree: ast.Module, is_package: bool,
                 known: set[str]) -> list[tuple[int, str]]:
    """(line, ``other.module._name``) for each private name of another of our modules that
    ``module`` uses: ``from other import _name``, or ``other._name`` where ``other`` is a name
    the module bound to one of our modules by an import (``import a.b`` binds ``a``; the
    attribute chain ``a.b._x`` is followed through the known modules)."""
    ours = {m.split(".")[0] for m in known}
    bound: dict[str, str] = {}
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in ours:
                    bound[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node.level, node.module)
            if base.split(".")[0] not in ours:
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in known:
                    bound[alias.asname or alias.name] = sub
                elif _private(alias.name) and base != module:
                    found.append((node.lineno, sub))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            chain: list[str] = []
            value: ast.expr = node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in bound:
                target = ".".join([bound[value.id], *reversed(chain)])
                if target in known and target != module:
                    found.append((node.lineno, f"{target}.{node.attr}"))
    return sorted(found)


def test_private_names_are_found() -> None:
    known = {"server.games.store", "server.games.views", "server.games", "server.games.me",
             "core", "core.api"}
    src = ("import core.api\n"
           "from server.games import store\n"
           "from server.games.views import _seat_label, outcome_text\n"
           "from . import views as v\n"
           "store._notify_seats(1)\n"
           "store.notify_seats(1)\n"
           "core.api._hidden\n"
           "core.api.__name__\n"
           "v._x\n"
           "_own\n"
           "seats._not_a_module\n")
    assert private_uses("server.games.me", ast.parse(src), False, known) == [
        (3, "server.games.views._seat_label"), (5, "server.games.store._notify_seats"),
        (7, "core.api._hidden"), (9, "server.games.views._x")]


def test_no_module_uses_another_modules_private_names() -> None:
    modules = _modules()
    known = set(modules)
    found, allowed = [], set()
    for module, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        for line, name in private_uses(module, tree, path.name == "__init__.py", known):
            if (module, name) in PRIVATE_USE_ALLOWED:
                allowed.add((module, name))
            else:
                found.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert not found, "private names of another module:\n" + "\n".join(found)
    assert allowed == PRIVATE_USE_ALLOWED, ("fixed: remove from PRIVATE_USE_ALLOWED",
                                            PRIVATE_USE_ALLOWED - allowed)
