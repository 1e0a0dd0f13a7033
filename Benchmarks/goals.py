#!/usr/bin/env python3
"""Every country-scale goal, for one build or several side by side, in one run.

    Benchmarks/goals.py NAME=FOLDER [NAME=FOLDER ...] [--data DIR] [--rounds N] [--core C] [--keep]

Each FOLDER is what Benchmarks/build-at.sh lays out for a commit: treeline, treelined and
treeline.deb from its package, and its release treeline-bench. NAME names the build in the
output (letters, digits, '.', '_', '-'). DIR (default /tmp/treeline-goals) holds the data, made once with Benchmarks/baselines' generators
in a venv of its own that pip fills from PyPI (numpy, shapely 2, pyproj): gen_fences.py 100000
and 10000, gen_points.py 200000, gen_nmea.py 1000000 (about 350 MB in all).

Every round runs each build in turn, the order rotated by one each round:
  - `treeline where --regions fences-100k.geojson --at 38.70,-9.14`, three times: the median
    of their times (and the peak RSS), the baseline of the start's goals;
  - the daemon's first start on those fences (a fresh database) and its restart on that
    database: time to READY=1 and peak RSS 4 s after it (Benchmarks/start.py's way);
    each of these three begins after a sync, so that no build's writes land on another's time;
  - `treeline-bench pipeline nmea-1M.log fences-10k.geojson --runs 3`: the monitor in process
    against parsing alone;
  - on one core (taskset -c C, default the last one this process may use), `treeline-bench fences fences-10k.geojson
    --points-file points-200k.csv --runs 3` (and with --store, where the build has prepared
    stores), then once a round shapely's STRtree on the same core
    (bench_geofence.py … bulk_within), the baseline of containment.
Then each package's Installed-Size, and the outputs every build gives for the same input,
compared with the first build's byte for byte: `where --points` (100,000 fences, 200,000
points), `replay` (the 1M log on 10,000 fences) and the pipeline's events.

A ratio is the median of the rounds' own ratios (each round's start against that round's
`where`; each round's load + query against that round's shapely); seconds are medians of
seconds. MB are 10^6 bytes, as the package's goal is. Every child runs with XDG_CACHE_HOME in
the work folder, so no prepared store of the user's is read, written or pushed out.

Prints the work folder (databases, logs, outputs; about 1 GB, deleted at the end unless --keep),
each round as it ends (and appends it to rounds.jsonl there), then a table of medians with every
round's figure and whether each goal is met, and one JSON line with all of it.
"""
import argparse, filecmp, json, os, re, shutil, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import start as daemon_start  # noqa: E402  (Benchmarks/start.py: READY=1 and VmHWM)

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "baselines")


def fail(message):
    sys.exit(f"goals.py: {message}")


def run(cmd, stdout=subprocess.PIPE):
    """Runs `cmd`; its standard output (or None when sent to a file). Ends the run with the
    command and the end of its standard error when it fails."""
    p = subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.decode(errors='replace')[-1500:]}")
    return p.stdout.decode() if stdout == subprocess.PIPE else None


def last_json(text, bench):
    for line in reversed(text.splitlines()):
        if line.startswith("{") and f'"bench":"{bench}"' in line:
            return json.loads(line)
    fail(f"no JSON line of treeline-bench {bench} in: {text[-800:]}")


def data(folder):
    os.makedirs(folder, exist_ok=True)
    venv = os.path.join(folder, "venv")
    py = os.path.join(venv, "bin", "python")
    check = "import numpy, pyproj, shapely; assert int(shapely.__version__.split('.')[0]) >= 2"
    if subprocess.run([py, "-c", check], capture_output=True).returncode != 0:
        print(f"making {venv} (numpy, shapely 2, pyproj from PyPI)", flush=True)
        if os.path.islink(venv):
            os.unlink(venv)
        shutil.rmtree(venv, ignore_errors=True)
        run([sys.executable, "-m", "venv", venv])
        run([os.path.join(venv, "bin", "pip"), "install", "-q", "numpy", "shapely>=2", "pyproj"])
    files = {}
    for key, gen, n, name in [("fences100k", "gen_fences.py", 100000, "fences-100k.geojson"),
                              ("fences10k", "gen_fences.py", 10000, "fences-10k.geojson"),
                              ("points", "gen_points.py", 200000, "points-200k.csv"),
                              ("nmea", "gen_nmea.py", 1000000, "nmea-1M.log")]:
        path = os.path.join(folder, name)
        if not (os.path.exists(path) and os.path.getsize(path) > 0):
            print(f"making {path}", flush=True)
            run([py, os.path.join(GEN, gen), str(n), path + ".part"])
            os.replace(path + ".part", path)
        files[key] = path
    return py, files


