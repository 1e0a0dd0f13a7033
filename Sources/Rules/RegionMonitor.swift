import Geo

/// Turns accepted fixes into enter, exit and dwell events, on evidence.
///
/// With `d` the signed distance to a fence (positive inside) and `e` the fix's horizontal error,
/// a fix enters when `d ≥ m` and exits when `d ≤ −m`, with `m = hysteresis + accuracyFactor·e`;
/// in between the state stays. So GPS jitter on a boundary does not flap. The first accepted fix
/// sets the state silently (inside where `d > 0`), unless `initialEnter`.
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
    /// Per region, the number of the last fix that evaluated it (to visit each once per fix).
    var visited: [UInt32]
    var fixNumber: UInt32 = 0
    var started = false

    public init(regions: RegionSet, config: MonitorConfig = MonitorConfig()) {
        self.regions = regions
        self.config = config
        gate = QualityGate(config: config)
        inside = Array(repeating: false, count: regions.count)
        enteredAt = Array(repeating: nil, count: regions.count)
        dwellDone = Array(repeating: false, count: regions.count)
        visited = Array(repeating: 0, count: regions.count)
    }

    /// Processes one fix; returns its events (none for a dropped fix).
    public mutating func process(_ fix: Fix) -> [RegionEvent] {
        var events: [RegionEvent] = []
        process(fix) { events.append($0) }
        return events
    }

    /// Processes one fix, calling `emit` for each event in order.
    public mutating func process(_ fix: Fix, _ emit: (RegionEvent) -> Void) {
        guard gate.check(fix) == nil, let c = fix.coordinate, let t = fix.time else { return }
        let e = QualityGate.horizontalError(fix)
        let margin = config.hysteresisMetres + config.accuracyFactor * e
        fixNumber &+= 1
        if fixNumber == 0 {  // wrapped: clear the stamps
            for i in visited.indices { visited[i] = 0 }
            fixNumber = 1
        }
        let first = !started
        started = true

        func evaluate(_ i: Int, _ d: Double) {
            guard visited[i] != fixNumber else { return }
            visited[i] = fixNumber
            if first {
                guard d > 0 else { return }
                setInside(i, true, at: t)
                if config.initialEnter {
                    emit(RegionEvent(time: t, type: .enter, region: i, coordinate: c, distance: d, error: e, initial: true))
                }
                return
            }
            if inside[i] {
                if d <= -margin {
                    setInside(i, false, at: t)
                    emit(RegionEvent(time: t, type: .exit, region: i, coordinate: c, distance: d, error: e))
                } else if config.dwellSeconds > 0, !dwellDone[i], let since = enteredAt[i],
                          Double(t.nanoseconds - since.nanoseconds) / 1e9 >= config.dwellSeconds {
                    dwellDone[i] = true
                    emit(RegionEvent(time: t, type: .dwell, region: i, coordinate: c, distance: d, error: e))
                }
            } else if d >= margin {
                setInside(i, true, at: t)
                emit(RegionEvent(time: t, type: .enter, region: i, coordinate: c, distance: d, error: e))
            }
        }

        // Fences whose boundary is within the margin, fences containing the fix, and fences the
        // state says we are in (far from here now means a clear exit).
        regions.forEachNear(c, within: margin) { i, d in evaluate(i, d) }
        regions.forEachContaining(c) { i in
            if visited[i] != fixNumber { evaluate(i, regions.signedDistance(i, c)) }
        }
        for i in insideList where visited[i] != fixNumber {
            evaluate(i, regions.signedDistance(i, c))
        }
    }

    mutating func setInside(_ i: Int, _ value: Bool, at t: UTCTime) {
        inside[i] = value
        if value {
            enteredAt[i] = t
            dwellDone[i] = false
            insideList.append(i)
        } else {
            enteredAt[i] = nil
            if let k = insideList.firstIndex(of: i) { insideList.remove(at: k) }
        }
    }
}
