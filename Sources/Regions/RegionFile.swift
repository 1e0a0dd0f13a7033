import Geo
import Synchronization
import JSON

/// Reads a regions file: a GeoJSON (RFC 7946) FeatureCollection whose features are fences.
///
/// Each feature is a Polygon, MultiPolygon, or Point with `properties.radius_m`, and has
/// `properties.id` (unique), `kind` (`reforestation`, `plant` or `album`), `name`, and what the
/// kind needs: plants `interval_days` (1–365) and optionally `last_watered` (ISO 8601; a plant
/// never watered is due now), reforestation areas a `species` list. Albums without a radius get
/// 150 m, plants 30 m. Any feature may have a `note` and a `project` (strings).
///
/// Coordinates are WGS84 longitude/latitude unless the file has a top-level `"crs"` (a string
/// such as `"EPSG:3763"`, or the 2008 GeoJSON form `{"type":"name","properties":{"name":…}}`)
/// or the caller passes one; then PROJ transforms them.
///
/// Every problem is reported, not just the first, each naming the file, the feature's index and
/// id, and the reason; a file with any problem is refused as a whole.
public enum RegionFile {
    /// What a parse requires. `geometryOnly` still checks ids, kinds and every geometry rule, but
    /// not the kind-specific properties (for fence sets made for other tools, e.g. benchmarks).
    public enum Requirements: Sendable {
        case full
        case geometryOnly
    }

    /// Parses a regions file into its regions, in feature order. `file` names the file in issues;
    /// `override`, when given, is the CRS of the coordinates instead of the file's `crs`. Throws
    /// `RegionFileError` with every problem found.
    /// `parallel`: false keeps the reading on the calling thread (a reload that must leave the
    /// other cores to the fixes).
    public static func parse(_ bytes: [UInt8], file: String, crs override: String? = nil,
                             requirements: Requirements = .full, parallel: Bool = true) throws(RegionFileError) -> [Region] {
        let outcome = bytes.withUnsafeBufferPointer { b in
            Result { () throws(RegionFileError) in try parse(b, file: file, crs: override, requirements: requirements, parallel: parallel) }
        }
        return try outcome.get()
    }