class Build:
    def __init__(self, spec):
        self.name, _, folder = spec.partition("=")
        if not folder or not re.fullmatch(r"[A-Za-z0-9_.-]+", self.name) or self.name in (".", ".."):
            fail(f"{spec}: give NAME=FOLDER, NAME of letters, digits, '.', '_' or '-', FOLDER made by "
                 f"Benchmarks/build-at.sh COMMIT FOLDER")
        self.folder = os.path.abspath(folder)
        for f in ("treeline", "treelined", "treeline-bench", "treeline.deb"):
            if not os.path.exists(os.path.join(self.folder, f)):
                fail(f"{self.folder} has no {f}: make it with Benchmarks/build-at.sh COMMIT {self.folder}")
        self.treeline = os.path.join(self.folder, "treeline")
        self.daemon = os.path.join(self.folder, "treelined")
        self.bench = os.path.join(self.folder, "treeline-bench")
        self.work = None
        # A build with prepared stores says so in `where --help` (--no-store); its bench takes --store.
        self.stores = "--no-store" in subprocess.run([self.treeline, "where", "--help"], capture_output=True,
                                                     text=True).stdout
        self.commit = open(os.path.join(self.folder, "commit")).read().strip()[:9] \
            if os.path.exists(os.path.join(self.folder, "commit")) else "?"


def start_pair(b, fences):
    config = os.path.join(b.work, "treeline.yaml")
    db = os.path.join(b.work, "db.sqlite")
    with open(config, "w") as f:
        f.write(daemon_start.config_text(fences, b.work))
    daemon_start.remove_database(db)
    notify = os.path.join(b.work, "notify.sock")
    os.sync()
    try:
        first = daemon_start.start(b.daemon, config, notify, 4)
        os.sync()
        restart = daemon_start.start(b.daemon, config, notify, 4)
    except daemon_start.StartFailed as e:
        fail(str(e))
    return first, restart


def where3(b, fences):
    """`where --at` three times: the median time and the largest peak RSS."""
    try:
        runs = [daemon_start.where(b.treeline, fences) for _ in range(3)]
    except daemon_start.StartFailed as e:
        fail(str(e))
    return statistics.median(t for t, _ in runs), max(m for _, m in runs)


