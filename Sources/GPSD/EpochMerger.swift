import Geo

/// Gives each TPV the error estimate of the GST that follows it, as replaying the same NMEA does.
///
/// gpsd reports an epoch's position (TPV) and its pseudorange error statistics (GST) as two
/// reports, GST second. A replay computes the fix's horizontal error from GST (√(σlat²+σlon²));
/// gpsd's own `eph` is a DOP model at 95 % and much larger, so using it would make live events
/// differ from replayed ones. A TPV therefore waits for the GST of its time, and goes out without
/// one at the next TPV or when the reader has heard nothing for a moment (`flush`). DOPs and
/// satellites come from the last SKY. Pure logic.
struct EpochMerger {
    private var pending: Fix?
    private var hdop: Double?, pdop: Double?, vdop: Double?, satellitesUsed: Int?

    /// Takes one report; returns the fixes it completes, in order.
    mutating func take(_ report: GPSDReport) -> [Fix] {
        switch report {
        case .position(var fix):
            let done = flush()
            fix.hdop = hdop
            fix.pdop = pdop
            fix.vdop = vdop
            fix.satellitesUsed = satellitesUsed
            pending = fix
            return done.map { [$0] } ?? []
        case let .errors(time, latitude, longitude):
            guard var fix = pending, fix.time != nil, fix.time == time,
                  latitude.isFinite, longitude.isFinite else { return [] }
            fix.horizontalError = (latitude * latitude + longitude * longitude).squareRoot()
            pending = nil
            return [fix]
        case let .sky(h, p, v, used):
            (hdop, pdop, vdop, satellitesUsed) = (h, p, v, used)
            if pending != nil {
                pending?.hdop = h
                pending?.pdop = p
                pending?.vdop = v
                pending?.satellitesUsed = used
            }
            return []
        case .device, .other:
            return []
        }
    }

    /// The fix still waiting for its GST, if any: it goes out as it is.
    mutating func flush() -> Fix? {
        defer { pending = nil }
        return pending
    }
}

/// Delays between attempts to reach gpsd: doubling from 0.1 s, at most `cap` (10 s). Pure.
struct Backoff {
    let first: Double
    let cap: Double
    private var next: Double

    init(first: Double = 0.1, cap: Double = 10) {
        self.first = first
        self.cap = cap
        next = first
    }

    /// The delay before the next attempt.
    mutating func delay() -> Double {
        defer { next = min(cap, next * 2) }
        return next
    }

    /// After a connection that delivered reports: start again from the first delay.
    mutating func reset() { next = first }
}