    /// The same, from text the caller keeps alive (a mapped file) until this returns.
    ///
    /// The features are parsed one at a time, each into its own small document that is let go
    /// once its region is made, never the whole file's tree (for 100,000 fences that tree and its
    /// positions outweighed the regions). `done(range)` is told of each stretch of text once it
    /// has been read (a mapped file gives those pages back; the text may be read again). A
    /// text with a syntax error, or whose top level is not a FeatureCollection, is read again
    /// whole, to report the first error with its line and column exactly as a single reading
    /// finds it.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, file: String, crs override: String? = nil,
                             requirements: Requirements = .full, parallel: Bool = true,
                             done: (Range<Int>) -> Void = { _ in }) throws(RegionFileError) -> [Region] {
        var regions: [Region] = []
        if let whole = try read(bytes, file: file, crs: override, requirements: requirements, parallel: parallel, done: done,
                                count: { regions.reserveCapacity($0) }, each: { regions.append($0) }) {
            return whole
        }
        return regions
    }

    /// The same, handing the regions over a block at a time as they are read, none kept: for a
    /// reader that needs each region once (`treeline where --at`). The ids are checked across
    /// the whole file all the same; a file with a problem throws at the end, after blocks have
    /// been handed over, so the caller must use what it made of them only once this returns.
    public static func forEachBlock(_ bytes: UnsafeBufferPointer<UInt8>, file: String, crs override: String? = nil,
                                    requirements: Requirements = .full, done: (Range<Int>) -> Void = { _ in },
                                    _ body: ([Region]) -> Void) throws(RegionFileError) {
        var block: [Region] = []
        block.reserveCapacity(Cores.block)
        var handed = false
        let whole = try read(bytes, file: file, crs: override, requirements: requirements, parallel: true, done: done,
                             count: { _ in },
                             each: { region in
                                 block.append(region)
                                 if block.count == Cores.block {
                                     body(block)
                                     handed = true
                                     block.removeAll(keepingCapacity: true)
                                 }
                             })
        if let whole {
            // Read again whole after a feature that was not JSON, which reads as JSON now: the
            // text changed under the reading (a file rewritten in place), and blocks went out.
            guard !handed else {
                throw RegionFileError(issues: [RegionIssue(file: file, feature: nil, id: nil, line: nil, column: nil,
                                                           message: "the file changed while it was read: read it again once it is written")])
            }
            for start in stride(from: 0, to: whole.count, by: Cores.block) { body(Array(whole[start..<min(whole.count, start + Cores.block)])) }
            return
        }
        if !block.isEmpty { body(block) }
    }

    /// Reads the features one by one, handing each region to `each` in order (after `count`, the
    /// number of features). Returns the regions of a whole reading instead (none having gone to
    /// `each`) when the text is read as one document.
    private static func read(_ bytes: UnsafeBufferPointer<UInt8>, file: String, crs override: String?,
                             requirements: Requirements, parallel: Bool, done: (Range<Int>) -> Void,
                             count: (Int) -> Void, each: (Region) -> Void) throws(RegionFileError) -> [Region]? {
        guard let collection = FeatureCollectionScan(bytes, done: done) else {
            return try parseWhole(bytes, file: file, crs: override, requirements: requirements, parallel: parallel)
        }
        // A CRS that cannot be used is reported by the whole reading, after any syntax error.
        guard let (transform, crs) = try? Self.crs(override: override, root: collection.root, file: file) else {
            return try parseWhole(bytes, file: file, crs: override, requirements: requirements, parallel: parallel)
        }
        let parallel = parallel && transform == nil
        let features = collection.features
        count(features.count)
        var issues: [RegionIssue] = []
        var firstIndexOfID: [String: Int] = [:]
        firstIndexOfID.reserveCapacity(features.count)
        // Once a feature is not JSON the whole text is read again: the features after it are
        // not parsed (a file of many broken features would otherwise be read twice over), nor
        // taken.
        let unreadable = Atomic<Bool>(false)
        Cores.inOrder(features.count, parallel: parallel) { index -> (Region?, String?, [RegionIssue])? in
            // At the depth of a feature in the whole text (the root object, its array).
            guard !unreadable.load(ordering: .relaxed), let doc = JSONDocument.value(in: bytes, range: features[index], depth: 2) else {
                unreadable.store(true, ordering: .relaxed)
                return nil
            }
            var context = FeatureContext(file: file, index: index, id: nil)
            var own: [RegionIssue] = []
            let region = Self.region(doc.root, doc: doc, transform: transform, crs: crs, requirements: requirements,
                                     context: &context, issues: &own)
            return (region, context.id, own)
        } take: { index, read in
            // A block is taken once all of it is made: the flag is final for it here.
            guard !unreadable.load(ordering: .relaxed), let (region, id, own) = read else { return }
            if let region = Self.take(region, id: id, issues: own, index: index, file: file, &issues, &firstIndexOfID), issues.isEmpty {
                each(region)
            }
            if (index + 1) % Cores.block == 0 || index + 1 == features.count {
                done(features[index / Cores.block * Cores.block].lowerBound..<features[index].upperBound)
            }
        }
        // A feature that is not JSON makes the whole text not JSON: the whole reading words it
        // (and gives no regions).
        if unreadable.load(ordering: .relaxed) { return try parseWhole(bytes, file: file, crs: override, requirements: requirements, parallel: parallel) }
        if !issues.isEmpty { throw RegionFileError(issues: issues) }
        return nil
    }

    /// One feature's outcome, in file order: its issues, its id's uniqueness, its region.
    private static func take(_ region: Region?, id: String?, issues own: [RegionIssue], index: Int, file: String,
                             _ issues: inout [RegionIssue], _ firstIndexOfID: inout [String: Int]) -> Region? {
        issues.append(contentsOf: own)
        if let id {
            if let first = firstIndexOfID[id] {
                issues.append(FeatureContext(file: file, index: index, id: id).issue("duplicate id: feature \(first) has the same id"))
            } else {
                firstIndexOfID[id] = index
            }
        }
        return region
    }

    /// The coordinate reference system: the caller's, else the file's, else WGS84; and the
    /// transform to WGS84 when it is another.
    private static func crs(override: String?, root: JSONValue, file: String) throws(RegionFileError) -> (CRSTransform?, String?) {
        var crsName = override
        if crsName == nil, let crs = root["crs"] {
            switch crs {
            case let .string(s): crsName = s
            case .object:
                guard let name = crs["properties"]?["name"]?.string else {
                    throw fileIssue(file, "\"crs\" must be a string such as \"EPSG:3763\" or {\"type\":\"name\",\"properties\":{\"name\":…}}")
                }
                crsName = name
            default:
                throw fileIssue(file, "\"crs\" must be a string such as \"EPSG:3763\", not \(crs.typeName)")
            }
        }
        guard let name = crsName, !Self.isWGS84(name) else { return (nil, crsName) }
        do {
            return (try CRSTransform(from: Self.normalizedCRS(name)), crsName)
        } catch {
            throw fileIssue(file, error.description)
        }
    }

    private static func fileIssue(_ file: String, _ message: String, line: Int? = nil, column: Int? = nil) -> RegionFileError {
        RegionFileError(issues: [RegionIssue(file: file, feature: nil, id: nil, line: line, column: column, message: message)])
    }

    /// The file as one JSON document, then its features: the reading that finds and words the
    /// first syntax error, and the top level's problems.
    static func parseWhole(_ bytes: UnsafeBufferPointer<UInt8>, file: String, crs override: String?,
                           requirements: Requirements, parallel: Bool) throws(RegionFileError) -> [Region] {
        let doc: JSONDocument
        do {
            doc = try JSONDocument.parse(bytes)
        } catch {
            throw fileIssue(file, "not JSON: \(error.message)", line: error.line, column: error.column)
        }
        guard case .object = doc.root else { throw fileIssue(file, "the top level is \(doc.root.typeName), not a GeoJSON FeatureCollection object") }
        guard doc.root["type"]?.string == "FeatureCollection" else {
            throw fileIssue(file, "\"type\" must be \"FeatureCollection\" (a regions file is a FeatureCollection of fences)")
        }
        guard case let .array(features)? = doc.root["features"] else {
            throw fileIssue(file, "\"features\" must be an array of Feature objects")
        }
        let (transform, crs) = try Self.crs(override: override, root: doc.root, file: file)
        var issues: [RegionIssue] = []
        var regions: [Region] = []
        regions.reserveCapacity(features.count)
        var firstIndexOfID: [String: Int] = [:]
        firstIndexOfID.reserveCapacity(features.count)
        // Each feature is read and checked on its own, so a block of them goes across the cores
        // (not with a PROJ transform, which is one thread's); the ids and the issues are then
        // taken in file order, as one at a time would.
        let parallel = parallel && transform == nil
        Cores.inOrder(features.count, parallel: parallel) { index in
            var context = FeatureContext(file: file, index: index, id: nil)
            var own: [RegionIssue] = []
            let region = Self.region(features[index], doc: doc, transform: transform, crs: crs, requirements: requirements,
                                     context: &context, issues: &own)
            return (region, context.id, own)
        } take: { index, read in
            if let region = Self.take(read.0, id: read.1, issues: read.2, index: index, file: file, &issues, &firstIndexOfID) {
                regions.append(region)
            }
        }
        if !issues.isEmpty { throw RegionFileError(issues: issues) }
        return regions
    }

    /// One Feature given on its own (a region added at runtime), WGS84, checked by the same rules
    /// as a file's; `source` names it in issues (e.g. "add_region"). `feature` is a value of `doc`.
    /// With `idOptional`, a Feature without `properties.id` gives a region whose id is "" (for
    /// the caller to name).
    public static func feature(_ feature: JSONValue, in doc: JSONDocument, source: String, idOptional: Bool = false) throws(RegionFileError) -> Region {
        var issues: [RegionIssue] = []
        var context = FeatureContext(file: source, index: 0, id: nil)
        let region = Self.region(feature, doc: doc, transform: nil, crs: nil, requirements: .full, idOptional: idOptional,
                                 context: &context, issues: &issues)
        if let region, issues.isEmpty { return region }
        throw RegionFileError(issues: issues)
    }

    static func isWGS84(_ name: String) -> Bool {
        let n = name.uppercased()
        return n == "EPSG:4326" || n == "OGC:CRS84" || n == "URN:OGC:DEF:CRS:OGC:1.3:CRS84" || n == "CRS84"
            || n == "URN:OGC:DEF:CRS:EPSG::4326" || n == "WGS84"
    }

    /// `urn:ogc:def:crs:EPSG::3763` → `EPSG:3763`; other names go to PROJ as they are.
    static func normalizedCRS(_ name: String) -> String {
        let prefix = "urn:ogc:def:crs:epsg::"
        if name.lowercased().hasPrefix(prefix) { return "EPSG:" + name.dropFirst(prefix.count) }
        return name
    }

    struct FeatureContext {
        var file: String
        var index: Int
        var id: String?
        func issue(_ message: String) -> RegionIssue {
            RegionIssue(file: file, feature: index, id: id, line: nil, column: nil, message: message)
        }
    }

    static func region(_ feature: JSONValue, doc: JSONDocument, transform: CRSTransform?, crs: String?,
                       requirements: Requirements, idOptional: Bool = false, context: inout FeatureContext, issues: inout [RegionIssue]) -> Region? {
        guard case .object = feature, feature["type"]?.string == "Feature" else {
            issues.append(context.issue("not a GeoJSON Feature object (\"type\":\"Feature\")"))
            return nil
        }
        guard let properties = feature["properties"], case .object = properties else {
            issues.append(context.issue("has no \"properties\" object (it needs at least id and kind)"))
            return nil
        }
        let start = issues.count
        let p = Self.properties(properties, requirements: requirements, idOptional: idOptional, context: &context, issues: &issues)
        guard let geometry = feature["geometry"], case .object = geometry else {
            issues.append(context.issue("has no geometry object"))
            return nil
        }
        let shape = Self.shape(geometry, properties: properties, kind: p.kind, doc: doc, transform: transform, crs: crs,
                               context: context, issues: &issues)
        guard issues.count == start, let shape, let kind = p.kind else { return nil }
        return Region(id: p.id, kind: kind, name: p.name, shape: shape, intervalDays: p.intervalDays, lastWatered: p.lastWatered,
                      species: p.species, priority: p.priority, note: p.note, project: p.project)
    }

    static func shape(_ geometry: JSONValue, properties: JSONValue, kind: RegionKind?, doc: JSONDocument, transform: CRSTransform?,
                      crs: String?, context: FeatureContext, issues: inout [RegionIssue]) -> Shape? {
        let type = geometry["type"]?.string ?? "(none)"
        guard case let .coordinates(tree)? = geometry["coordinates"] else {
            issues.append(context.issue(geometry["coordinates"] == nil ? "geometry has no coordinates array"
                : "geometry coordinates must be nested arrays of numbers, positions as [longitude, latitude]"))
            return nil
        }
        let reader = GeometryReader(doc: doc, transform: transform, crs: crs)
        var problems: [String] = []
        defer { issues += problems.map(context.issue) }
        switch type {
        case "Point":
            return circle(tree, properties: properties, kind: kind, reader: reader, problems: &problems)
        case "Polygon":
            guard let p = reader.polygon(tree, where: "Polygon", problems: &problems) else { return nil }
            return Self.checked(.polygons(Polygons([p])), context: context, issues: &issues)
        case "MultiPolygon":
            guard case let .list(parts) = tree, !parts.isEmpty else {
                problems.append("a MultiPolygon's coordinates must be an array of polygons")
                return nil
            }
            var out: [[[Coordinate]]] = []
            for (k, part) in parts.enumerated() {
                if let p = reader.polygon(part, where: "MultiPolygon part \(k + 1)", problems: &problems) { out.append(p) }
            }
            guard out.count == parts.count else { return nil }
            return Self.checked(.polygons(Polygons(out)), context: context, issues: &issues)
        default:
            problems.append("geometry type \(type) is not a fence (use Polygon, MultiPolygon, or Point with radius_m)")
            return nil
        }
    }

    /// A Point fence: its position and `radius_m` (plants and albums have a default radius).
    static func circle(_ tree: CoordinateTree, properties: JSONValue, kind: RegionKind?, reader: GeometryReader,
                       problems: inout [String]) -> Shape? {
        guard case let .position(index, numbers) = tree else {
            problems.append("a Point's coordinates must be one position [longitude, latitude]")
            return nil
        }
        let center: Coordinate
        do { center = try reader.point(index, numbers, where: "Point") } catch {
            problems.append(error.message)
            return nil
        }
        switch properties["radius_m"] {
        case let .number(r)?:
            guard Region.radiusLimits.contains(r) else {
                problems.append("radius_m must be from \(Wording.number(Region.radiusLimits.lowerBound)) to \(Wording.number(Region.radiusLimits.upperBound)) metres, not \(Wording.number(r))")
                return nil
            }
            return .circle(center: center, radius: r)
        case nil:
            switch kind {
            case .album?: return .circle(center: center, radius: Region.defaultAlbumRadius)
            case .plant?: return .circle(center: center, radius: Region.defaultPlantRadius)
            case .reforestation?: problems.append("a Point fence needs radius_m (metres, more than 0)")
            case nil: break  // the unknown kind is reported already
            }
            return nil
        default:
            problems.append("radius_m must be a number of metres")
            return nil
        }
    }

    /// Geometry checks that need the whole polygon: poles, size, self-intersection, holes.
    static func checked(_ shape: Shape, context: FeatureContext, issues: inout [RegionIssue]) -> Shape? {
        guard case let .polygons(parts) = shape else { return shape }
        let problems = PolygonCheck.problems(parts)
        if problems.isEmpty { return shape }
        for p in problems { issues.append(context.issue(p)) }
        return nil
    }
}
