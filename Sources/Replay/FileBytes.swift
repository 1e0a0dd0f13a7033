#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// Reads whole small files (regions, configs, point lists); `-` is standard input.
public enum FileBytes {
    public static func read(_ path: String, what: String) throws(LogFileError) -> [UInt8] {
        let file: LogFile
        do {
            file = try LogFile(path: path)
        } catch {
            throw error.renamed(what)
        }
        var bytes: [UInt8] = []
        do {
            try file.forEachChunk { bytes.append(contentsOf: $0) }
        } catch {
            throw error.renamed(what)
        }
        return bytes
    }
}

/// Reads and parses a regions file and builds its fence index.
public enum RegionLoader {
    public enum Failure: Error, CustomStringConvertible {
        case unreadable(LogFileError)
        case invalid(RegionFileError)
        public var description: String {
            switch self {
            case let .unreadable(e): return e.description
            case let .invalid(e): return e.description
            }
        }
    }

    public static func load(_ path: String, crs: String? = nil, requirements: RegionFile.Requirements = .full) throws(Failure) -> RegionSet {
        try load([path], crs: crs, requirements: requirements)
    }

    /// Several regions files as one set (e.g. one drawn in WGS84 and one in a national CRS);
    /// ids must be unique across them.
    public static func load(_ paths: [String], crs: String? = nil, requirements: RegionFile.Requirements = .full) throws(Failure) -> RegionSet {
        var all: [Region] = []
        var issues: [RegionIssue] = []
        var firstFile: [String: String] = [:]
        for path in paths {
            let bytes: [UInt8]
            do { bytes = try FileBytes.read(path, what: "regions file") } catch { throw .unreadable(error) }
            do {
                let regions = try RegionFile.parse(bytes, file: path, crs: crs, requirements: requirements)
                for (k, r) in regions.enumerated() {
                    if let other = firstFile[r.id] {
                        issues.append(RegionIssue(file: path, feature: k, id: r.id, line: nil, column: nil,
                                                  message: "duplicate id: \(other) has a region with the same id"))
                    } else {
                        firstFile[r.id] = path
                    }
                }
                all += regions
            } catch {
                issues += error.issues
            }
        }
        if !issues.isEmpty { throw .invalid(RegionFileError(issues: issues)) }
        return RegionSet(all)
    }
}
