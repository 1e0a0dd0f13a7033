import Geo
import JSON
import Regions

/// What a round walks through: regions named, the regions of a kind (plants: only those due),
/// or points (a plan's spots).
public enum RoundStops: Sendable, Equatable {
    case regions([String])
    case kind(RegionKind, due: Bool)
    case points([Coordinate])
}

/// An open walk from a start through each stop once, in the order `RoundPlanner` found, with
/// each leg's geodesic distance and initial bearing.
public struct Round: Sendable, Equatable {
    /// One stop of the walk: a region (its id, name and centre) or a point (its index in the
    /// request), with the leg that reaches it.
    public struct Leg: Sendable, Equatable {
        public var region: String?
        public var kind: RegionKind?
        public var name: String?
        public var point: Int?
        public var coordinate: Coordinate
        public var distance: Double
        public var bearing: Double
    }

    public var from: Coordinate
    public var legs: [Leg]
    public var length: Double
    /// Whether the order is proven the shortest (`RoundPlanner.exactLimit` stops or fewer).
    public var exact: Bool

    /// A stop before ordering: what it names and where its centre is.
    public struct Stop: Sendable, Equatable {
        public var region: String?
        public var kind: RegionKind?
        public var name: String?
        public var point: Int?
        public var coordinate: Coordinate
        public init(region: String? = nil, kind: RegionKind? = nil, name: String? = nil, point: Int? = nil, coordinate: Coordinate) {
            self.region = region
            self.kind = kind
            self.name = name
            self.point = point
            self.coordinate = coordinate
        }
    }

    /// The shortest open walk found from `from` through `stops`.
    public static func plan(from: Coordinate, stops: [Stop]) -> Round {
        let planned = RoundPlanner(start: from, stops: stops.map(\.coordinate)).plan()
        var legs: [Leg] = []
        legs.reserveCapacity(stops.count)
        var here = from, total = 0.0
        for k in planned.order {
            let s = stops[k]
            let (d, bearing, _) = Geodesic.wgs84.inverse(here, s.coordinate)
            legs.append(Leg(region: s.region, kind: s.kind, name: s.name, point: s.point, coordinate: s.coordinate, distance: d, bearing: d > 0 ? bearing : 0))
            total += d
            here = s.coordinate
        }
        return Round(from: from, legs: legs, length: total, exact: planned.exact)
    }

    /// The stops `stops` selects among the regions in force: a circle's centre, a polygon's
    /// area centroid (where the AR view puts its box). Refused with a message: an unknown or
    /// repeated id, none selected, more than `RoundPlanner.maxStops`.
    public static func stops(_ stops: RoundStops, in regions: RegionsInForce) -> Result<[Stop], RoundError> {
        let set = regions.set.regions
        func stop(_ i: Int) -> Stop { Stop(region: set[i].id, kind: set[i].kind, name: set[i].name, coordinate: set[i].shape.centroid) }
        var out: [Stop] = []
        switch stops {
        case .regions(let ids):
            var index: [String: Int] = [:]
            let wanted = Set(ids)
            for (i, r) in set.enumerated() where wanted.contains(r.id) { index[r.id] = i }
            var seen = Set<String>()
            for id in ids {
                guard let i = index[id] else { return .failure(RoundError("no region '\(TextExcerpt.short(id))': {\"cmd\":\"regions\"} lists them")) }
                guard seen.insert(id).inserted else { return .failure(RoundError("region '\(TextExcerpt.short(id))' is named twice: a round passes each once")) }
                out.append(stop(i))
            }
        case let .kind(kind, due):
            for (i, r) in set.enumerated() where r.kind == kind && (!due || regions.isDue(i) == true) { out.append(stop(i)) }
            guard !out.isEmpty else {
                return .failure(RoundError(due ? "no plant is due for watering: nothing to walk to" : "no \(kind.rawValue) region is in force"))
            }
        case .points(let points):
            out = points.enumerated().map { Stop(point: $0.offset, coordinate: $0.element) }
        }
        guard out.count <= RoundPlanner.maxStops else {
            return .failure(RoundError("\(out.count) stops: a round takes at most \(RoundPlanner.maxStops); name the regions (\"regions\":[…])"))
        }
        return .success(out)
    }

    /// `{"class":"ROUND","from":[lat,lon],"exact":…,"length_m":…,"order":[…],"legs":[…]}`:
    /// the order as region ids (or point indices), each leg with its stop, centre, distance
    /// from the one before and initial bearing (degrees from true north).
    public var reply: [UInt8] {
        JSONWriter.object { o in
            o.member("class", "ROUND")
            o.member("from") { Self.write(from, &$0) }
            o.member("stops", legs.count)
            o.member("exact", exact)
            o.member("length_m", length, decimals: 1)
            o.member("order") { w in
                w.array(legs) { w, leg in
                    if let r = leg.region { w.value(r) } else { w.value(leg.point ?? 0) }
                }
            }
            o.member("legs") { w in
                w.array(legs) { w, leg in
                    w.object { o in
                        if let r = leg.region { o.member("region", r) }
                        if let k = leg.kind { o.member("kind", k.rawValue) }
                        o.member("name", ifPresent: leg.name)
                        if let p = leg.point { o.member("point", p) }
                        o.member("at") { Self.write(leg.coordinate, &$0) }
                        o.member("distance_m", leg.distance, decimals: 1)
                        o.member("bearing", leg.bearing, decimals: 1)
                    }
                }
            }
        }
    }

    static func write(_ c: Coordinate, _ w: inout JSONWriter) {
        w.array { a in
            a.value(c.latitude, decimals: 7)
            a.value(c.longitude, decimals: 7)
        }
    }
}

/// Why a round was refused: the message says what to send.
public struct RoundError: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
