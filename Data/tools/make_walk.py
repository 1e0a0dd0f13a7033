#!/usr/bin/env python3
"""make_walk.py [OUT] [--seed S]

Writes Data/walk.nmea: a deterministic NMEA 0183 log of a ~24-minute walk at 1 Hz through a
forest plot near Lousã, Portugal (40.10 N, 8.24 W), as a u-blox-style receiver reports it:
RMC, GGA, GSA and GST per epoch, CRLF endings, correct checksums.

Realism, so that replays exercise what a real log does:
* GPS jitter: horizontal error as a first-order Gauss-Markov process (about 1.5 m, 30 s
  correlation), so positions wander rather than hop; altitude noise likewise.
* Walking speed 1.1-1.5 m/s, pauses, one long stop (a dwell), and a dash at 6 m/s that
  crosses a small plant circle between two fixes (make_regions.py puts it there).
* One outage of 35 s under dense canopy: RMC status V, GGA quality 0, GSA mode 1, no GST.
* Satellites 7-12 and HDOP 0.7-1.6 drifting slowly; GST sigmas follow the jitter size.

Only the Python standard library; the same seed gives a byte-identical file.
"""
import math
import random
import sys

LAT0, LON0 = 40.1000, -8.2400
START = (2026, 5, 1, 9, 0, 0)  # 2026-05-01 09:00:00 UTC
A = 6378137.0
F = 1 / 298.257223563
E2 = F * (2 - F)


def metres_per_degree(lat):
    phi = math.radians(lat)
    s = math.sin(phi)
    m = A * (1 - E2) / (1 - E2 * s * s) ** 1.5 * math.pi / 180
    n = A / math.sqrt(1 - E2 * s * s) * math.cos(phi) * math.pi / 180
    return m, n


# Waypoints in metres east/north of the start, with walking speed (m/s) and a pause (s) on arrival.
ROUTE = [
    (0, 0, 1.3, 0),
    (120, 40, 1.3, 0),
    (260, 60, 1.2, 20),
    (330, 180, 1.2, 0),
    (330, 320, 1.1, 150),   # a long stop: dwell
    (250, 420, 1.3, 0),
    (120, 460, 1.4, 0),
    (40, 380, 6.0, 0),      # a dash: 6 m between fixes, across the seedling's circle
    (-60, 300, 1.3, 30),
    (-140, 180, 1.2, 0),
    (-120, 60, 1.3, 0),
    (-20, -40, 1.3, 0),
    (0, 0, 1.2, 0),
]
OUTAGE = (700, 735)  # epochs without a fix


def checksum(body):
    c = 0
    for ch in body.encode("ascii"):
        c ^= ch
    return "%02X" % c


def line(body):
    return "$%s*%s\r\n" % (body, checksum(body))


def nmea_angle(value, is_lat):
    hemi = ("N" if value >= 0 else "S") if is_lat else ("E" if value >= 0 else "W")
    a = abs(value)
    d = int(a)
    m = round((a - d) * 60, 5)
    if m >= 60:
        d, m = d + 1, 0.0
    return ("%02d%08.5f" if is_lat else "%03d%08.5f") % (d, m), hemi


def civil(days):
    import datetime
    return datetime.date(1970, 1, 1) + datetime.timedelta(days=days)


def main():
    out = "Data/walk.nmea"
    seed = 7
    args = sys.argv[1:]
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    if args:
        out = args[0]
    rng = random.Random(seed)
    mlat, mlon = metres_per_degree(LAT0)

    # Truth: follow the route second by second.
    truth = []  # (east, north, speed, course)
    e, n = ROUTE[0][0], ROUTE[0][1]
    for (x, y, v, pause) in ROUTE[1:]:
        while True:
            dx, dy = x - e, y - n
            dist = math.hypot(dx, dy)
            step = v * (0.92 + 0.16 * rng.random())
            course = math.degrees(math.atan2(dx, dy)) % 360
            if dist <= step:
                e, n = x, y
                truth.append((e, n, dist, course))
                break
            e += dx / dist * step
            n += dy / dist * step
            truth.append((e, n, step, course))
        for _ in range(pause):
            truth.append((e, n, 0.0, None))

    import datetime
    t0 = datetime.datetime(*START, tzinfo=datetime.timezone.utc)
    je = jn = ja = 0.0
    sigma, tau = 1.5, 30.0
    k = math.exp(-1 / tau)
    q = sigma * math.sqrt(1 - k * k)
    sats, hdop = 10, 0.9
    alt0 = 212.0
    last_course = 0.0
    with open(out, "w", newline="") as f:
        for i, (te, tn, spd, course) in enumerate(truth):
            t = t0 + datetime.timedelta(seconds=i)
            hms = t.strftime("%H%M%S") + ".00"
            dmy = t.strftime("%d%m%y")
            je = k * je + rng.gauss(0, q)
            jn = k * jn + rng.gauss(0, q)
            ja = k * ja + rng.gauss(0, q * 1.8)
            if i % 40 == 0:
                sats = max(7, min(12, sats + rng.choice((-1, 0, 1))))
                hdop = max(0.7, min(1.6, hdop + rng.uniform(-0.1, 0.1)))
            if OUTAGE[0] <= i < OUTAGE[1]:
                f.write(line("GPRMC,%s,V,,,,,,,%s,,,N" % (hms, dmy)))
                f.write(line("GPGGA,%s,,,,,0,%02d,99.99,,,,,," % (hms, rng.randint(0, 3))))
                f.write(line("GPGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99"))
                continue
            lat = LAT0 + (tn + jn) / mlat
            lon = LON0 + (te + je) / mlon
            alt = alt0 + 0.04 * tn - 0.02 * te + ja
            la, ns = nmea_angle(lat, True)
            lo, ew = nmea_angle(lon, False)
            reported_speed = max(0.0, spd + rng.gauss(0, 0.08))
            if course is not None and spd > 0.3:
                last_course = (course + rng.gauss(0, 3)) % 360
            knots = reported_speed / 0.514444
            f.write(line("GPRMC,%s,A,%s,%s,%s,%s,%.3f,%.2f,%s,,,A" % (hms, la, ns, lo, ew, knots, last_course, dmy)))
            f.write(line("GPGGA,%s,%s,%s,%s,%s,1,%02d,%.2f,%.1f,M,50.9,M,," % (hms, la, ns, lo, ew, sats, hdop, alt)))
            prns = ",".join("%02d" % p for p in (2, 5, 7, 9, 13, 15, 18, 20, 24, 27, 29, 30)[:sats])
            prns += "," * (12 - sats)
            f.write(line("GPGSA,A,3,%s,%.2f,%.2f,%.2f" % (prns, hdop * 1.6, hdop, hdop * 1.3)))
            s_lat = sigma * hdop * (0.9 + 0.2 * rng.random())
            s_lon = sigma * hdop * (0.9 + 0.2 * rng.random())
            f.write(line("GPGST,%s,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f" % (
                hms, s_lat * 1.2, max(s_lat, s_lon) * 1.1, min(s_lat, s_lon), rng.uniform(0, 180), s_lat, s_lon, s_lat * 1.8)))
    print("wrote %s: %d epochs (%d s), outage %d-%d" % (out, len(truth), len(truth), OUTAGE[0], OUTAGE[1]), file=sys.stderr)


if __name__ == "__main__":
    main()
