"""The project's import graph: no cycles anywhere, each app importing only the apps
below it (`LAYERS`), inside live play each package importing only those below it
(`PLAY_LAYERS`), and `games` depending on no other app.

Read from the source with `ast`, not by importing: every `import` and `from ... import`
statement counts, at any depth (inside functions, `if TYPE_CHECKING:` blocks, `try:`), so a
cycle cannot be hidden by moving an import into a function. An import names the deepest
project module it reaches: `from tables import services` is an import of
`tables.services`, `from tables.models import Game` one of `tables.models`. Importing a
submodule runs its package's `__init__` too, but that is Python's mechanics, not a
dependency the code states, so it is not an edge (`__init__` files here hold a docstring at most or
import their own submodules).
"""

from __future__ import annotations

import ast
import itertools
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The apps from the ground up: each may import only those before it (and itself). Live
# play announces what it does (play.signals, tables.signals) and never imports the lobby,
# the history or the insights that follow it; the lobby's page shows the leaderboards
# through a template tag of insights' (insights/templatetags), not an import. The social
# layer reads play, insights and the ledger, and nothing below it imports it: people
# (profiles, friends, blocks), then chat (which hides what a player blocked), then
# moderation (which reports chat messages and vetoes, through chat's and play's signals,
# a muted player's message and a banned player's seat). Fair play (linked accounts, free
# chips for played accounts) vetoes seats and free chips the same way, through play's and
# accounts' signals, and reads the insights' reviewed decisions.
LAYERS = (
    "contract",
    "lib",
    "games",
    "accounts",
    "tables",
    "play",
    "lobby",
    "insights",
    "history",
    "people",
    "chat",
    "moderation",
    "tournaments",
    "push",
    "fairplay",
    "config",
)
APPS = LAYERS


@dataclass(frozen=True)
class Edge:
    target: str
    line: int