def main():
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("builds", nargs="+", help="NAME=FOLDER, each made by Benchmarks/build-at.sh")
    a.add_argument("--data", default="/tmp/treeline-goals")
    a.add_argument("--rounds", type=int, default=5)
    a.add_argument("--core", type=int, default=None, help="the core for containment (default: the last one)")
    a.add_argument("--keep", action="store_true", help="keep the work folder's databases and outputs")
    o = a.parse_args()
    cores = sorted(os.sched_getaffinity(0))
    if o.core is None:
        o.core = cores[-1]
    if not 1 <= o.rounds <= 20:
        fail("--rounds must be 1 to 20")
    if o.core not in cores:
        fail(f"--core must be one of this process's cores: {', '.join(map(str, cores))}")
    builds = [Build(s) for s in o.builds]
    if len({b.name for b in builds}) != len(builds):
        fail("give each build its own NAME")
    py, files = data(os.path.abspath(o.data))
    work = tempfile.mkdtemp(prefix="treeline-goals-", dir="/var/tmp")
    print(f"work folder: {work}", flush=True)
    os.environ["XDG_CACHE_HOME"] = os.path.join(work, "cache")
    for b in builds:
        b.work = os.path.join(work, b.name)
        os.makedirs(b.work, mode=0o700)
    journal = open(os.path.join(work, "rounds.jsonl"), "w")
    taskset = ["taskset", "-c", str(o.core)]
    R = {b.name: {k: [] for k in ("where", "first", "restart", "pipeline", "load", "query", "store_load",
                                  "store_query")} for b in builds}
    shapely = []
    shapely_cmd = taskset + [py, os.path.join(GEN, "bench_geofence.py"), files["fences10k"], "bulk_within",
                             "--points-file", files["points"]]
    run(shapely_cmd)  # once untimed: its first run reads the files and Python's modules cold
    n = len(builds)
    for r in range(o.rounds):
        order = builds[r % n:] + builds[:r % n]
        for b in order:
            x = R[b.name]
            # Each timed step starts with nothing left to write back: a first start writes a
            # database of 100 to 350 MB, which the kernel would otherwise write out under the
            # next build's steps.
            os.sync()
            x["where"].append(where3(b, files["fences100k"]))
            first, restart = start_pair(b, files["fences100k"])
            os.sync()
            x["first"].append(first)
            x["restart"].append(restart)
            p = last_json(run([b.bench, "pipeline", files["nmea"], files["fences10k"], "--runs", "3"]), "pipeline")
            x["pipeline"].append((p["ratio"], p["parse_s"], p["events"]))
            f = last_json(run(taskset + [b.bench, "fences", files["fences10k"], "--points-file", files["points"],
                                         "--runs", "3"]), "fences")
            x["load"].append(f["load_s"])
            x["query"].append(f["query_s"])
            if b.stores:
                store = os.path.join(b.work, "store")
                os.makedirs(store, mode=0o700, exist_ok=True)
                f = last_json(run(taskset + [b.bench, "fences", files["fences10k"], "--points-file", files["points"],
                                             "--runs", "3", "--store", store]), "fences")
                x["store_load"].append(f["load_s"])
                x["store_query"].append(f["query_s"])
        s = json.loads(run(shapely_cmd).strip().splitlines()[-1])
        shapely.append(s["t_load_fences_s"] + s["t_strtree_fences_s"] + s["t_query_s"])
        journal.write(json.dumps({"round": r + 1, "order": [b.name for b in order], "shapely_s": shapely[-1],
                                  "builds": {b.name: {k: v[-1] for k, v in R[b.name].items() if v} for b in builds}}) + "\n")
        journal.flush()
        line = [f"round {r + 1}:"]
        for b in builds:
            x = R[b.name]
            line.append(f"{b.name}: where {x['where'][-1][0]:.2f} s, first {x['first'][-1][0]:.2f} s "
                        f"{x['first'][-1][1]:.0f} MB, restart {x['restart'][-1][0]:.2f} s {x['restart'][-1][1]:.0f} MB, "
                        f"pipeline {x['pipeline'][-1][0]:.3f}x (parse {x['pipeline'][-1][1]:.3f} s), containment "
                        f"{x['load'][-1]:.3f} + {x['query'][-1]:.3f} s"
                        + (f" (store {x['store_load'][-1]:.3f} + {x['store_query'][-1]:.3f} s)" if b.stores else ""))
        line.append(f"shapely {shapely[-1]:.3f} s")
        print("\n  ".join(line), flush=True)

    # The same outputs from every build.
    outs = {}
    for b in builds:
        d = os.path.join(b.work, "out")
        os.makedirs(d, exist_ok=True)
        where = [b.treeline, "where", "--regions", files["fences100k"], "--points", files["points"]]
        if b.stores:
            where.append("--no-store")
        with open(os.path.join(d, "where.txt"), "wb") as f:
            run(where, stdout=f)
        with open(os.path.join(d, "replay.txt"), "wb") as f:
            run([b.treeline, "replay", files["nmea"], "--regions", files["fences10k"]], stdout=f)
        run([b.bench, "pipeline", files["nmea"], files["fences10k"], "--runs", "1", "--events",
             os.path.join(d, "events.txt")])
        outs[b.name] = d
    same = {}
    ref = builds[0]
    for name in ("where.txt", "replay.txt", "events.txt"):
        a_ = os.path.join(outs[ref.name], name)
        lines = sum(1 for _ in open(a_, "rb"))
        verdicts = []
        for b in builds[1:]:
            b_ = os.path.join(outs[b.name], name)
            if filecmp.cmp(a_, b_, shallow=False):
                verdicts.append(f"{b.name} identical")
            else:
                with open(a_, "rb") as fa, open(b_, "rb") as fb:
                    differ = [i + 1 for i, (x, y) in enumerate(zip(fa, fb)) if x != y]
                n_b = sum(1 for _ in open(b_, "rb"))
                where_ = f"first at line {differ[0]}" if differ else f"the first {min(lines, n_b)} lines equal"
                verdicts.append(f"{b.name} differs: {n_b} lines against {lines}; {where_}; "
                                f"{len(differ)} of the lines at the same numbers differ ({b_})")
        same[name] = {"lines": lines, "bytes": os.path.getsize(a_), "verdicts": verdicts}

    med = statistics.median
    print(f"\nmedians of {o.rounds} rounds; every round's figure in brackets; a ratio is the median of the rounds' own")
    summary = {"rounds": o.rounds, "work": work, "builds": {}, "shapely_s": shapely}
    first_where = [t for t, _ in R[builds[0].name]["where"]]
    sh = med(shapely)

    def verdict(ok):
        return "met" if ok else "NOT met"

    for b in builds:
        x = R[b.name]
        wt = med(t for t, _ in x["where"])
        ft, fm = med(t for t, _ in x["first"]), med(m for _, m in x["first"])
        rt, rm = med(t for t, _ in x["restart"]), med(m for _, m in x["restart"])
        fr = med(f / w for (f, _), (w, _) in zip(x["first"], x["where"]))
        rr = med(f / w for (f, _), (w, _) in zip(x["restart"], x["where"]))
        fr0 = med(f / w for (f, _), w in zip(x["first"], first_where))
        rr0 = med(f / w for (f, _), w in zip(x["restart"], first_where))
        pr = med(v for v, _, _ in x["pipeline"])
        c1 = med(l + q for l, q in zip(x["load"], x["query"]))
        c1r = [s / (l + q) for s, l, q in zip(shapely, x["load"], x["query"])]
        size = int(run(["dpkg-deb", "-f", os.path.join(b.folder, "treeline.deb"), "Installed-Size"]).strip())
        met = {"first_start": fr <= 3, "restart": rr <= 2, "memory": max(fm, rm) <= 200, "monitor": pr <= 1.5,
               "containment_parsed": med(c1r) >= 8, "package": size * 1024 <= 80e6}
        also = f" ({fr0:.2f}x {builds[0].name}'s where)" if b is not builds[0] else ""
        also_r = f" ({rr0:.2f}x {builds[0].name}'s where)" if b is not builds[0] else ""
        rows = [
            ("where --at, 100,000 fences (median of 3)", f"{wt:.2f} s, {med(m for _, m in x['where']):.0f} MB",
             [f"{t:.2f}" for t, _ in x["where"]]),
            ("first start to READY=1", f"{ft:.2f} s; {fr:.2f}x where{also} (goal <= 3x: {verdict(met['first_start'])})",
             [f"{t:.2f}" for t, _ in x["first"]]),
            ("restart", f"{rt:.2f} s; {rr:.2f}x where{also_r} (goal <= 2x: {verdict(met['restart'])})",
             [f"{t:.2f}" for t, _ in x["restart"]]),
            ("peak RSS, first start / restart", f"{fm:.0f} / {rm:.0f} MB (goal <= 200: {verdict(met['memory'])})",
             [f"{a_:.0f}/{b_:.0f}" for (_, a_), (_, b_) in zip(x["first"], x["restart"])]),
            ("pipeline / parsing alone", f"{pr:.3f}x (goal <= 1.5x: {verdict(met['monitor'])})",
             [f"{v:.3f} ({p:.2f} s)" for v, p, _ in x["pipeline"]]),
            ("containment, one core, parsed and built",
             f"{c1:.3f} s; {med(c1r):.2f}x shapely (goal >= 8x: {verdict(met['containment_parsed'])})",
             [f"{v:.2f}" for v in c1r]),
        ]
        b_sum = {"commit": b.commit, "where_s": wt, "first_s": ft, "restart_s": rt, "first_ratio": fr,
                 "restart_ratio": rr, "first_ratio_to_first_build": fr0, "restart_ratio_to_first_build": rr0,
                 "first_mb": fm, "restart_mb": rm, "pipeline_ratio": pr, "containment_s": c1,
                 "containment_ratio": med(c1r), "installed_kib": size, "met": met,
                 "rounds": {k: v for k, v in x.items() if v}}
        if b.stores:
            c2 = med(l + q for l, q in zip(x["store_load"], x["store_query"]))
            c2r = [s / (l + q) for s, l, q in zip(shapely, x["store_load"], x["store_query"])]
            met["containment_store"] = med(c2r) >= 8
            rows.append(("containment, one core, from the store",
                         f"{c2:.3f} s; {med(c2r):.2f}x shapely parsing and building its tree "
                         f"(goal >= 8x: {verdict(met['containment_store'])})", [f"{v:.2f}" for v in c2r]))
            b_sum.update(store_containment_s=c2, store_containment_ratio=med(c2r))
        rows.append(("package, Installed-Size", f"{size:,} KiB = {size * 1024 / 1e6:.2f} MB "
                                                f"(goal <= 80 MB: {verdict(met['package'])})", []))
        print(f"\n{b.name} ({b.commit}):")
        for label, value, per in rows:
            print(f"  {label:42} {value}" + (f"  [{', '.join(per)}]" if per else ""))
        summary["builds"][b.name] = b_sum
    print(f"\nshapely, one core, load + STRtree + query: {sh:.3f} s  [{', '.join(f'{s:.3f}' for s in shapely)}]")
    print(f"\nthe same outputs, against {ref.name}:")
    for name, v in same.items():
        print(f"  {name:12} {v['lines']:,} lines, {v['bytes']:,} bytes: {'; '.join(v['verdicts']) or '(one build)'}")
    summary["outputs"] = same
    if not o.keep:
        for b in builds:
            daemon_start.remove_database(os.path.join(b.work, "db.sqlite"))
            if all("differs" not in v for o_ in same.values() for v in o_["verdicts"]):
                shutil.rmtree(os.path.join(b.work, "out"), ignore_errors=True)
            shutil.rmtree(os.path.join(b.work, "store"), ignore_errors=True)
        shutil.rmtree(os.path.join(work, "cache"), ignore_errors=True)
        print(f"\n{work} keeps the rounds (rounds.jsonl), the daemons' logs and any outputs that differ; "
              f"--keep keeps the databases and all outputs too")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
