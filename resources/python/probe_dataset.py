# -*- coding: utf-8 -*-
"""AgentSwarm Desktop's dataset test: imports a dataset collector file and reports what it returns.

Usage: probe_dataset.py <collector file>

The collector's folder goes first on sys.path (so its own imports work), then
`get_training_dataset_item_list()` is called. The result is ONE stdout line the job runner reads:
    AGENTSWARM_RESULT {"reward": null, "count": N, "items": [the first 5, JSON-safe]}
"""
import importlib.util
import json
import os
import sys
import traceback

RESULT_PREFIX = "AGENTSWARM_RESULT"
FIRST_ITEMS = 5
FUNCTION = "get_training_dataset_item_list"


def json_safe(value, depth=0):
    """The value as plain JSON types (what json.dumps cannot write becomes its repr, long text is cut)."""
    if depth > 6:
        return repr(value)[:200]
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else repr(value)
    if isinstance(value, str):
        return value if len(value) <= 2000 else value[:2000] + "…"
    if isinstance(value, dict):
        return {str(k): json_safe(v, depth + 1) for k, v in list(value.items())[:50]}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_safe(v, depth + 1) for v in list(value)[:50]]
    for attr in ("model_dump", "dict", "_asdict"):
        method = getattr(value, attr, None)
        if callable(method):
            try:
                return json_safe(method(), depth + 1)
            except Exception:
                break
    return repr(value)[:200]


def fail(message):
    print(f"probe_dataset: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    if len(sys.argv) != 2:
        fail("usage: probe_dataset.py <collector file>")
    path = os.path.abspath(sys.argv[1])
    if not os.path.isfile(path):
        fail(f"the collector file {path} does not exist")
    folder = os.path.dirname(path)
    sys.path.insert(0, folder)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        fail(f"{path} cannot be imported as a Python module (is it a .py file?)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as e:  # a collector that exits or fails on import: say which
        traceback.print_exc()
        fail(f"importing {path} failed ({type(e).__name__}: {e}); fix the error above")
    function = getattr(module, FUNCTION, None)
    if not callable(function):
        fail(f"{path} has no function {FUNCTION}(): define it to return the list of training items (string ids or dicts)")
    try:
        items = function()
    except BaseException as e:
        traceback.print_exc()
        fail(f"{FUNCTION}() raised {type(e).__name__}: {e}; fix the error above")
    if isinstance(items, (str, bytes, dict)) or not hasattr(items, "__iter__"):
        fail(f"{FUNCTION}() returned a {type(items).__name__}; it must return a list of items (string ids or dicts)")
    items = list(items)
    print(f"{FUNCTION}() returned {len(items)} items", file=sys.stderr)
    result = {"reward": None, "count": len(items), "items": [json_safe(item) for item in items[:FIRST_ITEMS]]}
    print(RESULT_PREFIX, json.dumps(result, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
