#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// What a `regions` request asks for: all regions in force (the default), those whose fence's
/// box meets a map's view (`bbox`), or those named (`ids`); at most `limit`; geometry or not,
/// thinned for a zoom. Checked where it is parsed (Protocol); `RegionsInForce.regionsReply`
/// answers it.
public struct RegionsQuery: Sendable, Equatable {
    /// A map's view in degrees: west, south, east, north (GeoJSON's bbox order). West greater
    /// than east is a view across the antimeridian (RFC 7946 §5.2).
    public struct BBox: Sendable, Equatable {
        public var west: Double, south: Double, east: Double, north: Double
        public init(west: Double, south: Double, east: Double, north: Double) {
            self.west = west
            self.south = south
            self.east = east
            self.north = north
        }

        /// One box, or two across the antimeridian (as the fence index takes them).
        public var boxes: (GeoBox, GeoBox?) {
            if west <= east { return (GeoBox(minLat: south, minLon: west, maxLat: north, maxLon: east), nil) }
            return (GeoBox(minLat: south, minLon: west, maxLat: north, maxLon: 180),
                    GeoBox(minLat: south, minLon: -180, maxLat: north, maxLon: east))
        }

        /// Why the box cannot be a view, or nil: every number finite, latitudes in −90…90 with
        /// south ≤ north, longitudes in −180…180.
        public var problem: String? {
            guard [west, south, east, north].allSatisfy(\.isFinite) else { return "its four numbers must be finite" }
            guard abs(south) <= 90, abs(north) <= 90 else { return "south and north must be latitudes, −90 to 90" }
            guard abs(west) <= 180, abs(east) <= 180 else { return "west and east must be longitudes, −180 to 180" }
            guard south <= north else { return "south is north of north" }
            return nil
        }
    }

    /// The most regions one answer may hold (`limit`'s bound).
    public static let maxLimit = 10_000
    /// The cap of an answer with `bbox` and no `limit`.
    public static let defaultViewLimit = 2_000
    /// The most ids one request may name.
    public static let maxIDs = 1_000

    public var geometry: Bool
    public var bbox: BBox?
    /// Thin polygon rings to a pixel at this zoom (0…`RingSimplifier.maxZoom`); nil: as given.
    public var zoom: Int?
    /// At most this many regions (1…`maxLimit`); nil: all, or `defaultViewLimit` with `bbox`.
    public var limit: Int?
    /// Only these regions (each once, 1…`maxIDs`).
    public var ids: [String]?

    public init(geometry: Bool = false, bbox: BBox? = nil, zoom: Int? = nil, limit: Int? = nil, ids: [String]? = nil) {
        self.geometry = geometry
        self.bbox = bbox
        self.zoom = zoom
        self.limit = limit
        self.ids = ids
    }

    /// The cap applied: `limit`, else `defaultViewLimit` for a view, else none.
    public var cap: Int? { limit ?? (bbox == nil ? nil : Self.defaultViewLimit) }

    /// Whether the answer says how many matched (`total`, `truncated`): when it may be cut.
    public var counts: Bool { cap != nil }
}

/// The regions a query picks, in the set's order: all that match when they fit the cap; else
/// those with the largest boxes (what a map shows at a zoom that cannot show them all), the
/// earlier on a tie. Pure, over the fence index for a view.
public struct RegionsSelection: Sendable, Equatable {
    /// Indices into the set, ascending.
    public var indices: [Int]
    /// How many matched before the cap.
    public var total: Int
    /// Ids asked for that are not in force.
    public var missing: [String]
    /// The box around every region matched (before the cap), nil when none: where a map shows
    /// them all. Across the antimeridian it may span every longitude.
    public var bounds: GeoBox?

    public var truncated: Bool { indices.count < total }

