import Geo
import Regions

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
///
/// What must survive a restart (`state(of:)`, `lastFix`), which regions' state changed
/// (`takeChangedRegions()`), putting it back (`restore(last:regions:)`) and handing it to a
/// monitor over reloaded regions (`carried(to:config:)`): see RegionMonitor+State.swift.
public struct RegionMonitor: Sendable {
    /// The regions watched; events name them by index here.
    public private(set) var regions: RegionSet
    /// Margin, transit and dwell settings; the gate applies its own copy (`gate.config`).
    public var config: MonitorConfig
    /// Decides which fixes are used, and counts the others.
    public internal(set) var gate: QualityGate

    /// The state of every region, one array per field (`RegionTable`).
    var table: RegionTable
    /// Per region: inside or not.
    public var inside: [Bool] { table.inside }
    /// Plants: when each was last watered.
    public var lastWatered: [UTCTime?] { table.lastWatered }
    /// Regions currently inside, for the exit check of regions far from the fix.
    var insideList: [Int32] = []
    /// Scratch buffers kept between fixes so that a fix allocates nothing.
    var candidates: [Int32] = []
    var nearby = NearbyCache()
    /// The events of the fix being evaluated, which evaluating appends to in place (a closure
    /// collecting them cost a scratch buffer moved out and back, with its retains, per fix);
    /// emitted after the fix's transits (`emitInOrder`).
    var atFix: [RegionEvent] = []
    /// The transits of the path to this fix, appended in place; sorted by time before they go out.
    var found: [RegionEvent] = []
    var fixNumber: UInt32 = 0
    /// The last accepted fix, its position and error, for transit.
    var previous: (time: UTCTime, coordinate: Coordinate, error: Double)?
    var previousSpace = ECEF(x: 0, y: 0, z: 0)
    /// The regions whose `RegionState` changed since `takeChangedRegions`, each once (see
    /// RegionMonitor+State.swift): O(changes) a fix, no allocation once warm.
    var changedRegions: [Int32] = []
    /// Where nothing can happen but dwell and watering (see `QuietBall`); renewed after each fix
    /// evaluated in full, with `ballRegions` as scratch.
    var quiet = QuietBall()
    /// Whether the last accepted fix was in a quiet ball.
    var previousQuiet = false
    var ballRegions: [Int32] = []
    var ballLimits: [QuietBall.Limit] = []
    /// The regions the quiet ball leaves out, ascending: each fix in the ball evaluates them
    /// (and the path to it, for transit) as a fix outside it evaluates every region near.
    var watched: [Int32] = []
    /// How many regions are `new` (`treatAsNew`). A new region is settled by the first fix that
    /// evaluates it outside, or inside by evidence: which fixes those are (every one whose query
    /// finds it) must not depend on quiet balls, so there is none while this is above 0. Regions
    /// are made new only around the walker, after a reload; the next step out of one settles it.
    /// Until then (a receiver parked in one short of the margin; with transit off, one whose box
    /// the walker left) every fix is evaluated in full.
    var newRegions = 0
    /// Accepted fixes that fell in a quiet ball, and those of them that evaluated `watched`
    /// regions (for the benchmark's figures).
    public internal(set) var quietFixes = 0
    public internal(set) var watchedFixes = 0
    /// Whether to use quiet balls at all (the tests compare the events without them).
    var quietBalls = true

