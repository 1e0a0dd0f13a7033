import Geo
import JSON
import Regions

/// Reads a POI file: a GeoJSON FeatureCollection of `Point` features, each with `properties.id`
/// (a unique non-empty string) and optionally `name` (a string, default the id) and `priority`
/// (a number, default 0). Coordinates are WGS84 `[longitude, latitude]`. Every problem is
/// reported with the file, the feature's index and id.
public enum POIFile {
    /// Parses a POI file into its POIs, in feature order; `file` names the file in issues. Throws
    /// `POIFileError` with every problem found.
    public static func parse(_ bytes: [UInt8], file: String) throws(POIFileError) -> [POI] {
        func fileIssue(_ message: String, line: Int? = nil, column: Int? = nil) -> POIFileError {
            POIFileError(issues: [RegionIssue(file: file, feature: nil, id: nil, line: line, column: column, message: message)])
        }
        let doc: JSONDocument
        do {
            doc = try JSONDocument.parse(bytes)
        } catch {
            throw fileIssue("not JSON: \(error.message)", line: error.line, column: error.column)
        }
        guard case .object = doc.root, doc.root["type"]?.string == "FeatureCollection" else {
            throw fileIssue("a POI file is a GeoJSON object with \"type\":\"FeatureCollection\"")
        }
        guard case let .array(features)? = doc.root["features"] else {
            throw fileIssue("\"features\" must be an array of Point features")
        }
        if let crs = doc.root["crs"] {
            let name = crs.string ?? crs["properties"]?["name"]?.string ?? ""
            let n = name.uppercased()
            if !(n == "EPSG:4326" || n == "WGS84" || n.hasSuffix("CRS84") || n.hasSuffix("EPSG::4326")) {
                throw fileIssue("POI coordinates must be WGS84 longitude/latitude (\"crs\" is \"\(name)\"); a regions file with --regions can be in another CRS")
            }
        }
        var issues: [RegionIssue] = []
        var pois: [POI] = []
        var firstIndex: [String: Int] = [:]
        for (index, feature) in features.enumerated() {
            var id: String?
            func issue(_ message: String) { issues.append(RegionIssue(file: file, feature: index, id: id, message: message)) }
            guard case .object = feature, feature["type"]?.string == "Feature" else {
                issue("not a GeoJSON Feature object (\"type\":\"Feature\")")
                continue
            }
            guard let properties = feature["properties"], case .object = properties else {
                issue("has no \"properties\" object (a POI needs at least properties.id)")
                continue
            }
            let before = issues.count
            switch properties["id"] {
            case let .string(s)? where !s.isEmpty: id = s
            case nil: issue("properties.id is missing")
            default: issue("properties.id must be a non-empty string")
            }
            if let id {
                if let first = firstIndex[id] { issue("duplicate id: feature \(first) has the same id") } else { firstIndex[id] = index }
            }
            var name: String?
            if let n = properties["name"] {
                if let s = n.string { name = s } else if case .null = n {} else { issue("properties.name must be a string") }
            }
            var priority = 0.0
            if let p = properties["priority"] {
                if let v = p.number, v.isFinite { priority = v } else if case .null = p {} else { issue("properties.priority must be a number (higher comes first)") }
            }
            var coordinate: Coordinate?
            let geometry = feature["geometry"]
            let type = geometry?["type"]?.string
            if type != "Point" {
                issue(type.map { "geometry type \($0) is not a POI: use a Point [longitude, latitude] (areas go in a regions file, read with --regions)" }
                    ?? "has no Point geometry ({\"type\":\"Point\",\"coordinates\":[longitude, latitude]})")
            } else if case let .coordinates(.position(i, numbers))? = geometry?["coordinates"], numbers == 2 || numbers == 3 {
                let (lon, lat) = doc.position(i)
                if abs(lon) <= 180, abs(lat) <= 90 {
                    coordinate = Coordinate(latitude: lat, longitude: lon)
                } else {
                    issue("coordinates out of range (longitude \(lon), latitude \(lat); longitude comes first, within ±180, latitude within ±90)")
                }
            } else {
                issue("a Point's coordinates must be one position [longitude, latitude]")
            }
            if issues.count == before, let id, let coordinate {
                pois.append(POI(id: id, name: name, coordinate: coordinate, priority: priority))
            }
        }
        if !issues.isEmpty { throw POIFileError(issues: issues) }
        return pois
    }
}