    public init(_ query: RegionsQuery, in set: RegionSet) {
        missing = []
        bounds = nil
        let cap = query.cap ?? Int.max
        if let ids = query.ids {
            var matched: [Int] = []
            var seen: Set<Int> = []
            for id in ids {
                guard let i = set.index(ofID: id) else {
                    missing.append(id)
                    continue
                }
                if let bbox = query.bbox, !Self.meets(set.boxes[i], bbox.boxes) { continue }
                if seen.insert(i).inserted { matched.append(i) }
            }
            total = matched.count
            if query.counts { bounds = Self.union(matched.lazy.flatMap { set.boxes[$0] }) }
            indices = matched.count > cap ? Self.largest(cap, among: Set(matched), in: set) : matched.sorted()
        } else if let bbox = query.bbox, !Self.covers(bbox.boxes, set.bounds) {
            // Part of the set: the fence index finds what meets the view.
            var matched: [Int] = []
            set.forEachRegion(in: bbox.boxes) { matched.append($0) }
            total = matched.count
            if query.counts { bounds = Self.union(matched.lazy.flatMap { set.boxes[$0] }) }
            indices = matched.count > cap ? Self.largest(cap, meeting: bbox.boxes, in: set) : matched.sorted()
        } else {
            // Every region (no view, or a view around them all): the largest are the first of
            // the set's order by size, with no search at all.
            total = set.count
            bounds = query.counts ? set.bounds : nil
            indices = total > cap ? set.bySize.prefix(cap).map { Int($0) }.sorted() : Array(set.regions.indices)
        }
    }

    /// The regions by size (largest first, the earlier on a tie) and the box around them all,
    /// worked out once per set (`RegionSet.init`).
    public static func sizes(_ boxes: FenceBoxes) -> (bySize: [Int32], bounds: GeoBox?) {
        let size = boxes.map(extent)
        var order = Array(0..<Int32(boxes.count))
        order.sort { size[Int($0)] != size[Int($1)] ? size[Int($0)] > size[Int($1)] : $0 < $1 }
        return (order, union(boxes.lazy.flatMap { $0 }))
    }

    /// The `cap` largest regions meeting the view: the set's order by size, walked until `cap`
    /// are found (the view holds more than `cap`, so a large view stops early), ascending.
    static func largest(_ cap: Int, meeting view: (GeoBox, GeoBox?), in set: RegionSet) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(cap)
        for i in set.bySize where meets(set.boxes[Int(i)], view) {
            out.append(Int(i))
            if out.count == cap { break }
        }
        return out.sorted()
    }

    /// The `cap` largest of `among` (named regions), ascending.
    static func largest(_ cap: Int, among: Set<Int>, in set: RegionSet) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(cap)
        for i in set.bySize where among.contains(Int(i)) {
            out.append(Int(i))
            if out.count == cap { break }
        }
        return out.sorted()
    }

    /// Whether the view holds all of `bounds` (a view across the antimeridian is not asked).
    static func covers(_ view: (GeoBox, GeoBox?), _ bounds: GeoBox?) -> Bool {
        guard let bounds else { return true }
        return view.1 == nil && view.0.contains(bounds)
    }

    static func union(_ boxes: some Sequence<GeoBox>) -> GeoBox? {
        var u: GeoBox?
        for b in boxes {
            guard let v = u else { u = b; continue }
            u = GeoBox(minLat: min(v.minLat, b.minLat), minLon: min(v.minLon, b.minLon), maxLat: max(v.maxLat, b.maxLat), maxLon: max(v.maxLon, b.maxLon))
        }
        return u
    }

    static func meets(_ boxes: some Collection<GeoBox>, _ view: (GeoBox, GeoBox?)) -> Bool {
        boxes.contains { $0.intersects(view.0) || (view.1.map($0.intersects) ?? false) }
    }

    /// The squared diagonal of a region's boxes, in degrees of latitude.
    static func extent(_ boxes: some Collection<GeoBox>) -> Double {
        var d = 0.0
        for b in boxes {
            let k = cos((b.minLat + b.maxLat) / 2 * Double.pi / 180)
            let w = (b.maxLon - b.minLon) * k, h = b.maxLat - b.minLat
            d += w * w + h * h
        }
        return d
    }
}