    /// Takes `rastered`, the set watched with its rasters marked (`RegionSet.withRasters`): the
    /// same regions, so every state and index stays. Refused (false) for any other set.
    public mutating func takeRasters(_ rastered: RegionSet) -> Bool {
        // The same regions: the same array, shared (a copy compared element by element would
        // cost a country's worth of coordinates).
        let same = rastered.regions.withUnsafeBufferPointer { a in regions.regions.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
        guard same, rastered.count == regions.count else { return false }
        regions = rastered
        return true
    }

    /// A monitor over `regions` that has seen no fix: the first accepted fix sets the state.
    public init(regions: RegionSet, config: MonitorConfig = MonitorConfig()) {
        self.regions = regions
        self.config = config
        gate = QualityGate(config: config)
        table = RegionTable(regions)
    }

    /// A plant was watered at `time`: its next due period starts. Returns the `watered` event, or
    /// nil when `region` is not a plant.
    public mutating func water(_ region: Int, at time: UTCTime) -> RegionEvent? {
        guard table.kinds[region] == .plant else { return nil }
        table.lastWatered[region] = time
        noteStateChange(region)
        let c = previous?.coordinate ?? Coordinate(latitude: .nan, longitude: .nan)
        return RegionEvent(time: time, type: .watered, region: region, coordinate: c,
                           distance: previous.map { _ in regions.signedDistance(region, c) } ?? .nan, error: previous?.error ?? 0)
    }

    /// Whether plant `i` is due at `t` and not yet alerted for this period.
    ///
    /// Inlined: called out of line from a mutating method, it made the caller copy the whole
    /// monitor (some 600 bytes) per call to pass `self` by value.
    @inline(__always)
    func waterDue(_ i: Int, at t: UTCTime) -> Bool {
        guard let interval = table.wateringInterval[i] else { return false }
        // Never watered: due now, once.
        guard let last = table.lastWatered[i] else { return table.alertedFor[i] != Self.neverWatered }
        // Not `t - last`: from a watering in 1678 (the earliest files and commands take) to now
        // is more nanoseconds than Int64 holds.
        guard last.advanced(byNanoseconds: interval) <= t else { return false }
        return table.alertedFor[i] != last
    }

    /// `alertedFor` of a plant never watered whose alert has gone out.
    public static let neverWatered = UTCTime(nanoseconds: .min)

    /// Sets when plant `i` was last watered (a keeper correcting the date), without an event;
    /// nil: never (due now). The next fix inside alerts if that makes it due.
    public mutating func setLastWatered(_ i: Int, _ time: UTCTime?) {
        guard table.kinds[i] == .plant, table.lastWatered[i] != time else { return }
        table.lastWatered[i] = time
        noteStateChange(i)
    }

    /// Region `i` appeared while the monitor runs (added at runtime, or to a reloaded file): the
    /// next fix that shows it inside by evidence (`d ≥ margin`) enters it with `initial: true`,
    /// as the first fix would with `initialEnter`; a fix outside it makes it an ordinary region,
    /// as is at once a region that does not contain the last fix. Without a fix yet, the first
    /// fix sets its state like any other's.
    public mutating func treatAsNew(_ i: Int) {
        // Only a region around the last fix can be new to the walker; one elsewhere is ordinary
        // (walking into it later is an ordinary enter), and is decided now: it may not be
        // evaluated again until the walker comes near it.
        guard let last = previous, !table.inside[i], regions.contains(i, last.coordinate, previousSpace) else { return }
        if !table.new[i] { newRegions += 1 }
        table.new[i] = true
        table.bound[i] = .unknown
        // No quiet ball while a region is new: whether it is new depends on the fixes that
        // evaluate it, and a ball would skip some (see `newRegions`).
        quiet.radius = 0
        watched.removeAll(keepingCapacity: true)
    }

    /// The rule event that follows a base event (enter or exit), if the region's kind has one;
    /// a plant's `water_due` when it is due on entering.
    mutating func ruleEvent(after e: RegionEvent) -> RegionEvent? {
        var rule = e
        switch (table.kinds[e.region], e.type) {
        case (.album, .enter): rule.type = .captureAllowed
        case (.album, .exit): rule.type = .captureLocked
        case (.reforestation, .enter): rule.type = .plantingAllowed
        case (.reforestation, .exit): rule.type = .plantingForbidden
        case (.plant, .enter):
            guard waterDue(e.region, at: e.time) else { return nil }
            table.alertedFor[e.region] = table.lastWatered[e.region] ?? Self.neverWatered
            noteStateChange(e.region)
            rule.type = .waterDue
        default: return nil
        }
        return rule
    }

    /// An enter or exit at this fix, and the rule event that follows it, into `atFix`.
    mutating func enterOrExit(_ e: RegionEvent) {
        atFix.append(e)
        if let rule = ruleEvent(after: e) { atFix.append(rule) }
    }

    /// Processes one fix; returns its events (none for a dropped fix).
    public mutating func process(_ fix: Fix) -> [RegionEvent] {
        var events: [RegionEvent] = []
        process(fix) { events.append($0) }
        return events
    }

    /// Processes one fix, calling `emit` for each event in time order.
    ///
    /// One index query a fix: the fences whose boxes meet the path from the last accepted fix
    /// (with the margin around it), or only the fix when there is no path. That covers every
    /// fence containing the fix; the fences the state says we are in are added (far from here:
    /// a clear exit). Then the fix is evaluated against them, then the path.
    public mutating func process(_ fix: Fix, _ emit: (RegionEvent) -> Void) {
        guard gate.check(fix) == nil, let c = fix.coordinate, let t = fix.time else { return }
        let error = QualityGate.horizontalError(fix)
        let p = gate.lastSpace
        if previous != nil, quiet.holds(p, error: error, config) {
            quietFix(c, p, time: t, error: error, emit)
            return
        }
        let path = config.transit ? previous.flatMap { Path(from: $0, previousSpace, to: (t, c, error), p, config) } : nil

        var candidates = takeScratch(\.candidates)
        // Events of one fix come in the order of the regions, whatever order the index gives.
        if let path, let a = previous?.coordinate {
            regions.appendRegions(along: a, c, length: path.length, within: path.margin, cache: &nearby, to: &candidates)  // ascending
        } else {
            regions.forEachRegion(near: c, within: 0) { candidates.append(Int32($0)) }
            candidates.sort()
        }
        let queried = candidates.count
        // From the buffer: appending the array itself retained and released its storage.
        insideList.withUnsafeBufferPointer { candidates.append(contentsOf: $0) }

        // The fix's own events (in `atFix`) wait until the transits before it are out.
        advanceFixNumber()
        evaluate(candidates, fix: c, p, time: t, error: error, first: previous == nil)
        if let path, let prev = previous {
            transits(through: candidates, first: queried, path, from: prev, to: (t, c, error), emit)
        }
        let step = QuietBall.moved(previousSpace, p)
        previous = (t, c, error)
        previousSpace = p
        previousQuiet = false
        candidates.removeAll(keepingCapacity: true)
        self.candidates = candidates
        renewQuietBall(at: c, p, error: error, step: step)
        Self.emitInOrder(&atFix, emit)
    }

    /// A fix inside the quiet ball: no region can change state nor be passed through but those
    /// the ball watches, which are evaluated (with the path to the fix, for transit); the
    /// regions we are inside are visited for dwell and watering.
    mutating func quietFix(_ c: Coordinate, _ p: ECEF, time t: UTCTime, error: Double, _ emit: (RegionEvent) -> Void) {
        advanceFixNumber()
        quietFixes += 1
        if !watched.isEmpty {
            // The regions the ball leaves out, as a fix outside it would evaluate them.
            watchedFixes += 1
            let watched = takeScratch(\.watched)
            evaluate(watched, fix: c, p, time: t, error: error, first: false)
            if config.transit, let prev = previous, let path = Path(from: prev, previousSpace, to: (t, c, error), p, config) {
                transits(through: watched, first: watched.count, path, from: prev, to: (t, c, error), emit)
            }
            self.watched = watched
        }
        // By index: iterating the array itself would retain it for the loop.
        var k = 0
        while k < insideList.count {
            let i = Int(insideList[k])
            if table.visited[i] != fixNumber { whileInside(i, fix: c, time: t, error: error) }
            k += 1
        }
        previous = (t, c, error)
        previousSpace = p
        previousQuiet = true
        Self.emitInOrder(&atFix, emit)
    }

    /// Emits a fix's own events in the order of the regions, even a far region's exit (from
    /// `insideList`, whose order depends on the history): the same state gives the same events.
    /// Inlined: most fixes have no event, and the call alone cost more than the test.
    @inline(__always)
    static func emitInOrder(_ atFix: inout [RegionEvent], _ emit: (RegionEvent) -> Void) {
        guard !atFix.isEmpty else { return }
        if atFix.count > 1 { Self.sortByRegion(&atFix) }
        for e in atFix { emit(e) }
        atFix.removeAll(keepingCapacity: true)
    }

    /// Stable insertion sort by region: a fix's events are few, and a region's stay in order.
    static func sortByRegion(_ events: inout [RegionEvent]) {
        for k in 1..<events.count {
            let e = events[k]
            var j = k
            while j > 0, events[j - 1].region > e.region {
                events[j] = events[j - 1]
                j -= 1
            }
            events[j] = e
        }
    }

    /// Moves a scratch buffer out of `self`, so that filling it does not copy it and a closure
    /// that fills it does not capture `self`; the caller puts it back.
    mutating func takeScratch<T>(_ key: WritableKeyPath<RegionMonitor, [T]>) -> [T] {
        let buffer = self[keyPath: key]
        self[keyPath: key] = []
        return buffer
    }

    /// Numbers the next accepted fix (each one, quiet or not: transit asks about the fix before).
    mutating func advanceFixNumber() {
        fixNumber &+= 1
        if fixNumber == 0 {  // wrapped: renumber the stamps, the last fix as 1 and this one as 2
            for i in table.visited.indices {
                table.visited[i] = 0
                table.changed[i] = 0
                table.containedAt[i] = table.containedAt[i] == UInt32.max ? 1 : 0
                table.searched[i].at = table.searched[i].at == UInt32.max ? 1 : 0
                table.searched[i].beforeAt = table.searched[i].beforeAt == UInt32.max ? 1 : 0
            }
            fixNumber = 2
        }
    }

    /// Keeps `d`, region `i`'s `approximateSignedDistance` at this fix's position, for transit
    /// and the quiet ball (`searched(_:at:)`).
    @inline(__always)
    mutating func noteSearched(_ i: Int, _ d: Double) {
        table.searched[i].note(d, at: fixNumber)
    }

    /// Region `i`'s `approximateSignedDistance` at the position of fix number `fix` (this one or
    /// the one before), where evaluating that fix computed it.
    @inline(__always)
    func searched(_ i: Int, at fix: UInt32) -> Double? {
        table.searched[i].kept(at: fix)
    }

    /// The events of one accepted fix (numbered already: `advanceFixNumber`) against
    /// `candidates` (each at most once): enter, exit, dwell; the `first` accepted fix only sets
    /// the state.
    mutating func evaluate(_ candidates: [Int32], fix coordinate: Coordinate, _ position: ECEF, time: UTCTime, error: Double,
                           first: Bool) {
        let margin = Self.margin(config, error: error)
        for i in candidates where table.visited[Int(i)] != fixNumber {
            table.visited[Int(i)] = fixNumber
            evaluate(Int(i), fix: coordinate, position, time: time, error: error, margin: margin, first: first)
        }
    }

    /// One region at one fix.
    ///
    /// Each region keeps a bound of its signed distance near a recent fix (see `bound`): the
    /// distance changes by at most the distance moved, so while the walker stays near, the bound
    /// alone shows that no transition can happen and which side of the boundary the fix is on,
    /// and nothing is computed. Otherwise the fence classifies the fix, cheaply where its raster
    /// or chord can (which renews the bound), and the distance itself is computed only when a
    /// transition may be due or an event needs it.
    mutating func evaluate(_ region: Int, fix coordinate: Coordinate, _ position: ECEF, time: UTCTime, error: Double, margin: Double,
                           first: Bool) {
        if first { return firstFix(region, fix: coordinate, position, time: time, error: error) }
        // A new region is settled by the first fix that evaluates it outside, or inside by evidence.
        if table.new[region] { return newRegion(region, fix: coordinate, position, time: time, error: error, margin: margin) }
        let kept = table.bound[region]
        if !kept.center.x.isNaN {
            let moved = QuietBall.moved(kept.center, position)
            if table.inside[region] {
                // At least `bound − moved` inside: no exit.
                if kept.value - moved > -margin {
                    whileInside(region, fix: coordinate, time: time, error: error)
                    return
                }
            } else {
                // At most `bound + moved` inside: no enter short of the margin. Whether the fix
                // is in the fence is not known where that is 0 or more: it is stamped as if it
                // were, so that transit does not take this end of its path for outside.
                let upper = kept.value + moved
                if upper < margin {
                    if upper >= 0 { table.containedAt[region] = fixNumber }
                    return
                }
            }
        }
        let (contained, bound, exact) = regions.classify(region, coordinate, position)
        if contained { table.containedAt[region] = fixNumber }
        // A polygon's exact bound is the distance transit's search would compute (see `classify`).
        if exact, !regions.isCircle(region) { noteSearched(region, bound) }
        if table.inside[region] {
            if !contained {
                // A circle's chord may show that there is no exit, without a geodesic.
                if !exact, let b = regions.circleBounds(region, position), b.lower > -margin {
                    setBound(region, at: position, b.lower)
                    whileInside(region, fix: coordinate, time: time, error: error)
                    return
                }
                let d = exact ? bound : regions.signedDistance(region, coordinate, position)
                if d <= -margin {
                    setInside(region, false, at: time)
                    setBound(region, at: position, d)
                    let exit = RegionEvent(time: time, type: .exit, region: region, coordinate: coordinate, distance: d, error: error)
                    enterOrExit(exit)
                    return
                }
                setBound(region, at: position, d)
            } else {
                setBound(region, at: position, bound)
            }
            whileInside(region, fix: coordinate, time: time, error: error)
        } else {
            guard contained else {
                setBound(region, at: position, bound)
                return
            }
            // Likewise that there is no enter (a fix in a circle short of the margin).
            if !exact, let b = regions.circleBounds(region, position), b.upper < margin {
                setBound(region, at: position, b.upper)
                return
            }
            let d = exact ? bound : regions.signedDistance(region, coordinate, position)
            setBound(region, at: position, d)
            if d >= margin {
                setInside(region, true, at: time)
                setBound(region, at: position, d)
                let enter = RegionEvent(time: time, type: .enter, region: region, coordinate: coordinate, distance: d, error: error)
                enterOrExit(enter)
            }
        }
    }

    /// A region at the first accepted fix: inside where the fix is in it, silently unless
    /// `initialEnter`.
    mutating func firstFix(_ region: Int, fix coordinate: Coordinate, _ position: ECEF, time: UTCTime, error: Double) {
        let (contained, bound, exact) = regions.classify(region, coordinate, position)
        if contained {
            table.containedAt[region] = fixNumber
            setInside(region, true, at: time)
            if config.initialEnter {
                let d = exact ? bound : regions.signedDistance(region, coordinate, position)
                let enter = RegionEvent(time: time, type: .enter, region: region, coordinate: coordinate, distance: d, error: error, initial: true)
                enterOrExit(enter)
            }
        }
        setBound(region, at: position, bound)
    }

    /// A region added at runtime (`treatAsNew`), at one fix: entered, flagged `initial`, once the
    /// fix shows it inside by evidence; an ordinary region once a fix is outside it.
    mutating func newRegion(_ region: Int, fix coordinate: Coordinate, _ position: ECEF, time: UTCTime, error: Double,
                            margin: Double) {
        let (contained, bound, exact) = regions.classify(region, coordinate, position)
        guard contained else {
            table.new[region] = false
            newRegions -= 1
            setBound(region, at: position, bound)
            return
        }
        table.containedAt[region] = fixNumber
        let d = exact ? bound : regions.signedDistance(region, coordinate, position)
        guard d >= margin else { return }  // inside, short of the margin: the next fix may show it
        table.new[region] = false
        newRegions -= 1
        setInside(region, true, at: time)
        setBound(region, at: position, d)
        let enter = RegionEvent(time: time, type: .enter, region: region, coordinate: coordinate, distance: d, error: error, initial: true)
        enterOrExit(enter)
    }

    /// Dwell and watering, at a fix that stays inside region `i`. Inlined, with the test most
    /// regions end on (the dwell past, not a plant) before any call: a quiet fix asks it of every
    /// region it is inside.
    @inline(__always)
    mutating func whileInside(_ i: Int, fix c: Coordinate, time t: UTCTime, error e: Double) {
        guard (config.dwellSeconds > 0 && !table.dwellDone[i]) || table.wateringInterval[i] != nil else { return }
        dwellAndWatering(i, fix: c, time: t, error: e)
    }

    /// `whileInside` past its first test.
    mutating func dwellAndWatering(_ i: Int, fix c: Coordinate, time t: UTCTime, error e: Double) {
        if config.dwellSeconds > 0, !table.dwellDone[i], let since = table.enteredAt[i], t.seconds(since: since) >= config.dwellSeconds {
            table.dwellDone[i] = true
            noteStateChange(i)
            atFix.append(RegionEvent(time: t, type: .dwell, region: i, coordinate: c, distance: regions.signedDistance(i, c), error: e))
        }
        if waterDue(i, at: t) {  // the interval ran out while inside
            table.alertedFor[i] = table.lastWatered[i] ?? Self.neverWatered
            noteStateChange(i)
            atFix.append(RegionEvent(time: t, type: .waterDue, region: i, coordinate: c, distance: regions.signedDistance(i, c), error: e))
        }
    }

    /// Records that region `i`'s signed distance at `p` is at least `value` (state inside) or at
    /// most `value` (state outside).
    mutating func setBound(_ i: Int, at p: ECEF, _ value: Double) {
        table.bound[i] = RegionTable.Bound(center: p, value: value)
    }

    mutating func setInside(_ i: Int, _ value: Bool, at t: UTCTime) {
        table.inside[i] = value
        table.changed[i] = fixNumber
        noteStateChange(i)
        table.bound[i] = .unknown  // the bound's direction turns with the state
        if value {
            table.enteredAt[i] = t
            table.dwellDone[i] = false
            insideList.append(Int32(i))
        } else {
            table.enteredAt[i] = nil
            if let k = insideList.firstIndex(of: Int32(i)) { insideList.remove(at: k) }
        }
    }

    /// The evidence a transition needs beyond the boundary: `hysteresis + accuracyFactor·error`,
    /// metres. Never negative nor NaN, whatever a caller's config or fix holds (the config file
    /// refuses such values; a margin below 0 would turn the query boxes inside out).
    @inline(__always)
    static func margin(_ config: MonitorConfig, error: Double) -> Double {
        let m = config.hysteresisMetres + config.accuracyFactor * error
        return m >= 0 ? m : 0
    }

    /// The straight path between two accepted fixes, as far as transit needs it.
    struct Path {
        let pa: ECEF, pb: ECEF
        /// An upper bound of the geodesic's length, metres.
        let length: Double
        let margin: Double
        let error: Double

        init?(from a: (time: UTCTime, coordinate: Coordinate, error: Double), _ pa: ECEF,
              to b: (time: UTCTime, coordinate: Coordinate, error: Double), _ pb: ECEF, _ config: MonitorConfig) {
            let chord = pa.distance(to: pb)
            guard chord > 0 else { return nil }
            self.pa = pa
            self.pb = pb
            // The geodesic is longer than its chord by about L³/24ρ²: 10⁻⁵ of L at 100 km. Bound
            // it from above; beyond 100 km ask the geodesic itself.
            length = chord <= 100_000 ? chord * (1 + 1e-4) : Geodesic.wgs84.inverse(a.coordinate, b.coordinate).distance
            error = max(a.error, b.error)
            margin = RegionMonitor.margin(config, error: error)
        }

        func space(_ f: Double) -> ECEF {
            ECEF(x: pa.x + f * (pb.x - pa.x), y: pa.y + f * (pb.y - pa.y), z: pa.z + f * (pb.z - pa.z))
        }
    }

    /// Passes through fences between `a` and `b` that neither fix is inside, among the first
    /// `count` of `candidates` (by index: a slice of them retained and released the array's buffer,
    /// two atomic operations, at every fix).
    ///
    /// Signed distance changes by at most the distance moved, so along a path of length L the
    /// deepest point is at most (d_a + d_b + L) / 2 inside: most fences near the path are ruled
    /// out by a chord (a bound of d) or two evaluations. The rest are sampled along the straight
    /// path in space (within a millimetre of the geodesic for paths up to 100 m), and the
    /// crossings bisected. Geodesics, for the positions of the events, only for a pass found.
    mutating func transits(through candidates: [Int32], first count: Int, _ path: Path,
                           from a: (time: UTCTime, coordinate: Coordinate, error: Double),
                           to b: (time: UTCTime, coordinate: Coordinate, error: Double),
                           _ emit: (RegionEvent) -> Void) {
        let length = path.length, margin = path.margin
        for n in 0..<count {
            let i = Int(candidates[n])
            // Outside after this fix, and before it (a state changed by this fix was the other).
            guard !table.inside[i], table.changed[i] != fixNumber else { continue }
            // Both ends outside: the path gets at most L/2 inside. The cheapest test first: a
            // drive's step is mostly shorter than twice the margin.
            // (A fix in a quiet ball stamps only the regions it watches: it may have been up to
            // the ball's margin inside the others.)
            if length / 2 < margin, table.containedAt[i] != fixNumber, !previousQuiet, table.containedAt[i] != fixNumber &- 1 { continue }
            // The region's bound: every point of the path is within the farther end's distance
            // of its centre, so at most `bound + that` inside; and with the bound at each end,
            // the path gets no deeper than (u_a + u_b + L) / 2.
            let kept = table.bound[i]
            if !kept.center.x.isNaN {
                let ua = kept.value + kept.center.distance(to: path.pa) * (1 + 1e-4) + 1e-3
                let ub = kept.value + kept.center.distance(to: path.pb) * (1 + 1e-4) + 1e-3
                if max(ua, ub) < margin || (ua + ub + length) / 2 < margin { continue }
            }
            // The same bound from the chords alone, then from the rasters, before any distance.
            if (regions.chordUpperBound(i, path.pa) + regions.chordUpperBound(i, path.pb) + length) / 2 < margin { continue }
            if (regions.signedDistanceUpperBound(i, path.pa) + regions.signedDistanceUpperBound(i, path.pb) + length) / 2 < margin { continue }
            // At each end, the distance that end's evaluation computed, if it did.
            let da = searched(i, at: fixNumber &- 1) ?? regions.approximateSignedDistance(i, path.pa)
            let db = searched(i, at: fixNumber) ?? regions.approximateSignedDistance(i, path.pb)
            guard (da + db + length) / 2 >= margin else { continue }
            guard let (entry, exit) = Self.pass(through: i, of: regions, path, margin: margin, da, db) else { continue }
            let g = Geodesic.wgs84
            let geodesic = g.inverse(a.coordinate, b.coordinate)
            func point(_ f: Double) -> Coordinate {
                f == 0 ? a.coordinate : f == 1 ? b.coordinate : g.direct(from: a.coordinate, bearing: geodesic.initialBearing, distance: f * geodesic.distance)
            }
            func time(_ f: Double) -> UTCTime { f == 1 ? b.time : Self.time(f, between: a.time, b.time) }
            found.append(RegionEvent(time: time(entry.at), type: .enter, region: i, coordinate: point(entry.at), distance: entry.distance, error: path.error, transit: true))
            found.append(RegionEvent(time: time(exit.at), type: .exit, region: i, coordinate: point(exit.at), distance: exit.distance, error: path.error, transit: true))
        }
        if !found.isEmpty {
            found.sort { ($0.time, $0.region, $0.type == .enter ? 0 : 1) < ($1.time, $1.region, $1.type == .enter ? 0 : 1) }
            for e in found {
                emit(e)
                if let rule = ruleEvent(after: e) { emit(rule) }
            }
            found.removeAll(keepingCapacity: true)
        }
    }

    /// Where `path` passes at least `margin` into region `i` of `regions`, given the distances
    /// at its ends (`da`, `db`): the fractions of the path where the pass begins and ends, with
    /// the distance there; nil when it passes no deeper than `margin`.
    ///
    /// Where the path crosses the boundary on each side of the deep point. An end already inside
    /// (a runner's fix a few metres into a plant's circle, short of the margin) is where the pass
    /// is known to begin or end: the event takes that end, and its depth.
    ///
    /// Static, the set borrowed: closures over a mutating method's `regions` copied the whole
    /// set (a retain of each of its arrays) per region searched.
    static func pass(through i: Int, of regions: RegionSet, _ path: Path, margin: Double, _ da: Double, _ db: Double)
        -> (entry: (at: Double, distance: Double), exit: (at: Double, distance: Double))? {
        guard let deepAt = pointAtDepth(margin, length: path.length, da, db, { regions.approximateSignedDistance(i, path.space($0)) }) else { return nil }
        func crossing(from end: Double, _ dEnd: Double, to insideAt: Double) -> (at: Double, distance: Double) {
            if dEnd >= 0 { return (end, dEnd) }
            var lo = end, hi = insideAt
            for _ in 0..<40 {
                let mid = (lo + hi) / 2
                if regions.approximateSignedDistance(i, path.space(mid)) > 0 { hi = mid } else { lo = mid }
            }
            return ((lo + hi) / 2, 0)
        }
        return (crossing(from: 0, da, to: deepAt), crossing(from: 1, db, to: deepAt))
    }

    /// The time a fraction `f` (0 up to 1) of the way from `a` to `b`, to the nanosecond; in
    /// floating point, and between them, where their nanoseconds' difference overflows.
    static func time(_ f: Double, between a: UTCTime, _ b: UTCTime) -> UTCTime {
        let (span, overflow) = b.nanoseconds.subtractingReportingOverflow(a.nanoseconds)
        if !overflow { return UTCTime(nanoseconds: a.nanoseconds + Int64((f * Double(span)).rounded())) }
        let t = (Double(a.nanoseconds) + f * (Double(b.nanoseconds) - Double(a.nanoseconds))).rounded()
        return t <= Double(a.nanoseconds) ? a : t >= Double(b.nanoseconds) ? b : UTCTime(nanoseconds: Int64(t))
    }

    /// A fraction of the path where the signed distance `d` is at least `depth`, given `d` at
    /// both ends; nil when there is none to the resolution: half a metre, or 1/4096 of a path
    /// longer than 2 km.
    ///
    /// Branch and bound on the 1-Lipschitz `d`: on a stretch of length ℓ between values d₀ and
    /// d₁, `d` is at most (d₀ + d₁ + ℓ) / 2, so a stretch whose bound is below `depth` is dropped
    /// without looking inside; the others are halved, until a point deep enough is found or the
    /// stretches reach the resolution. Depth first from the start. The worst case (a long
    /// stretch just shallower than `depth`) looks at every resolution step, as fixed sampling
    /// would, so the budget is two evaluations a step.
    static func pointAtDepth(_ depth: Double, length: Double, _ d0: Double, _ d1: Double, _ d: (Double) -> Double) -> Double? {
        if d0 >= depth { return 0 }
        if d1 >= depth { return 1 }
        let resolution = max(0.5, length / 4096)
        let budget = 2 * Int((length / resolution).rounded(.up)) + 64
        return withUnsafeTemporaryAllocation(of: (Double, Double, Double, Double).self, capacity: 64) { stack in
            var top = 0
            stack[0] = (0, d0, 1, d1)
            top = 1
            var evaluations = 0
            while top > 0, evaluations < budget {
                top -= 1
                let (f0, v0, f1, v1) = stack[top]
                let span = (f1 - f0) * length
                if (v0 + v1 + span) / 2 < depth || span < resolution { continue }
                let fm = (f0 + f1) / 2, vm = d(fm)
                evaluations += 1
                if vm >= depth { return fm }
                guard top + 2 <= 64 else { continue }
                stack[top] = (fm, vm, f1, v1)      // the later half waits
                stack[top + 1] = (f0, v0, fm, vm)  // the earlier half first
                top += 2
            }
            return nil
        }
    }
}
