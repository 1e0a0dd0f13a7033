#!/usr/bin/env python3
"""compare.py SUBSCRIBED EXPECTED [REGIONS]: the EVENT lines a subscriber got against `treeline replay`'s.

Passes when the subscriber (`treeline subscribe --since 0 --base-regions`) got, first, the
`base_layer` record (seq 1) that announced REGIONS (the regions file the daemon started with) and
the `region_added` of each of its features that it stands for (seq 1, parts in increasing order),
in the file's order; then EVENT lines of seq 2…N, each once and in order, each equal to replay's
event of the same rank: every field but `class`, `seq` and `received_ns` equal, numbers
allowed to differ by one unit in their last printed digit (gpsd parses the NMEA coordinates with
its own arithmetic, so a distance on a rounding tie may print 1.16 live and 1.17 replayed).
Prints the first difference otherwise, and exits 1.
"""
import json
import sys


def load(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                out.append(json.loads(line, parse_float=str, parse_int=str))
    return out


def same(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, str) and isinstance(b, str) and a != b:
        try:
            x, y = float(a), float(b)
        except ValueError:
            return False
        decimals = max(len(s.split(".")[1]) if "." in s else 0 for s in (a, b))
        return abs(x - y) <= 10 ** -decimals * 1.0001
    return a == b


got = load(sys.argv[1])
expected = load(sys.argv[2])
regions = []
if len(sys.argv) > 3:
    with open(sys.argv[3]) as f:
        regions = [feature["properties"]["id"] for feature in json.load(f)["features"]]
events = [e for e in got if e.get("class") == "EVENT"]
others = [e for e in got if e.get("class") != "EVENT"]
if others:
    print(f"compare: {len(others)} lines that are not events, e.g. {others[0]}")
head = events[:1 + len(regions)]
record = head[0] if head else {}
if record.get("type") != "base_layer" or record.get("seq") != "1" or record.get("regions") != str(len(regions)) or record.get("added") != str(len(regions)):
    print(f"compare: the first event is not the base_layer record (seq 1) of the {len(regions)} regions: {record}")
    sys.exit(1)
announced = [(e.get("type"), e.get("region"), e.get("seq"), e.get("layer")) for e in head[1:]]
if announced != [("region_added", r, "1", "base") for r in regions]:
    print(f"compare: the {len(regions)} events after it are not the announcements of {regions}: {announced}")
    sys.exit(1)
parts = [int(e.get("part", "0")) for e in head[1:]]
if parts != sorted(set(parts)) or (parts and parts[0] < 1):
    print(f"compare: the announcements' parts are not increasing: {parts}")
    sys.exit(1)
events = events[1 + len(regions):]
seqs = [int(e["seq"]) for e in events]
total = 1 + len(expected)
if seqs != list(range(2, total + 1)):
    dup = len(seqs) - len(set(seqs))
    print(f"compare: seqs are not 2…{total}: {len(seqs)} events, {dup} repeated, first {seqs[:5]}, last {seqs[-5:]}")
    sys.exit(1)
for i, (e, x) in enumerate(zip(events, expected)):
    e = {k: v for k, v in e.items() if k not in ("class", "seq", "received_ns")}
    if not same(e, x):
        print(f"compare: event {i + 1} differs:\n  subscribed {json.dumps(e)}\n  replayed   {json.dumps(x)}")
        sys.exit(1)
print(f"compare: the base_layer record, its {len(regions)} regions' announcements and {len(events)} events, seq 1…{total}, each once, each event equal to replay's")
