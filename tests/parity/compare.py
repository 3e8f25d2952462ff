"""The parity suite's judge for the C and Python runs: their results, case by case, against
``expected.jsonl`` (which the Rust run writes and checks; see ``cases.tsv``).

A result is compared after dropping null fields and the run-dependent parts each case names.
A failure is compared by its category; C reports a ``memcore_status`` name, mapped here.

    python3 tests/parity/compare.py RESULTS.jsonl     (one line per case, as test_parity.c
                                                       prints: a result, or {"status": NAME})
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: The category of each C status that reports a failure of the call itself.
STATUS_CATEGORY = {
    "INVALID_JSON": "VALIDATION",
    "INVALID_ARGUMENT": "VALIDATION",
    "NOT_FOUND": "NOT_FOUND",
    "CONFLICT": "CONFLICT",
    "IO": "STORAGE",
    "CORRUPTED": "PARSE",
    "INDEX": "INDEX",
    "EMBEDDING": "EMBEDDING",
    "UNSUPPORTED": "UNSUPPORTED",
    "CALLBACK": "CALLBACK",
}


def cases() -> list[tuple[str, dict[str, Any], list[str]]]:
    """Every case of cases.tsv: operation, request, ignored JSON pointers."""
    out = []
    for line in (HERE / "cases.tsv").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        ignore = parts[2].split(",") if len(parts) > 2 else []
        out.append((parts[0], json.loads(parts[1]), ignore))
    return out


def expected() -> list[dict[str, Any]]:
    """The expected outcome of each case, in order."""
    lines = (HERE / "expected.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def normalized(value: Any, ignore: list[str]) -> Any:
    """`value` without null fields and without the parts at the `ignore` JSON pointers."""
    for pointer in ignore:
        parent_path, _, key = pointer.rpartition("/")
        parent = value
        for step in [p for p in parent_path.split("/") if p]:
            if isinstance(parent, dict):
                parent = parent.get(step)
            elif isinstance(parent, list) and step.isdigit() and int(step) < len(parent):
                parent = parent[int(step)]
            else:
                parent = None
        if isinstance(parent, dict):
            parent.pop(key, None)
    return _strip_nulls(value)


def _strip_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_strip_nulls(v) for v in value]
    return value


def judge(outcomes: list[dict[str, Any]]) -> list[str]:
    """What differs between `outcomes` (one per case: {"result": ...} or {"error":
    CATEGORY} or {"status": C_STATUS}) and the expected ones; empty when they agree."""
    problems = []
    want_all = expected()
    all_cases = cases()
    if len(outcomes) != len(all_cases):
        problems.append(f"{len(outcomes)} outcomes for {len(all_cases)} cases")
    for i, ((operation, request, ignore), got, want) in enumerate(
        zip(all_cases, outcomes, want_all), start=1
    ):
        if "status" in got:
            got = {"error": STATUS_CATEGORY.get(got["status"], got["status"])}
        if "result" in got:
            got = {"result": normalized(got["result"], ignore)}
        want = {k: v for k, v in want.items() if k != "operation"}
        if got != want:
            problems.append(
                f"case {i} ({operation} {json.dumps(request)[:80]}):\n"
                f"  got      {json.dumps(got, sort_keys=True)[:600]}\n"
                f"  expected {json.dumps(want, sort_keys=True)[:600]}"
            )
    return problems


def main() -> int:
    results = Path(sys.argv[1]).read_text(encoding="utf-8").splitlines()
    outcomes = []
    for line in results:
        value = json.loads(line)
        is_status = isinstance(value, dict) and set(value) == {"status"}
        outcomes.append(value if is_status else {"result": value})
    problems = judge(outcomes)
    for problem in problems:
        print(problem)
    print(f"parity: {len(outcomes) - len(problems)} of {len(cases())} cases agree")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
