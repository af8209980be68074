#!/usr/bin/env python3
"""Names every test a `swift test` run skipped or cancelled, with its reason, read from
Swift Testing's event stream (`--event-stream-output-path FILE --event-stream-version 0`:
one JSON object a line, the library's stable interface, where the console text may
change its wording). Under CI=true any such test fails the run: a machine without loop
devices or a reference tool must not pass by skipping what it could not run. A stream
that is missing, empty or without its run's end fails too: then nothing says what ran.
Usage: skipped-tests.py EVENTS   exit 1 under CI=true when a test was skipped or cancelled,
                                 exit 1 always when the stream cannot be read."""
import json
import os
import sys

SKIPPED = {"testSkipped": "skipped", "testCancelled": "cancelled", "testCaseCancelled": "cancelled"}


def entries(path):
    """(test id, what, why) for each skip or cancellation; raises ValueError on a bad stream."""
    found, ended, running = [], False, {}
    with open(path, encoding="utf-8") as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise ValueError(f"line {number} is not JSON: {error}") from None
            if record.get("kind") != "event":
                continue
            payload = record.get("payload") or {}
            kind = payload.get("kind")
            ended = ended or kind == "runEnded"
            if kind == "testStarted":
                running[payload.get("testID", "?")] = True
            elif kind == "testEnded":
                running.pop(payload.get("testID", "?"), None)
            if kind in SKIPPED:
                comments = payload.get("_comments") or []
                messages = [m.get("text", "") for m in payload.get("messages") or []]
                why = "; ".join(comments) or "; ".join(messages) or "no reason given"
                found.append((payload.get("testID", "?"), SKIPPED[kind], why))
    if not ended:
        # A hung test is the one that started and never ended: name it (its suite too).
        unfinished = f"; started and never ended: {', '.join(running)}" if running else ""
        raise ValueError(
            f"the run never ended (no runEnded event): the test process died, was stopped or was never run{unfinished}")
    return found


def main():
    try:
        found = entries(sys.argv[1])
    except (OSError, ValueError) as error:
        print(f"test: cannot tell which tests ran from {sys.argv[1]}: {error}", file=sys.stderr)
        sys.exit(1)
    if found:
        ci = os.environ.get("CI") == "true"
        print(f"test: {len(found)} test(s) skipped or cancelled{' (CI=true: a failure)' if ci else ''}:", file=sys.stderr)
        for test, what, why in found:
            print(f"  {test} {what}: {why}", file=sys.stderr)
        sys.exit(1 if ci else 0)


if __name__ == "__main__":
    main()
