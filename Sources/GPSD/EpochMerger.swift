import Geo

/// Makes one fix per epoch out of gpsd's reports, as replaying the same NMEA does.
///
/// - **Error estimate.** A replay computes the fix's horizontal error from GST
///   (√(σlat²+σlon²)); gpsd's own `eph` is a DOP model at 95 % and much larger, so using it would
///   make live margins, and events, differ from replayed ones. gpsd sends an epoch's GST before
///   its TPV for some receivers (u-blox F9P) and after it for others: the last GST is kept for a
///   TPV of its time, and a pending TPV takes a GST of its time that follows.
/// - **One fix per epoch.** While gpsd learns which sentence ends a cycle it reports an epoch
///   again and again (seven times for the F9P's first): a TPV of the pending fix's time replaces
///   it, and one of a time already sent out is dropped.
/// - **DOPs and satellites** come from the SKY of the fix's epoch, else from the last SKY.
///
/// A fix goes out when its GST has come, at the next TPV, or once it has waited `patience`
/// seconds since its TPV came (`due(at:)`), whatever else gpsd says or does not say meanwhile: a
/// moment when the stream has shown no GST, longer once it has, so that a stalled moment (a busy
/// machine) does not send a fix without the error estimate a replay would give it. The last fix
/// before gpsd falls silent goes out the same way, and `flush` hands it over at shutdown. Pure
/// logic: the caller gives the time.
///
/// - **A stream that adds nothing after its TPV** (no GST, no SKY of the epoch, no repeat: a
///   consumer receiver) sends each fix at its TPV once `quietEpochsToTrust` epochs with a position
///   in a row have shown it (epochs without one do not count: no receiver sends GST before a fix), instead of a quarter of a second or an epoch later. Anything that comes for an
///   epoch after its TPV, or any GST, ends that until the stream has shown it again.
struct EpochMerger {
    private var pending: Fix?
    /// When the pending fix's TPV came (the caller's monotonic seconds).
    private var pendingSince = 0.0
    /// The time of the last fix sent out.
    private var sent: UTCTime?
    private var lastGST: (time: UTCTime, error: Double)?
    private var sky: (time: UTCTime?, hdop: Double?, pdop: Double?, vdop: Double?, satellitesUsed: Int?)?
    /// Epochs in a row to which nothing came after their TPV, while the stream has shown no GST.
    private var quietEpochs = 0
    /// Whether something came for the pending fix after its TPV.
    private var pendingTouched = false

    /// Quiet epochs in a row after which a fix goes out at its TPV (gpsd's first epochs, while it
    /// learns the receiver's cycle, are not quiet).
    static let quietEpochsToTrust = 3

    /// Whether a fix goes out at its TPV.
    var sendsAtTPV: Bool { lastGST == nil && quietEpochs >= Self.quietEpochsToTrust }

    /// Takes one report; returns the fixes it completes, in order.
    mutating func take(_ report: GPSDReport, at now: Double = 0) -> [Fix] {
        switch report {
        case .position(var fix):
            if let t = fix.time, t == sent {  // an epoch already out
                quietEpochs = 0
                return []
            }
            var done: [Fix] = []
            if let p = pending, p.time == nil || p.time != fix.time, let f = flush() { done.append(f) }
            if pending != nil { pendingTouched = true }  // the same epoch again
            // The last SKY, unless it belongs to a later epoch than this one.
            if let sky, sky.time.map({ st in fix.time.map { st <= $0 } ?? true }) ?? true {
                (fix.hdop, fix.pdop, fix.vdop, fix.satellitesUsed) = (sky.hdop, sky.pdop, sky.vdop, sky.satellitesUsed)
            }
            if let gst = lastGST, gst.time == fix.time {
                fix.horizontalError = gst.error
                pending = nil
                sent = fix.time
                return done + [fix]
            }
            if pending?.time == nil || pending?.time != fix.time {
                pendingSince = now
                pendingTouched = false
            }
            pending = fix
            if sendsAtTPV, let f = flush() { done.append(f) }
            return done
        case let .errors(time, latitude, longitude):
            guard let time, latitude.isFinite, longitude.isFinite else { return [] }
            let error = (latitude * latitude + longitude * longitude).squareRoot()
            lastGST = (time, error)
            quietEpochs = 0
            guard var fix = pending, fix.time == time else { return [] }
            fix.horizontalError = error
            pending = nil
            sent = fix.time
            return [fix]
        case let .sky(time, h, p, v, used):
            sky = (time, h, p, v, used)
            if var fix = pending, time == nil || time == fix.time {
                (fix.hdop, fix.pdop, fix.vdop, fix.satellitesUsed) = (h, p, v, used)
                pending = fix
                pendingTouched = true
            }
            // A SKY of an epoch already out came too late for it; one without a time cannot be
            // placed, so it is never trusted to come before the TPV.
            if time == nil || time == sent { quietEpochs = 0 }
            return []
        case .device, .other:
            return []
        }
    }

    /// Seconds of silence after which a fix waiting for its GST goes out without it: 0.25 s
    /// while this stream has shown no GST (a receiver without one loses no time), 1.5 s once it
    /// has (the GST of an epoch follows its TPV within milliseconds unless something stalls;
    /// at 1 Hz the next TPV sends the fix on before that anyway).
    var patience: Double { lastGST == nil ? 0.25 : 1.5 }

    /// The pending fix once it has waited its patience at `now`, else nil.
    mutating func due(at now: Double) -> Fix? {
        guard pending != nil, now - pendingSince >= patience else { return nil }
        return flush()
    }

    /// Seconds until the pending fix is due (0 when it is), nil with none pending.
    func timeUntilDue(at now: Double) -> Double? {
        guard pending != nil else { return nil }
        return max(0, pendingSince + patience - now)
    }

    /// The fix still waiting for its GST, if any: it goes out as it is.
    mutating func flush() -> Fix? {
        defer { pending = nil }
        guard let fix = pending else { return nil }
        if let t = fix.time { sent = t }
        // An epoch with a position that took nothing after its TPV counts toward sending at the
        // TPV. One without a position says nothing: a receiver sends no GST before it has a fix.
        if pendingTouched || fix.time == nil {
            quietEpochs = 0
        } else if fix.coordinate != nil {
            quietEpochs += 1
        }
        return fix
    }
}