def project_modules(root: Path, apps: Iterable[str]) -> dict[str, Path]:
    """Every module of the apps by dotted name (a package by its own name)."""
    modules: dict[str, Path] = {}
    for app in apps:
        for path in sorted((root / app).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _deepest(name: str, modules: Mapping[str, Path]) -> str | None:
    """`name` or its nearest enclosing project module (`a.b.func` -> `a.b`)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, path: Path, modules: Mapping[str, Path]) -> list[Edge]:
    """The project modules `module` imports, with the line of each statement."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    edges: list[Edge] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        targets: list[str | None] = []
        if isinstance(node, ast.Import):
            targets = [_deepest(alias.name, modules) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                targets.append(submodule if submodule in modules else _deepest(source, modules))
        edges += [Edge(t, node.lineno) for t in targets if t is not None and t != module]
    return edges


def import_graph(root: Path, apps: Iterable[str]) -> dict[str, list[Edge]]:
    modules = project_modules(root, apps)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: Mapping[str, list[Edge]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan's
    algorithm, iterative), each as its modules in import order, the first repeated last."""
    successors = {m: sorted({e.target for e in edges}) for m, edges in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []
    for start in sorted(successors):
        if start in index:
            continue
        work = [(start, iter(successors[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(component)
    return [_a_cycle(component, successors) for component in components]


def _a_cycle(component: set[str], successors: Mapping[str, list[str]]) -> list[str]:
    """A shortest cycle through the component's first module (breadth-first)."""
    first = min(component)
    came_from: dict[str, str] = {}
    queue = [first]
    while queue:
        node = queue.pop(0)
        for child in successors[node]:
            if child == first:
                path = [node]
                while path[-1] != first:
                    path.append(came_from[path[-1]])
                return [*reversed(path), first]
            if child in component and child not in came_from:
                came_from[child] = node
                queue.append(child)
    raise AssertionError(f"no cycle in the component {sorted(component)}")  # pragma: no cover


def _describe(cycle: list[str], graph: Mapping[str, list[Edge]]) -> str:
    steps = []
    for source, target in itertools.pairwise(cycle):
        lines = sorted({e.line for e in graph[source] if e.target == target})
        steps.append(f"{source} (line {', '.join(map(str, lines))}) -> {target}")
    return "; ".join(steps)


def test_the_project_has_no_import_cycle():
    # The benchmarks and the tests too: a cycle there is as hard to follow as in an app.
    graph = import_graph(ROOT, [*APPS, "benchmarks", "tests"])
    assert graph.get("play.services.lifecycle")  # the walk saw the code
    found = [_describe(cycle, graph) for cycle in cycles(graph)]
    assert found == [], "import cycles:\n" + "\n".join(found)


def _outside_imports(package: str, allowed: set[str]) -> list[str]:
    """The imports of `package`'s modules that reach past itself, the standard library and
    `allowed` (third-party top-level names)."""
    offenders = []
    for name, path in project_modules(ROOT, [package]).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            else:
                continue  # a relative import stays inside the package
            for imported in names:
                top = imported.split(".")[0]
                if top != package and top not in sys.stdlib_module_names | allowed:
                    offenders.append(f"{name} (line {node.lineno}) imports {imported}")
    return offenders


def test_games_imports_nothing_but_itself_and_the_standard_library():
    assert _outside_imports("games", set()) == []


def test_the_contract_imports_nothing_but_itself_msgspec_and_the_standard_library():
    # Pure: the specs are generated from it (`make spec`) without Django.
    assert _outside_imports("contract", {"msgspec", "yaml"}) == []


def test_the_reference_bot_imports_only_the_rules_engine_and_its_client_libraries():
    # The bot is a client of the published protocol: it reads docs/asyncapi.yaml and
    # docs/openapi.yaml (yaml, jsonschema), never the server's code, not even `contract`;
    # `games` is the pure strategy code the coach's figures come from.
    assert (
        _outside_imports("bot", {"games", "jsonschema", "referencing", "yaml", "websockets"}) == []
    )


def test_the_cycle_check_sees_imports_inside_functions_and_relative_ones(tmp_path):
    # A package whose cycle is only visible through a function's import and a relative one.
    app = tmp_path / "app"
    (app / "sub").mkdir(parents=True)
    (app / "__init__.py").write_text("")
    (app / "sub" / "__init__.py").write_text("")
    (app / "a.py").write_text("from app.sub import b\n")
    (app / "sub" / "b.py").write_text("def later():\n    from ..c import thing\n")
    (app / "c.py").write_text("import app.a as again\nthing = 1\n")
    (app / "d.py").write_text("from app import a, c\n")  # imports into the cycle, not in it
    graph = import_graph(tmp_path, ["app"])
    assert cycles(graph) == [["app.a", "app.sub.b", "app.c", "app.a"]]
    assert _describe(cycles(graph)[0], graph) == (
        "app.a (line 1) -> app.sub.b; app.sub.b (line 2) -> app.c; app.c (line 1) -> app.a"
    )


def _layer_breaches(graph: Mapping[str, list[Edge]]) -> list[str]:
    rank = {app: i for i, app in enumerate(LAYERS)}
    breaches = []
    for source, edges in graph.items():
        source_app = source.split(".")[0]
        for edge in edges:
            target_app = edge.target.split(".")[0]
            if rank[target_app] <= rank[source_app]:
                continue
            breaches.append(f"{source} (line {edge.line}) imports {edge.target}")
    return sorted(breaches)


def test_each_app_imports_only_the_apps_below_it():
    assert _layer_breaches(import_graph(ROOT, APPS)) == []


def test_live_play_imports_neither_history_nor_insights_nor_the_lobby():
    graph = import_graph(ROOT, APPS)
    assert any(name.startswith("play.") for name in graph)
    reached = sorted(
        f"{source} (line {edge.line}) imports {edge.target}"
        for source, edges in graph.items()
        if source.split(".")[0] == "play"
        for edge in edges
        if edge.target.split(".")[0] in ("history", "insights", "lobby")
    )
    assert reached == []


def test_the_layer_check_names_an_import_that_runs_up(tmp_path):
    # play importing insights (a function's import, as a lazy one would be) is refused.
    for app, text in {
        "games": "",
        "play": "def later():\n    from insights import stats\n",
        "insights": "from play import models\n",
    }.items():
        (tmp_path / app).mkdir()
        (tmp_path / app / "__init__.py").write_text("")
        name = {"games": "rules", "play": "models", "insights": "stats"}[app]
        (tmp_path / app / f"{name}.py").write_text(text)
    graph = import_graph(tmp_path, ["games", "play", "insights"])
    assert _layer_breaches(graph) == ["play.models (line 2) imports insights.stats"]


# Live play's layers from the ground up (play/README.md): a module may import its own
# layer and those before it, never one after it. An entry names a package or a module; a
# module belongs to the layer of the longest entry that contains it.
#
# The frames come before the services because a service schedules its frames inside its
# own transaction (`play.frames.viewing.frames_on_commit`), to be sent once it commits.
# The wall clock (play.wall) is ground that every layer reads, while play.clock (the
# sweep, beat's schedule, the embedded ticker) drives services from the time as the edge
# drives them from sockets: the deadline service they call (play.services.deadlines) is
# the one a move calls first, so it is a service, not part of the clock.
PLAY_LAYERS: tuple[tuple[str, ...], ...] = (
    ("play.models", "play.signals", "play.apps", "play.migrations", "play.wall"),
    ("play.db",),
    ("play.frames",),
    ("play.services",),
    ("play.clock",),
    ("play.edge",),
    # What Django and Celery find by name: the admin, the beat task, the URLs.
    ("play.admin", "play.tasks", "play.urls"),
)


def _play_layer(module: str, layers: tuple[tuple[str, ...], ...]) -> int | None:
    """The rank of the longest entry of `layers` that is `module` or a package above it."""
    best: tuple[int, int] | None = None
    for rank, entries in enumerate(layers):
        for entry in entries:
            if (module == entry or module.startswith(entry + ".")) and (
                best is None or len(entry) > best[0]
            ):
                best = (len(entry), rank)
    return None if best is None else best[1]


def _play_breaches(
    graph: Mapping[str, list[Edge]], layers: tuple[tuple[str, ...], ...]
) -> list[str]:
    breaches = []
    for source, edges in graph.items():
        source_rank = _play_layer(source, layers)
        for edge in edges:
            target_rank = _play_layer(edge.target, layers)
            if source_rank is None or target_rank is None or target_rank <= source_rank:
                continue
            breaches.append(f"{source} (line {edge.line}) imports {edge.target}")
    return sorted(breaches)


def test_every_module_of_live_play_has_a_layer():
    graph = import_graph(ROOT, ["play"])
    assert "play.services.moves" in graph  # the walk saw the code
    # The package itself (an empty __init__) is in no layer.
    unplaced = sorted(m for m in graph if m != "play" and _play_layer(m, PLAY_LAYERS) is None)
    assert unplaced == []


def test_each_layer_of_live_play_imports_only_the_layers_below_it():
    assert _play_breaches(import_graph(ROOT, ["play"]), PLAY_LAYERS) == []


def test_the_play_layer_check_names_an_import_that_runs_down_to_up(tmp_path):
    # The store importing a service (in a function, as a lazy import would) is refused,
    # and a module is placed by the longest entry that holds it.
    files = {
        "__init__.py": "",
        "db/__init__.py": "",
        "db/store.py": (
            "from play import wall\ndef later():\n    from play.services import moves\n"
        ),
        "wall.py": "",
        "clock/__init__.py": "",
        "clock/sweep.py": "from play.services import moves\n",
        "services/__init__.py": "",
        "services/moves.py": "from play.db import store\n",
    }
    for name, text in files.items():
        (tmp_path / "play" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "play" / name).write_text(text)
    layers = (("play.wall",), ("play.db",), ("play.services",), ("play.clock",))
    graph = import_graph(tmp_path, ["play"])
    assert _play_breaches(graph, layers) == ["play.db.store (line 3) imports play.services.moves"]
