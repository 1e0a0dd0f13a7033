import Geo

/// A picture taken inside an album's zone (`treeline capture`): when, where, which album.
public struct Capture: Sendable, Equatable {
    /// Its number in the store.
    public var id: Int64
    /// The album's region id.
    public var album: String
    /// The time of the fix it was taken at.
    public var time: UTCTime
    public var coordinate: Coordinate
    /// The fix's horizontal error, metres.
    public var error: Double
    /// The picture's path, as the camera or the user gave it.
    public var file: String?
    public var note: String?

    public init(id: Int64, album: String, time: UTCTime, coordinate: Coordinate, error: Double, file: String? = nil, note: String? = nil) {
        self.id = id
        self.album = album
        self.time = time
        self.coordinate = coordinate
        self.error = error
        self.file = file
        self.note = note
    }
}
