#!/usr/bin/env python3
"""A receiver on a TCP port for the boot test: serves an NMEA log to whoever connects (the guest's
gpsd), LINES lines every TICK seconds, keeping its place across connections.

  feeder.py LOG PORT STATUS_FILE [LINES] [TICK]

SIGUSR1 pauses the feed and goes back 200 lines (a receiver offering again what a client that is
about to die may have missed); SIGUSR2 resumes it. STATUS_FILE holds "served total" after each
tick. Comment lines (#) are left out.
"""
import os
import signal
import socket
import sys
import time

log, port, status = sys.argv[1], int(sys.argv[2]), sys.argv[3]
per_tick = int(sys.argv[4]) if len(sys.argv) > 4 else 4
tick = float(sys.argv[5]) if len(sys.argv) > 5 else 0.008
with open(log, "rb") as f:
    lines = [l.rstrip(b"\r\n") + b"\r\n" for l in f if l.strip() and not l.startswith(b"#")]

position = 0
paused = False


def pause(*_):
    global paused, position
    paused = True
    position = max(0, position - 200)


def resume(*_):
    global paused
    paused = False


signal.signal(signal.SIGUSR1, pause)
signal.signal(signal.SIGUSR2, resume)


def report():
    tmp = status + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"{min(position, len(lines))} {len(lines)}\n")
    os.replace(tmp, status)


listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", port))
listener.listen(4)
report()
while True:
    conn, _ = listener.accept()
    try:
        while position < len(lines):
            if paused:
                time.sleep(tick)
                continue
            at = position
            conn.sendall(b"".join(lines[at:at + per_tick]))
            if position == at:  # a rewind meanwhile wins
                position = at + per_tick
            report()
            time.sleep(tick)
        time.sleep(0.5)
    except OSError:
        pass  # gpsd went away: wait for the next one
    finally:
        conn.close()
