import Geo
import JSON

/// The replies that list the regions in force: `regions` and `export` (and the web app's
/// regions layer), written from what the monitor holds at one moment. Pure: the engine hands
/// over its snapshot and these run beside it, not on it.
public struct RegionsInForce: Sendable {
    /// Both layers, base first.
    public var set: RegionSet
    /// How many of them come from the regions files (the rest from the database).
    public var baseCount: Int
    /// Per region, whether the last fix is inside.
    public var inside: [Bool]
    /// Per region, its last watering as the monitor has it (nil: never, or not a plant).
    public var lastWatered: [UTCTime?]
    /// The last fix the monitor used, if any.
    public var at: TrackPoint?
    /// The time "due" is reckoned at: the last fix's, else the clock's.
    public var now: UTCTime

    public init(set: RegionSet, baseCount: Int, inside: [Bool], lastWatered: [UTCTime?], at: TrackPoint?, now: UTCTime) {
        self.set = set
        self.baseCount = baseCount
        self.inside = inside
        self.lastWatered = lastWatered
        self.at = at
        self.now = now
    }

    public func layer(_ i: Int) -> String { i < baseCount ? "base" : "user" }

    /// Whether plant `i` is due for watering now (never watered: due); nil for a region that is
    /// not a plant with an interval.
    public func isDue(_ i: Int) -> Bool? {
        guard let days = set.regions[i].intervalDays, set.regions[i].kind == .plant else { return nil }
        guard let w = lastWatered[i] else { return true }
        return Self.due(w, days: days) <= now
    }

    /// When a plant watered at `w` is due again (see `UTCTime.advanced(byNanoseconds:)`).
    static func due(_ w: UTCTime, days: Int) -> UTCTime { w.advanced(byNanoseconds: Int64(days) * UTCTime.nanosPerDay) }

    /// `{"class":"REGIONS","regions":[…]}`: each region in force with its layer, inside or not,
    /// its signed distance from the last fix (`distance_m`, positive inside), and what its kind
    /// needs (plants: interval, last watered, next due, `due`); with `geometry`, its GeoJSON geometry.
    public func regionsReply(geometry: Bool) -> [UInt8] { regionsReply(RegionsQuery(geometry: geometry)) }

    /// The same for a view (`bbox`), named regions (`ids`), at most `limit`, geometry thinned
    /// for `zoom`. A capped query adds `total` (how many matched), `truncated` and `bounds`
    /// (`[west, south, east, north]` around all matched); one with `ids`, `missing` (those not
    /// in force).
    public func regionsReply(_ query: RegionsQuery) -> [UInt8] {
        let picked = RegionsSelection(query, in: set)
        var scratch = RingSimplifier.Scratch()
        return JSONWriter.object { o in
            o.member("class", "REGIONS")
            if let at { o.member("at", raw: { at.appendJSON(to: &$0) }) }
            o.member("regions") { w in
                w.array(picked.indices) { w, i in
                    w.object { item(i, geometry: query.geometry, zoom: query.zoom, scratch: &scratch, &$0) }
                }
            }
            if query.counts {
                o.member("total", picked.total)
                o.member("truncated", picked.truncated)
                if let b = picked.bounds {
                    o.member("bounds") { w in
                        w.array([b.minLon, b.minLat, b.maxLon, b.maxLat]) { $0.value($1, decimals: 7) }
                    }
                }
            }
            if query.ids != nil { o.member("missing") { $0.array(picked.missing) { $0.value($1) } } }
        }
    }

    /// One region's members in `regions`.
    func item(_ i: Int, geometry: Bool, zoom: Int? = nil, scratch: inout RingSimplifier.Scratch, _ o: inout JSONWriter) {
        let r = set.regions[i]
        o.member("id", r.id)
        o.member("kind", r.kind.rawValue)
        o.member("name", r.name)
        o.member("layer", layer(i))
        o.member("inside", inside[i])
        if let at { o.member("distance_m", set.signedDistance(i, at.coordinate), decimals: 1) }
        if case let .circle(_, radius) = r.shape { o.member("radius_m", radius, decimals: 1) }
        if r.kind == .plant, let days = r.intervalDays {
            o.member("interval_days", days)
            if let w = lastWatered[i] {
                let due = Self.due(w, days: days)
                o.member("last_watered", w.iso8601)
                o.member("next_due", due.iso8601)
                o.member("due_in_s", due.wholeSeconds(since: now))
            }
            o.member("due", isDue(i) ?? true)
            if let one = r.species.first { o.member("species", one) }
        }
        if r.kind == .reforestation && !r.species.isEmpty {
            o.member("species") { $0.array(r.species) { $0.value($1) } }
        }
        o.member("note", ifPresent: r.note)
        o.member("project", ifPresent: r.project)
        guard geometry else { return }
        if let zoom {
            // Thinned to a pixel, and written to a tenth of one (in degrees of longitude).
            var thinned = r
            thinned.shape = RingSimplifier.simplify(r.shape, zoom: zoom, scratch: &scratch)
            let decimals = RingSimplifier.decimals(zoom: zoom)
            o.member("geometry", raw: { thinned.appendGeometry(to: &$0, decimals: decimals) })
        } else {
            o.member("geometry", raw: { r.appendGeometry(to: &$0) })
        }
    }

    /// Both layers as a regions file (`{"class":"EXPORT","type":"FeatureCollection",…}`), plants
    /// with their last watering as the monitor has it: loaded back as a file, nothing is lost.
    public func exportReply() -> [UInt8] {
        JSONWriter.object { o in
            o.member("class", "EXPORT")
            features(&o)
        }
    }

    /// The same without its class: the web app's regions layer.
    public func featureCollection() -> [UInt8] {
        JSONWriter.object { features(&$0) }
    }

    func features(_ o: inout JSONWriter) {
        o.member("type", "FeatureCollection")
        o.member("features") { w in
            w.array(set.regions.indices) { w, i in
                w.raw { set.regions[i].appendFeature(to: &$0, lastWatered: .some(lastWatered[i])) }
            }
        }
    }
}
