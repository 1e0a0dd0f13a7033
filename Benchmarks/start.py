#!/usr/bin/env python3
"""The daemon's start on a large regions file, against `treeline where` on the same file.

    Benchmarks/start.py FENCES.geojson NAME=TREELINE [NAME=TREELINE ...] [--rounds N] [--dir D]

Each TREELINE is a `treeline` executable (the daemon is the same file started as `treelined`:
a link to it named so is made in D). Every round runs, one after the other: `treeline where`
on FENCES (the baseline, with the first executable), then for each executable a first start on
a fresh database and a restart on that database. A start is timed from the process's start to
the `READY=1` it sends to NOTIFY_SOCKET (a socket this script binds, as systemd would), and its
peak RSS (VmHWM) is read from /proc then and, with --settle S, again S seconds later (what the
daemon does once ready counts too), just before it is stopped. Prints each round and the medians,
and each start's median as a multiple of `where`'s median.
"""
import argparse, os, socket, statistics, subprocess, sys, tempfile, time


def hwm(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
    return float("nan")


def start(link, config, notify, settle):
    try:
        os.unlink(notify)
    except FileNotFoundError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(notify)
    s.settimeout(300)
    env = dict(os.environ, NOTIFY_SOCKET=notify)
    t0 = time.monotonic()
    p = subprocess.Popen([link, "--config", config], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         cwd=os.path.dirname(config))
    try:
        while b"READY=1" not in s.recv(65536):
            pass
    except socket.timeout:
        p.kill()
        sys.exit(f"{link}: no READY=1 within 300 s: {p.stderr.read().decode()[-2000:]}")
    ready = time.monotonic() - t0
    peak = hwm(p.pid)
    if settle > 0:
        time.sleep(settle)
        peak = hwm(p.pid)
    p.terminate()
    p.wait()
    s.close()
    return ready, peak


def where(exe, fences):
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", exe, "where", "--regions", fences, "--at", "38.70,-9.14"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    return time.monotonic() - t0, int(p.stderr.decode().split()[-1]) / 1024


def main():
    a = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a.add_argument("fences")
    a.add_argument("builds", nargs="+", help="NAME=PATH of a treeline executable")
    a.add_argument("--rounds", type=int, default=5)
    a.add_argument("--dir", default=None, help="where the databases go (default: a new folder in /var/tmp)")
    a.add_argument("--settle", type=float, default=0, help="seconds after READY=1 before the peak RSS is read (0 to 60)")
    o = a.parse_args()
    if o.rounds < 1 or o.rounds > 100:
        sys.exit("--rounds must be 1 to 100")
    if not 0 <= o.settle <= 60:
        sys.exit("--settle must be 0 to 60 seconds")
    fences = os.path.abspath(o.fences)
    work = o.dir or tempfile.mkdtemp(prefix="treeline-start-", dir="/var/tmp")
    builds = []
    for b in o.builds:
        name, _, path = b.partition("=")
        if not path or not os.access(path, os.X_OK):
            sys.exit(f"{b}: give NAME=PATH of a treeline executable")
        d = os.path.join(work, name)
        os.makedirs(d, exist_ok=True)
        link = os.path.join(d, "treelined")
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(os.path.abspath(path), link)
        config = os.path.join(d, "treeline.yaml")
        with open(config, "w") as f:
            f.write(f"gpsd: {{host: 127.0.0.1, port: 1}}\nregions: {fences}\nsocket: {d}/s.sock\ndatabase: {d}/db.sqlite\n")
        builds.append((name, os.path.abspath(path), link, config, os.path.join(d, "notify.sock"), os.path.join(d, "db.sqlite")))
    results = {"where": []}
    for name, *_ in builds:
        results[f"{name} first"] = []
        results[f"{name} restart"] = []
    for r in range(o.rounds):
        results["where"].append(where(builds[0][1], fences))
        for name, _, link, config, notify, db in builds:
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.unlink(db + suffix)
            results[f"{name} first"].append(start(link, config, notify, o.settle))
            results[f"{name} restart"].append(start(link, config, notify, o.settle))
        print(f"round {r + 1}: " + "; ".join(f"{k} {v[-1][0]:.2f} s {v[-1][1]:.0f} MB" for k, v in results.items()), flush=True)
    base = statistics.median(t for t, _ in results["where"])
    print(f"\nmedians of {o.rounds} rounds (seconds, peak MB; × where):")
    for k, v in results.items():
        t = statistics.median(x for x, _ in v)
        m = statistics.median(x for _, x in v)
        runs = ", ".join(f"{x:.2f}" for x, _ in v)
        print(f"  {k:24} {t:6.2f} s  {m:5.0f} MB  {t / base:5.2f}×   runs: {runs}")


if __name__ == "__main__":
    main()
