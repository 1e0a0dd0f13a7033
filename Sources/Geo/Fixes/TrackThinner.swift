/// Decides which points of a track are worth keeping: the first, then one whenever the receiver
/// has moved `minDistance` metres or `maxInterval` has passed since the last point kept.
///
/// A receiver standing still reports a fix a second that wanders by its error; keeping every one
/// would fill the store with noise. Distance alone would keep nothing while standing, and a track
/// should still say "was here at that time", hence the interval. Both are measured from the last
/// *admitted* point, not the last point seen, so slow creeping is kept once it adds up.
///
/// Time must go forward: a point not after the last admitted one is refused (a receiver that
/// restarted or a log replayed twice must not fold the track back on itself).
///
/// `last` is the state: a daemon restarting sets it from the last stored point (or builds the
/// thinner with `init(last:…)`) and thins exactly as if it had never stopped. `admit` allocates
/// nothing.
public struct TrackThinner: Sendable {
    /// Metres (geodesic) from the last admitted point at which a point is kept.
    public var minDistance: Double
    /// Nanoseconds after the last admitted point at which a point is kept, moved or not.
    public var maxInterval: Int64
    /// The last admitted point; nil before the first, which is always admitted.
    public var last: TrackPoint?

    /// A thinner that has admitted nothing: defaults of 2 m and 30 s.
    public init(minDistance: Double = 2, maxInterval: Int64 = 30 * UTCTime.nanosPerSecond) {
        self.init(last: nil, minDistance: minDistance, maxInterval: maxInterval)
    }

    /// A thinner resuming after `last` (the last stored point; nil: none yet).
    public init(last: TrackPoint?, minDistance: Double = 2, maxInterval: Int64 = 30 * UTCTime.nanosPerSecond) {
        self.minDistance = minDistance
        self.maxInterval = maxInterval
        self.last = last
    }

    /// Whether to keep `p`; when kept, it becomes `last`.
    public mutating func admit(_ p: TrackPoint) -> Bool {
        guard let l = last else {
            last = p
            return true
        }
        guard p.time > l.time else { return false }
        // The interval first: it is a subtraction, the distance a geodesic. A gap too long for
        // Int64 is long enough. A distance that is not a number (a coordinate that is not one)
        // never admits; the interval still does.
        let (gap, overflow) = p.time.nanoseconds.subtractingReportingOverflow(l.time.nanoseconds)
        guard overflow || gap >= maxInterval
            || Geodesic.wgs84.distance(l.coordinate, p.coordinate) >= minDistance else { return false }
        last = p
        return true
    }
}
