import Geo

/// The trails defined, which are completed, and the one under way: the engine's whole state of
/// trails, as a value. Pure: regions entered in, trail events out. The engine journals the
/// events and `run` in the transaction of the fix that caused them, so progress survives a
/// crash exactly as the events do.
public struct TrailBook: Sendable, Equatable {
    /// The trails in the order they were added.
    public private(set) var trails: [Trail]
    /// When each trail was last completed.
    public private(set) var completed: [String: UTCTime]
    /// The trail under way, if any (one at a time, as a level of a game).
    public internal(set) var run: TrailRun?

    public init(trails: [Trail] = [], completed: [String: UTCTime] = [:], run: TrailRun? = nil) {
        self.trails = trails
        self.completed = completed
        self.run = run
    }

    public func trail(_ id: String) -> Trail? { trails.first { $0.id == id } }

    /// Drops a run that does not fit the trails (its trail gone, or past its last checkpoint:
    /// only a damaged database holds one); says what was dropped, nil when the run fits.
    public mutating func dropRunThatDoesNotFit() -> String? {
        guard let r = run else { return nil }
        guard let t = trail(r.trail) else {
            run = nil
            return "the trail under way, '\(r.trail)', is not among the trails kept"
        }
        guard r.next >= 0, r.next < t.checkpoints.count else {
            run = nil
            return "the trail under way, '\(r.trail)', is at checkpoint \(r.next + 1) of \(t.checkpoints.count)"
        }
        return nil
    }

    /// The most trails kept, and checkpoints in all of them: the trails list stays under a
    /// megabyte.
    public static let maxTrails = 1000
    public static let maxCheckpoints = 20_000

    /// The checkpoints of all the trails kept.
    public var checkpointCount: Int { trails.reduce(0) { $0 + $1.checkpoints.count } }

    /// Why `trail` cannot be added, if it cannot: taken id, unknown required trail, too many.
    public func refusal(toAdd trail: Trail) -> String? {
        if self.trail(trail.id) != nil { return "trail '\(trail.id)' exists: remove it first (remove_trail), or choose another id" }
        if trails.count >= Self.maxTrails { return "\(trails.count) trails are kept, the most there may be: remove some first" }
        let total = checkpointCount
        if total + trail.checkpoints.count > Self.maxCheckpoints {
            return "the trails kept have \(total) checkpoints; with these \(trail.checkpoints.count) they would pass \(Self.maxCheckpoints), the most there may be: remove some trails first"
        }
        if let missing = trail.requires.first(where: { self.trail($0) == nil }) {
            return "trail '\(trail.id)' requires '\(missing)', which does not exist: add that trail first"
        }
        return nil
    }

    public mutating func add(_ trail: Trail) { trails.append(trail) }

    /// Why trail `id` cannot be removed: unknown, under way, or required by another.
    public func refusal(toRemove id: String) -> String? {
        guard trail(id) != nil else { return "no trail '\(id)': {\"cmd\":\"trails\"} lists them" }
        if run?.trail == id { return "trail '\(id)' is under way: stop it first (stop_trail)" }
        if let dependant = trails.first(where: { $0.requires.contains(id) }) {
            return "trail '\(dependant.id)' requires '\(id)': remove that one first"
        }
        return nil
    }

    public mutating func remove(_ id: String) {
        trails.removeAll { $0.id == id }
        completed[id] = nil
    }

    /// Why trail `id` cannot start: unknown, locked (a required trail not completed), or one
    /// under way.
    public func refusal(toStart id: String) -> String? {
        guard let t = trail(id) else { return "no trail '\(id)': {\"cmd\":\"trails\"} lists them" }
        if let r = run {
            return r.trail == id
                ? "trail '\(id)' is under way (checkpoint \(r.next + 1) of \(t.checkpoints.count) next): stop it first (stop_trail) to start again"
                : "trail '\(r.trail)' is under way: stop it first (stop_trail)"
        }
        if let locked = t.requires.first(where: { completed[$0] == nil }) {
            return "trail '\(id)' unlocks when '\(locked)' is completed"
        }
        return nil
    }

    /// Starts `id` (checked with `refusal(toStart:)`) at `time`, where the walker is. Its first
    /// checkpoint is reached at once if the walker is inside it (and the next while inside those).
    public mutating func start(_ id: String, at time: UTCTime, from c: Coordinate?, inside: (String) -> Bool) -> [TrailEvent] {
        guard let t = trail(id) else { return [] }
        run = TrailRun(trail: id, next: 0, started: time, last: c)
        var events = [TrailEvent(time: time, type: .trailStarted, trail: t, region: t.checkpoints[0].region, index: 0)]
        events[0].coordinate = c
        reachWhileInside(t, time: time, at: c, inside: inside, into: &events)
        return events
    }

