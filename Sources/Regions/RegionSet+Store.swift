import Geo
import JSON

/// A region set as a prepared store's bytes: the regions (ids, names, kinds, properties, shapes)
/// and their built fences, so that a set read back answers as the one written, without parsing
/// its file or building its fences again. The bytes are this build's own layout (see
/// `StoreWriter`); `Loading`'s `FenceStore` keys them by the files, the options and the version.
extension RegionSet {
    /// What starts a store's bytes; its last digit is the layout's version.
    static let storeMagic = "treeline regions 1"

    /// The set's store, written to `w`.
    package func write(to w: inout StoreWriter) {
        w.text(Self.storeMagic)
        w.int(regions.count)
        for r in regions { r.write(to: &w) }
        fences.write(to: &w)
    }

    /// The set's store, in memory.
    package func storeBytes() -> [UInt8] {
        var w = StoreWriter()
        write(to: &w)
        return w.bytes
    }

    /// The set `write` wrote, all of `r`'s bytes; throws what is wrong with bytes it did not write.
    package init(reading r: inout StoreReader) throws(StoreFormatError) {
        guard try r.text("magic") == Self.storeMagic else { throw StoreFormatError("not a Treeline regions store of this layout") }
        // A region takes 100 bytes at least: no count beyond what the bytes can hold.
        let n = try r.count("regions", size: 100)
        var regions: [Region] = []
        regions.reserveCapacity(min(n, 1 << 16))  // more as they are read: a count is no promise
        for k in 0..<n { regions.append(try Region(reading: &r, index: k)) }
        let shapes = regions
        let fences = try FenceSet(reading: &r, count: n, shape: { shapes[$0].shape })
        guard r.isAtEnd else { throw StoreFormatError("\(r.remaining) bytes after the fences") }
        self.init(regions, fences: fences)
    }

    /// The set in `bytes` (see `init(reading:)`).
    package init(storeBytes bytes: UnsafeRawBufferPointer) throws(StoreFormatError) {
        var r = StoreReader(bytes)
        try self.init(reading: &r)
    }
}

extension Region {
    /// The waterings a file or a command can give, nanoseconds: `UTCTime`'s years, a day either
    /// side for the time zones.
    static let wateringLimits: ClosedRange<Int64> = {
        let first = UTCTime(year: UTCTime.representableYears.lowerBound, month: 1, day: 1)!.nanoseconds
        let last = UTCTime(year: UTCTime.representableYears.upperBound, month: 12, day: 31)!.nanoseconds
        return (first - UTCTime.nanosPerDay)...(last + 2 * UTCTime.nanosPerDay)
    }()

    func write(to w: inout StoreWriter) {
        w.text(id)
        w.text(kind.rawValue)
        w.text(name)
        switch shape {
        case let .circle(center, radius):
            w.int(0)
            w.double(center.latitude)
            w.double(center.longitude)
            w.double(radius)
        case let .polygons(p):
            w.int(1)
            w.array(p.storedWords)
        }
        w.int(intervalDays ?? -1)
        w.int(lastWatered.map { Int($0.nanoseconds) } ?? Int.min)
        w.int(species.count)
        for s in species { w.text(s) }
        w.double(priority ?? .nan)
        w.int(note == nil ? 0 : 1)
        w.text(note ?? "")
        w.int(project == nil ? 0 : 1)
        w.text(project ?? "")
    }

    init(reading r: inout StoreReader, index k: Int) throws(StoreFormatError) {
        let id = try r.text("region \(k)'s id")
        guard let kind = RegionKind(rawValue: try r.text("region \(k)'s kind")) else { throw StoreFormatError("region \(k): no such kind") }
        let name = try r.text("region \(k)'s name")
        let shape: Shape
        switch try r.int() {
        case 0:
            let c = Coordinate(latitude: try r.double(), longitude: try r.double()), radius = try r.double()
            guard abs(c.latitude) <= 90, abs(c.longitude) <= 180, Region.radiusLimits.contains(radius) else {
                throw StoreFormatError("region \(k): a circle off the Earth or of a radius out of range")
            }
            shape = .circle(center: c, radius: radius)
        case 1:
            guard let p = Polygons(storedWords: try r.array("region \(k)'s polygons")),
                  p.allSatisfy({ $0.allSatisfy { $0.allSatisfy { abs($0.latitude) <= 90 && abs($0.longitude) <= 180 } } }) else {
                throw StoreFormatError("region \(k): its polygons' layout does not hold, or a position is off the Earth")
            }
            shape = .polygons(p)
        default:
            throw StoreFormatError("region \(k): no such shape")
        }
        let interval = try r.int(), watered = try r.int()
        guard interval == -1 || Region.intervalLimits.contains(interval) else { throw StoreFormatError("region \(k): interval out of range") }
        guard watered == Int.min || Self.wateringLimits.contains(Int64(watered)) else { throw StoreFormatError("region \(k): a watering no file gives") }
        let speciesCount = try r.count("region \(k)'s species", size: 8)
        var species: [String] = []
        for _ in 0..<speciesCount { species.append(try r.text("region \(k)'s species")) }
        let priority = try r.double()
        let hasNote = try r.int(), note = try r.text("region \(k)'s note")
        let hasProject = try r.int(), project = try r.text("region \(k)'s project")
        // What a regions file can give: the monitor and the replies count on it.
        guard priority.isNaN || priority.isFinite, note.utf8.count <= Region.maxTextBytes, project.utf8.count <= Region.maxTextBytes else {
            throw StoreFormatError("region \(k): a priority, note or project that no regions file gives")
        }
        // Plain text, as a regions file's: these names go to terminals, pages and MQTT.
        guard PlainText.firstUnsafe(in: id) == nil, PlainText.firstUnsafe(in: name) == nil, PlainText.firstUnsafe(in: note) == nil,
              PlainText.firstUnsafe(in: project) == nil, species.allSatisfy({ PlainText.firstUnsafe(in: $0) == nil }) else {
            throw StoreFormatError("region \(k): an id, name, species, note or project with a control or text-direction character, which no regions file gives")
        }
        self.init(id: id, kind: kind, name: name, shape: shape, intervalDays: interval == -1 ? nil : interval,
                  lastWatered: watered == Int.min ? nil : UTCTime(nanoseconds: Int64(watered)), species: species,
                  priority: priority.isNaN ? nil : priority, note: hasNote == 1 ? note : nil, project: hasProject == 1 ? project : nil)
    }
}
