// Numbers and times as the views print them.

/** 183700 → "2 d 3 h"; 4000 → "1 h 6 min"; 75 → "1 min 15 s". Two units at most. */
export function duration(seconds) {
  let s = Math.max(0, Math.round(seconds));
  const units = [["d", 86400], ["h", 3600], ["min", 60], ["s", 1]];
  const parts = [];
  for (const [name, size] of units) {
    if (parts.length === 2) break;
    const n = Math.floor(s / size);
    s -= n * size;
    if (n > 0 || parts.length > 0) parts.push(`${n} ${name}`);
  }
  // "2 d 0 h" reads worse than "2 d".
  if (parts.length === 2 && parts[1].startsWith("0 ")) parts.pop();
  return parts.length ? parts.join(" ") : "0 s";
}

/** Metres: "2.5 m", "8 m", "1.2 km". */
export function metres(m) {
  const a = Math.abs(m);
  if (a >= 10000) return `${Math.round(a / 1000)} km`;
  if (a >= 1000) return `${(a / 1000).toFixed(1)} km`;
  if (a < 10) return `${Number(a.toFixed(1))} m`;
  return `${Math.round(a)} m`;
}

/** An ISO time as local "09:13:39" (with the date when it is not today). */
export function clock(iso) {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return iso || "";
  const time = t.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
  if (t.toDateString() === new Date().toDateString()) return time;
  return `${t.toLocaleDateString([], { month: "short", day: "numeric" })} ${time}`;
}

export function days(n) {
  return n === 1 ? "1 day" : `${n} days`;
}

export function coordinates(lat, lon) {
  return `${lat.toFixed(6)}, ${lon.toFixed(6)}`;
}
