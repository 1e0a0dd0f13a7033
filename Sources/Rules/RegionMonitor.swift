import Geo

/// Turns accepted fixes into enter, exit and dwell events, on evidence.
///
/// With `d` the signed distance to a fence (positive inside) and `e` the fix's horizontal error,
/// a fix enters when `d ≥ m` and exits when `d ≤ −m`, with `m = hysteresis + accuracyFactor·e`;
/// in between the state stays. So GPS jitter on a boundary does not flap. The first accepted fix
/// sets the state silently (inside where `d > 0`), unless `initialEnter`.
///
/// Rules, after the enter or exit they follow: albums `capture_allowed` / `capture_locked`,
/// reforestation areas `planting_allowed` / `planting_forbidden`, plants `water_due` while inside
/// a plant whose interval has run out (also when it runs out while inside), once per due period;
/// `water(_:at:)` starts a new period.
///
/// Transit: when the path between two consecutive accepted fixes passes at least the margin
/// into a fence that neither fix is inside (a runner crossing a 20 m plant circle between 1 Hz
/// fixes), an enter and an exit are reported, flagged `transit`, at times interpolated along the
/// path (see `transits` for how the path is searched).
///
/// Pure logic: feed it fixes in time order, it returns events. Per-fence state lives in arrays
/// sized once; a fix costs a few index queries and no allocation per fence.
public struct RegionMonitor: Sendable {
    public let regions: RegionSet
    public var config: MonitorConfig
    public private(set) var gate: QualityGate

    /// Per region: inside or not, since when, whether its dwell has fired.
    public private(set) var inside: [Bool]
    var enteredAt: [UTCTime?]
    var dwellDone: [Bool]
    /// Regions currently inside, for the exit check of regions far from the fix.
    var insideList: [Int] = []
    /// Per region, the number of the last fix that evaluated it (to visit each once per fix), and
    /// of the last fix that changed its state (so transit knows the state before this fix).
    var visited: [UInt32]
    var changed: [UInt32]
    var fixNumber: UInt32 = 0
    /// Plants: when each was last watered, and the watering its last alert was for.
    public private(set) var lastWatered: [UTCTime?]
    var alertedFor: [UTCTime?]
    /// The last accepted fix, its position and error, for transit.
    var previous: (time: UTCTime, coordinate: Coordinate, error: Double)?

    public init(regions: RegionSet, config: MonitorConfig = MonitorConfig()) {
        self.regions = regions
        self.config = config
        gate = QualityGate(config: config)
        inside = Array(repeating: false, count: regions.count)
        enteredAt = Array(repeating: nil, count: regions.count)
        dwellDone = Array(repeating: false, count: regions.count)
        visited = Array(repeating: 0, count: regions.count)
        changed = Array(repeating: 0, count: regions.count)
        lastWatered = regions.regions.map(\.lastWatered)
        alertedFor = Array(repeating: nil, count: regions.count)
    }

    /// A plant was watered at `time`: its next due period starts. Returns the `watered` event, or
    /// nil when `region` is not a plant.
    public mutating func water(_ region: Int, at time: UTCTime) -> RegionEvent? {
        guard regions.regions[region].kind == .plant else { return nil }
        lastWatered[region] = time
        let c = previous?.coordinate ?? Coordinate(latitude: .nan, longitude: .nan)
        return RegionEvent(time: time, type: .watered, region: region, coordinate: c,
                           distance: previous.map { _ in regions.signedDistance(region, c) } ?? .nan, error: previous?.error ?? 0)
    }

    /// Whether plant `i` is due at `t` and not yet alerted for this period.
    func waterDue(_ i: Int, at t: UTCTime) -> Bool {
        let r = regions.regions[i]
        guard r.kind == .plant, let days = r.intervalDays, let last = lastWatered[i] else { return false }
        guard t.nanoseconds - last.nanoseconds >= Int64(days) * UTCTime.nanosPerDay else { return false }
        return alertedFor[i] != last
    }

