# -*- coding: utf-8 -*-
"""AgentSwarm Desktop's dataset test: imports a dataset collector file and reports what it returns.

    python probe_dataset.py /path/to/get_training_dataset_item_list.py

Calls get_training_dataset_item_list() and prints, as the job runner's result line,
    AGENTSWARM_RESULT {"reward": null, "count": <n>, "items": [<the first items>], "item_ids": [...]}
A collector that fails, returns something that is not a list, or returns items without usable ids exits
with an error that says so (the app shows it with the traceback).
"""
import importlib.util
import json
import os
import sys

RESULT_PREFIX = "AGENTSWARM_RESULT "
FIRST = 5
FUNCTION = "get_training_dataset_item_list"


def item_id_of(item, index):
    """The id agent_roll.py gives an item: a string is its own id; a dict's "task_id", else "id", else its position."""
    if isinstance(item, dict):
        for key in ("task_id", "id"):
            if item.get(key) not in (None, ""):
                return str(item[key])
        return str(index)
    return str(item)


def json_safe(value):
    """The item as the app can show it: JSON as it is, anything else as its repr."""
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return repr(value)


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: probe_dataset.py COLLECTOR_FILE")
    path = os.path.abspath(sys.argv[1])
    if not os.path.isfile(path):
        raise SystemExit(f"The dataset collector {path} does not exist.")
    # Its own folder first, as when it is run as a script: it may import files next to it.
    sys.path.insert(0, os.path.dirname(path))
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    collect = getattr(module, FUNCTION, None)
    if not callable(collect):
        raise SystemExit(f"{path} has no function {FUNCTION}(): define it to return the list of training items.")
    items = collect()
    if isinstance(items, (str, bytes, dict)) or not hasattr(items, "__iter__"):
        raise SystemExit(f"{FUNCTION}() returned a {type(items).__name__}, not a list of items.")
    items = list(items)
    ids = [item_id_of(item, index) for index, item in enumerate(items)]
    duplicates = sorted({i for i in ids if ids.count(i) > 1}) if len(ids) <= 10_000 else []
    if duplicates:
        print(f"warning: these item ids appear more than once: {', '.join(duplicates[:10])}", file=sys.stderr)
    print(f"{len(items)} items; the first: {[json_safe(i) for i in items[:FIRST]]!r}")
    result = {"reward": None, "count": len(items), "items": [json_safe(i) for i in items[:FIRST]], "item_ids": ids[:50]}
    print(RESULT_PREFIX + json.dumps(result, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    main()