    /// Stops the trail under way; its event, nil when none is.
    public mutating func stop(at time: UTCTime) -> TrailEvent? {
        guard let r = run, let t = trail(r.trail) else { return nil }
        run = nil
        var e = TrailEvent(time: time, type: .trailStopped, trail: t, region: t.checkpoints[min(r.next, t.checkpoints.count - 1)].region)
        e.expected = r.next
        e.walked = r.walked
        return e
    }

    /// The walker entered `region` at `time`, at `c`: the next checkpoint is reached (and the
    /// ones after it the walker is already inside), or a later one is flagged out of order.
    public mutating func entered(_ region: String, at time: UTCTime, _ c: Coordinate, inside: (String) -> Bool) -> [TrailEvent] {
        guard let r = run, let t = trail(r.trail) else { return [] }
        var events: [TrailEvent] = []
        if t.checkpoints[r.next].region == region {
            reachWhileInside(t, time: time, at: c, entered: region, inside: inside, into: &events)
        } else if !t.checkpoints[..<r.next].contains(where: { $0.region == region }),
                  let k = t.checkpoints[(r.next + 1)...].firstIndex(where: { $0.region == region }) {
            // (A region reached already is the walker going back, not ahead of the trail.)
            run?.outOfOrder += 1
            var e = TrailEvent(time: time, type: .checkpointOutOfOrder, trail: t, region: region, index: k)
            e.expected = r.next
            e.coordinate = c
            e.action = t.checkpoints[k].action
            events.append(e)
        }
        return events
    }

    /// The walker moved to `c` (a point of the recorded track): the distance walked grows.
    public mutating func walked(to c: Coordinate) {
        guard var r = run else { return }
        if let last = r.last { r.walked += Geodesic.wgs84.distance(last, c) }
        r.last = c
        run = r
    }

    /// Reaches checkpoints from the next on while the walker is inside them (the first also
    /// when it is the region just `entered`: a transit leaves it at once); completes the trail
    /// after the last.
    mutating func reachWhileInside(_ t: Trail, time: UTCTime, at c: Coordinate?, entered: String? = nil, inside: (String) -> Bool,
                                   into events: inout [TrailEvent]) {
        // A region reached in this step is not reached again in it: [A, B, A] needs A entered twice.
        var reached: Set<String> = []
        var first = true
        while var r = run, r.next < t.checkpoints.count, !reached.contains(t.checkpoints[r.next].region),
              (first && t.checkpoints[r.next].region == entered) || inside(t.checkpoints[r.next].region) {
            first = false
            reached.insert(t.checkpoints[r.next].region)
            let k = r.next
            var e = TrailEvent(time: time, type: .checkpointReached, trail: t, region: t.checkpoints[k].region, index: k)
            e.coordinate = c
            e.action = t.checkpoints[k].action
            events.append(e)
            r.next += 1
            if let c, let last = r.last { r.walked += Geodesic.wgs84.distance(last, c) }
            if let c { r.last = c }
            run = r
            if r.next == t.checkpoints.count {
                var done = TrailEvent(time: time, type: .trailCompleted, trail: t, region: t.checkpoints[k].region)
                done.coordinate = c
                done.took = time.seconds(since: r.started)
                done.walked = r.walked
                done.outOfOrder = r.outOfOrder
                events.append(done)
                completed[t.id] = time
                run = nil
            }
        }
    }
}

/// The trail under way: the checkpoint next, when it started, how far the walker has gone.
public struct TrailRun: Sendable, Equatable {
    public var trail: String
    /// The index of the checkpoint to reach next.
    public var next: Int
    public var started: UTCTime
    /// Metres walked since the start, along the recorded track.
    public var walked: Double
    /// The last point counted in `walked`.
    public var last: Coordinate?
    /// Checkpoints entered out of order so far.
    public var outOfOrder: Int

    public init(trail: String, next: Int, started: UTCTime, walked: Double = 0, last: Coordinate? = nil, outOfOrder: Int = 0) {
        self.trail = trail
        self.next = next
        self.started = started
        self.walked = walked
        self.last = last
        self.outOfOrder = outOfOrder
    }
}
