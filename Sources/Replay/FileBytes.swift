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
        let bytes: [UInt8]
        do { bytes = try FileBytes.read(path, what: "regions file") } catch { throw .unreadable(error) }
        do { return RegionSet(try RegionFile.parse(bytes, file: path, crs: crs, requirements: requirements)) } catch { throw .invalid(error) }
    }
}
