#!/usr/bin/env python3
"""fuzz_journal.py JOURNAL...: prints the sorted "seed verdict signature" lines of campaign
journals (several journals are merged), and exits 1 if a seed appears twice. A line that is not
a JSON record (a corrupt line the campaign skipped) is left out."""
import json
import sys

seen = {}
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if r["seed"] in seen:
                print(f"seed {r['seed']} journaled twice", file=sys.stderr)
                sys.exit(1)
            seen[r["seed"]] = f"{r['seed']} {r['verdict']} {r.get('signature', '')}"
for seed in sorted(seen):
    print(seen[seed])
