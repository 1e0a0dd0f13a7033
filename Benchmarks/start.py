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
import argparse, json, os, socket, statistics, subprocess, sys, tempfile, time


def hwm(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
    return float("nan")


def config_text(fences, folder):
    """A config on `fences` whose socket and database are in `folder`; each path a JSON string
    (YAML reads one as it is, whatever the path holds)."""
    return (f"gpsd: {{host: 127.0.0.1, port: 1}}\nregions: {json.dumps(fences)}\n"
            f"socket: {json.dumps(folder + '/s.sock')}\ndatabase: {json.dumps(folder + '/db.sqlite')}\n")


def remove_database(db):
    """The SQLite file `db` and its WAL and shared-memory files gone: the next start is a first."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.unlink(db + suffix)


class StartFailed(Exception):
    """The daemon did not start, or did not stay up until its peak was read."""


def start(link, config, notify, settle, log=None):
    """Starts `link --config config` with NOTIFY_SOCKET=notify; returns (seconds to READY=1, peak
    RSS in MB, read `settle` seconds after it). Its standard error goes to `log` (default: beside
    the config). Raises StartFailed, with the log's end, when it exits before READY=1 or before
    the peak is read, gives no READY=1 within 300 s, or exits with an error when stopped."""
    log = log or os.path.join(os.path.dirname(config), "daemon.log")
    try:
        os.unlink(notify)
    except FileNotFoundError:
        pass
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(notify)
    s.settimeout(0.2)
    env = dict(os.environ, NOTIFY_SOCKET=notify)

    def tail():
        with open(log, errors="replace") as f:
            return f.read()[-2000:]

    with open(log, "w") as err:
        t0 = time.monotonic()
        p = subprocess.Popen([link, "--config", config], env=env, stdout=subprocess.DEVNULL, stderr=err,
                             cwd=os.path.dirname(config))
    try:
        while True:
            try:
                if b"READY=1" in s.recv(65536):
                    break
            except socket.timeout:
                pass
            if p.poll() is not None:
                raise StartFailed(f"{link} exited {p.returncode} before READY=1 (its log, {log}):\n{tail()}")
            if time.monotonic() - t0 > 300:
                raise StartFailed(f"{link}: no READY=1 within 300 s (its log, {log}):\n{tail()}")
        ready = time.monotonic() - t0
        peak = hwm(p.pid)
        if settle > 0:
            time.sleep(settle)
            peak = hwm(p.pid)
        if p.poll() is not None or peak != peak:
            raise StartFailed(f"{link} exited {p.returncode} within {settle} s of READY=1 (its log, {log}):\n{tail()}")
        p.terminate()
        if p.wait(timeout=60) != 0:
            raise StartFailed(f"{link} exited {p.returncode} when stopped by SIGTERM (its log, {log}):\n{tail()}")
        return ready, peak
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        s.close()
        try:
            os.unlink(notify)
        except FileNotFoundError:
            pass


def where(exe, fences):
    """Seconds and peak RSS (MB) of `exe where --regions fences --at 38.70,-9.14`."""
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", exe, "where", "--regions", fences, "--at", "38.70,-9.14"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t = time.monotonic() - t0
    if p.returncode != 0:
        raise StartFailed(f"{exe} where --regions {fences} exited {p.returncode}: {p.stderr.decode()[-1500:]}")
    return t, int(p.stderr.decode().split()[-1]) / 1024


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
            f.write(config_text(fences, d))
        builds.append((name, os.path.abspath(path), link, config, os.path.join(d, "notify.sock"), os.path.join(d, "db.sqlite")))
    results = {"where": []}
    for name, *_ in builds:
        results[f"{name} first"] = []
        results[f"{name} restart"] = []
    try:
        run_rounds(o, fences, builds, results)
    except StartFailed as e:
        sys.exit(f"start.py: {e}")
    base = statistics.median(t for t, _ in results["where"])
    print(f"\nmedians of {o.rounds} rounds (seconds, peak MB; × where):")
    for k, v in results.items():
        t = statistics.median(x for x, _ in v)
        m = statistics.median(x for _, x in v)
        runs = ", ".join(f"{x:.2f}" for x, _ in v)
        print(f"  {k:24} {t:6.2f} s  {m:5.0f} MB  {t / base:5.2f}×   runs: {runs}")


def run_rounds(o, fences, builds, results):
    for r in range(o.rounds):
        results["where"].append(where(builds[0][1], fences))
        for name, _, link, config, notify, db in builds:
            remove_database(db)
            results[f"{name} first"].append(start(link, config, notify, o.settle))
            results[f"{name} restart"].append(start(link, config, notify, o.settle))
        print(f"round {r + 1}: " + "; ".join(f"{k} {v[-1][0]:.2f} s {v[-1][1]:.0f} MB" for k, v in results.items()), flush=True)


if __name__ == "__main__":
    main()
