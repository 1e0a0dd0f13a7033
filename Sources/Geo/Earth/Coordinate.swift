/// A WGS84 position in degrees: latitude positive north, longitude positive east.
public struct Coordinate: Sendable, Hashable {
    /// Degrees north, −90…90.
    public var latitude: Double
    /// Degrees east, −180…180.
    public var longitude: Double

    /// A position from degrees, unchecked (see `isValid`).
    @inlinable
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// True when both values are finite and within [-90, 90] × [-180, 180].
    @inlinable
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && abs(latitude) <= 90 && abs(longitude) <= 180
    }
}
