import Geo
import Regions

/// The region monitor's state of every region, one array per field, all indexed by region and
/// sized together. Arrays rather than an array of structs: a fix touches a few fields of many
/// regions (a bound here, a visit mark there), and the arrays keep those fields dense. Fields
/// always read and written together share an element (`Bound`, `Searched`): each write to an
/// array checks that its buffer is not shared, a call per write.
struct RegionTable: Sendable {
    /// Inside or not, since when, whether its dwell has fired.
    var inside: [Bool]
    var enteredAt: [UTCTime?]
    var dwellDone: [Bool]
    /// The number of the last fix that evaluated the region (to visit each once per fix), and of
    /// the last fix that changed its state (so transit knows the state before this fix).
    var visited: [UInt32]
    var changed: [UInt32]
    /// The number of the last fix that may be inside it: found inside, or not shown outside by a
    /// bound short of the margin. Every region containing a fix evaluated in full is evaluated at
    /// that fix, so transit knows both ends without asking again (not after a quiet fix, which
    /// evaluates only the regions its ball watches).
    var containedAt: [UInt32]
    /// A bound of its signed distance near a recent fix (see `Bound`).
    var bound: [Bound]
    /// Its kind, and for plants the watering interval in nanoseconds (read per fix: kept apart
    /// from `Region`, whose copies cost reference counting).
    let kinds: [RegionKind]
    let wateringInterval: [Int64?]
    /// Plants: when each was last watered, and the watering its last alert was for.
    var lastWatered: [UTCTime?]
    /// The watering its region's file gives (`restore` keeps the later of it and the stored one).
    let wateredInFile: [UTCTime?]
    var alertedFor: [UTCTime?]
    /// Whether its `RegionState` changed since `takeChangedRegions`.
    var stateChanged: [Bool]
    /// A polygon's signed distances where the last two fixes' evaluations computed them (see
    /// `Searched`).
    var searched: [Searched]
    /// Added while the monitor ran (`treatAsNew`), and not yet found inside by evidence nor
    /// outside: its first enter is flagged `initial`.
    var new: [Bool]

    /// Every region outside, never visited, no bound; plants watered as their regions say.
    init(_ regions: RegionSet) {
        let n = regions.count
        inside = Array(repeating: false, count: n)
        enteredAt = Array(repeating: nil, count: n)
        dwellDone = Array(repeating: false, count: n)
        visited = Array(repeating: 0, count: n)
        changed = Array(repeating: 0, count: n)
        containedAt = Array(repeating: 0, count: n)
        bound = Array(repeating: Bound(), count: n)
        kinds = regions.regions.map(\.kind)
        wateringInterval = regions.regions.map { r in
            r.kind == .plant ? r.intervalDays.map { Int64($0) * UTCTime.nanosPerDay } : nil
        }
        lastWatered = regions.regions.map(\.lastWatered)
        wateredInFile = lastWatered
        alertedFor = Array(repeating: nil, count: n)
        stateChanged = Array(repeating: false, count: n)
        new = Array(repeating: false, count: n)
        searched = Array(repeating: Searched(), count: n)
    }

    /// A bound of a region's signed distance at a recent fix `center` (x NaN: none): at least
    /// `value` while the state is inside, at most while outside. The two in one element: they
    /// are read together, and written together at each fix that classifies the region (one
    /// array's write, and its uniqueness check, instead of two).
    struct Bound: Sendable {
        var center = ECEF(x: .nan, y: 0, z: 0)
        var value = 0.0

        /// No bound: the next evaluation classifies the region. (Not `none`, which an optional
        /// `Bound` would take for nil.)
        static let unknown = Bound()
    }

    /// A polygon's signed distance in its plane, as transit's path search measures it
    /// (`approximateSignedDistance`), where a fix's evaluation computed it: `distance` at the fix
    /// numbered `at` and, before that, `before` at `beforeAt` (0: none). Transit takes it at both
    /// ends of its path, and the quiet ball at its centre, rather than compute it again.
    struct Searched: Sendable {
        var at: UInt32 = 0
        var beforeAt: UInt32 = 0
        var distance = 0.0
        var before = 0.0

        /// Keeps `d`, measured at fix number `fix`; the distance kept for an earlier fix moves
        /// to `before`.
        @inline(__always)
        mutating func note(_ d: Double, at fix: UInt32) {
            if at != fix {
                beforeAt = at
                before = distance
                at = fix
            }
            distance = d
        }

        /// The distance at fix number `fix`, if one was kept for it.
        @inline(__always)
        func kept(at fix: UInt32) -> Double? {
            guard fix != 0 else { return nil }  // 0 is no fix: the stamp of a region never measured
            return at == fix ? distance : beforeAt == fix ? before : nil
        }
    }
}
