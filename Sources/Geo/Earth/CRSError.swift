import CPROJ

/// Why a coordinate reference system could not be used.
public struct CRSError: Error, Equatable, CustomStringConvertible {
    /// The CRS name as given.
    public var crs: String
    /// What was wrong with it, from PROJ where PROJ said.
    public var reason: String
    /// The problem for the user, with an example of a name that works.
    public var description: String { "unknown CRS '\(crs)': \(reason); give an EPSG code such as EPSG:3763" }
}