    /// The rule event that follows a base event (enter or exit), if the region's kind has one;
    /// a plant's `water_due` when it is due on entering.
    mutating func ruleEvents(after e: RegionEvent, _ emit: (RegionEvent) -> Void) {
        var rule = e
        switch (regions.regions[e.region].kind, e.type) {
        case (.album, .enter): rule.type = .captureAllowed
        case (.album, .exit): rule.type = .captureLocked
        case (.reforestation, .enter): rule.type = .plantingAllowed
        case (.reforestation, .exit): rule.type = .plantingForbidden
        case (.plant, .enter):
            guard waterDue(e.region, at: e.time) else { return }
            alertedFor[e.region] = lastWatered[e.region]
            rule.type = .waterDue
        default: return
        }
        emit(rule)
    }

    /// Processes one fix; returns its events (none for a dropped fix).
    public mutating func process(_ fix: Fix) -> [RegionEvent] {
        var events: [RegionEvent] = []
        process(fix) { events.append($0) }
        return events
    }

    /// Processes one fix, calling `emit` for each event in time order.
    public mutating func process(_ fix: Fix, _ emit: (RegionEvent) -> Void) {
        guard gate.check(fix) == nil, let c = fix.coordinate, let t = fix.time else { return }
        let error = QualityGate.horizontalError(fix)
        var atFix: [RegionEvent] = []
        evaluate(fix: c, time: t, error: error, first: previous == nil) { atFix.append($0) }
        if config.transit, let prev = previous {
            transits(from: prev, to: (t, c, error), emit)
        }
        previous = (t, c, error)
        for e in atFix { emit(e) }
    }

    /// The events of one accepted fix: enter, exit, dwell; the `first` accepted fix only sets
    /// the state.
    mutating func evaluate(fix c: Coordinate, time t: UTCTime, error e: Double, first: Bool, _ emit: (RegionEvent) -> Void) {
        let margin = config.hysteresisMetres + config.accuracyFactor * e
        fixNumber &+= 1
        if fixNumber == 0 {  // wrapped: clear the stamps
            for i in visited.indices { visited[i] = 0; changed[i] = 0 }
            fixNumber = 1
        }

        // Containment is cheap (the fence's raster, a circle's chord); the signed distance is
        // computed only when containment disagrees with the state (a transition may be due) or
        // an event needs it.
        let regions = self.regions
        let p = ECEF(c)
        func evaluate(_ i: Int) {
            guard visited[i] != fixNumber else { return }
            visited[i] = fixNumber
            let geometricallyInside = regions.contains(i, c, p)
            if first {
                guard geometricallyInside else { return }
                setInside(i, true, at: t)
                if config.initialEnter {
                    let enter = RegionEvent(time: t, type: .enter, region: i, coordinate: c, distance: regions.signedDistance(i, c), error: e, initial: true)
                    emit(enter)
                    ruleEvents(after: enter, emit)
                }
                return
            }
            if inside[i] {
                if !geometricallyInside {
                    let d = regions.signedDistance(i, c)
                    if d <= -margin {
                        setInside(i, false, at: t)
                        let exit = RegionEvent(time: t, type: .exit, region: i, coordinate: c, distance: d, error: e)
                        emit(exit)
                        ruleEvents(after: exit, emit)
                        return
                    }
                }
                if config.dwellSeconds > 0, !dwellDone[i], let since = enteredAt[i],
                   Double(t.nanoseconds - since.nanoseconds) / 1e9 >= config.dwellSeconds {
                    dwellDone[i] = true
                    emit(RegionEvent(time: t, type: .dwell, region: i, coordinate: c, distance: regions.signedDistance(i, c), error: e))
                }
                if waterDue(i, at: t) {  // the interval ran out while inside
                    alertedFor[i] = lastWatered[i]
                    emit(RegionEvent(time: t, type: .waterDue, region: i, coordinate: c, distance: regions.signedDistance(i, c), error: e))
                }
            } else if geometricallyInside {
                let d = regions.signedDistance(i, c)
                if d >= margin {
                    setInside(i, true, at: t)
                    let enter = RegionEvent(time: t, type: .enter, region: i, coordinate: c, distance: d, error: e)
                    emit(enter)
                    ruleEvents(after: enter, emit)
                }
            }
        }

        // Every fence whose box meets the margin around the fix (which includes every fence
        // containing it), and the fences the state says we are in (far from here: a clear exit).
        regions.forEachRegion(near: c, within: margin) { evaluate($0) }
        for i in insideList where visited[i] != fixNumber { evaluate(i) }
    }

    mutating func setInside(_ i: Int, _ value: Bool, at t: UTCTime) {
        inside[i] = value
        changed[i] = fixNumber
        if value {
            enteredAt[i] = t
            dwellDone[i] = false
            insideList.append(i)
        } else {
            enteredAt[i] = nil
            if let k = insideList.firstIndex(of: i) { insideList.remove(at: k) }
        }
    }

    /// Passes through fences between `a` and `b` that neither fix is inside.
    ///
    /// Signed distance changes by at most the distance moved, so along a path of length L the
    /// deepest point is at most (d_a + d_b + L) / 2 inside: most fences near the path are ruled
    /// out by two evaluations. The rest are sampled along the straight path in space (within a
    /// millimetre of the geodesic for paths up to 100 m), and the crossings bisected.
    mutating func transits(from a: (time: UTCTime, coordinate: Coordinate, error: Double),
                           to b: (time: UTCTime, coordinate: Coordinate, error: Double),
                           _ emit: (RegionEvent) -> Void) {
        let g = Geodesic.wgs84
        let path = g.inverse(a.coordinate, b.coordinate)
        guard path.distance > 0 else { return }
        let error = max(a.error, b.error)
        let margin = config.hysteresisMetres + config.accuracyFactor * error
        let pa = ECEF(a.coordinate), pb = ECEF(b.coordinate)
        func space(_ f: Double) -> ECEF { ECEF(x: pa.x + f * (pb.x - pa.x), y: pa.y + f * (pb.y - pa.y), z: pa.z + f * (pb.z - pa.z)) }
        func point(_ f: Double) -> Coordinate { g.direct(from: a.coordinate, bearing: path.initialBearing, distance: f * path.distance) }
        let seconds = Double(b.time.nanoseconds - a.time.nanoseconds) / 1e9
        func time(_ f: Double) -> UTCTime { UTCTime(nanoseconds: a.time.nanoseconds + Int64(f * seconds * 1e9)) }
        let middle = point(0.5)
        // Samples at most every half metre (and at least 8 along any path), at most 512.
        let steps = min(512, max(8, Int((path.distance / 0.5).rounded(.up))))
        var found: [RegionEvent] = []
        let regions = self.regions
        let inside = self.inside, changed = self.changed, now = fixNumber
        let aPoint = a.coordinate, bPoint = b.coordinate
        regions.forEachRegion(near: middle, within: path.distance / 2 + margin) { i in
            // Outside after this fix, and before it (a state changed by this fix was the other).
            guard !inside[i], changed[i] != now else { return }
            // Both ends outside: the path gets at most L/2 inside.
            if path.distance / 2 < margin, !regions.contains(i, aPoint, pa), !regions.contains(i, bPoint, pb) { return }
            let da = regions.approximateSignedDistance(i, pa), db = regions.approximateSignedDistance(i, pb)
            guard (da + db + path.distance) / 2 >= margin else { return }
            var deepest = -Double.infinity, deepestAt = 0.0
            for k in 1..<steps {
                let f = Double(k) / Double(steps)
                let d = regions.approximateSignedDistance(i, space(f))
                if d > deepest { deepest = d; deepestAt = f }
            }
            guard deepest >= margin else { return }
            func crossing(_ outside: Double, _ insideAt: Double) -> Double {
                var lo = outside, hi = insideAt
                for _ in 0..<40 {
                    let mid = (lo + hi) / 2
                    if regions.approximateSignedDistance(i, space(mid)) > 0 { hi = mid } else { lo = mid }
                }
                return (lo + hi) / 2
            }
            let fIn = crossing(0, deepestAt), fOut = crossing(1, deepestAt)
            found.append(RegionEvent(time: time(fIn), type: .enter, region: i, coordinate: point(fIn), distance: 0, error: error, transit: true))
            found.append(RegionEvent(time: time(fOut), type: .exit, region: i, coordinate: point(fOut), distance: 0, error: error, transit: true))
        }
        found.sort { ($0.time, $0.region, $0.type == .enter ? 0 : 1) < ($1.time, $1.region, $1.type == .enter ? 0 : 1) }
        for e in found {
            emit(e)
            ruleEvents(after: e, emit)
        }
    }
}
