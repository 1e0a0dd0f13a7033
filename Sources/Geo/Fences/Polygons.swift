/// A region's polygons in WGS84 degrees, held in one flat buffer: each polygon an outer ring and
/// its holes, each ring open (the closing position is not repeated).
///
/// A country's fences are millions of positions, and a region keeps its shape for as long as it
/// is in force (to write its Feature, to answer a query). Nested arrays cost three allocations per
/// polygon and 16 bytes per position; here a shape is one allocation, and a position of at most
/// seven decimals (about a centimetre, what GIS exports and the GeoJSON specification's advice
/// give) takes 8 bytes: two 32-bit integers in units of 10⁻⁷ degree. The choice is per shape and
/// exact: a shape any of whose numbers that would not give back bit for bit keeps them all as
/// `Double`s, so a position read back is always the `Double` it was made from.
///
/// It reads as a collection of `Polygon`s, each a collection of `Ring`s, each a collection of
/// `Coordinate`s, indexed from zero; `arrays` gives the nested arrays.
public struct Polygons: Sendable, RandomAccessCollection, ExpressibleByArrayLiteral {
    /// Layout: `[polygons, rings, fixed, ringEnd × polygons, vertexEnd × rings, coordinates...]`;
    /// a position is two words (latitude then longitude, each an `Int32` of 10⁻⁷ degree) when
    /// `fixed` is 1, otherwise four (each a `Double`'s bit pattern, low word first).
    let words: [UInt32]

    /// 10⁻⁷ degree per unit of a fixed-point position.
    static let unitsPerDegree = 1e7
    static let header = 3

    /// The polygons given, each an outer ring then its holes.
    public init(_ parts: [[[Coordinate]]]) {
        let rings = parts.reduce(0) { $0 + $1.count }
        let vertices = parts.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
        precondition(parts.count < Int(UInt32.max) && rings < Int(UInt32.max) && vertices < Int(UInt32.max) / 4,
                     "too many polygons, rings or positions for one shape")
        // Fixed point first, each number converted once; the first that does not come back bit
        // for bit starts the positions again as `Double`s.
        let head = Self.header + parts.count + rings
        if let w = Self.words(parts, rings: rings, capacity: head + vertices * 2, fixed: true) {
            words = w
        } else {
            words = Self.words(parts, rings: rings, capacity: head + vertices * 4, fixed: false)!
        }
    }

    /// The layout's words for `parts`, positions in fixed point or as `Double`s; nil when a
    /// position has no fixed-point form.
    private static func words(_ parts: [[[Coordinate]]], rings: Int, capacity: Int, fixed: Bool) -> [UInt32]? {
        var w: [UInt32] = []
        w.reserveCapacity(capacity)
        w.append(UInt32(parts.count))
        w.append(UInt32(rings))
        w.append(fixed ? 1 : 0)
        var ringEnd = 0
        for polygon in parts {
            ringEnd += polygon.count
            w.append(UInt32(ringEnd))
        }
        var vertexEnd = 0
        for polygon in parts {
            for ring in polygon {
                vertexEnd += ring.count
                w.append(UInt32(vertexEnd))
            }
        }
        for polygon in parts {
            for ring in polygon {
                for c in ring {
                    if fixed {
                        guard let lat = units(c.latitude), let lon = units(c.longitude) else { return nil }
                        w.append(UInt32(bitPattern: lat))
                        w.append(UInt32(bitPattern: lon))
                    } else {
                        let lat = c.latitude.bitPattern, lon = c.longitude.bitPattern
                        w.append(UInt32(truncatingIfNeeded: lat))
                        w.append(UInt32(truncatingIfNeeded: lat >> 32))
                        w.append(UInt32(truncatingIfNeeded: lon))
                        w.append(UInt32(truncatingIfNeeded: lon >> 32))
                    }
                }
            }
        }
        return w
    }

    public init(arrayLiteral elements: [[Coordinate]]...) { self.init(elements) }

    /// The layout's words, for a prepared store.
    package var storedWords: [UInt32] { words }

    /// Polygons from a prepared store's words; nil unless they are a layout as `init` makes: at
    /// least one polygon, each with a ring at least, each ring of 3 positions at least, the
    /// ends ascending, and as many words as the positions take. Every read of the collection
    /// then stays within the words.
    package init?(storedWords w: [UInt32]) {
        let h = Self.header
        guard w.count >= h, w[0] >= 1, w[1] >= w[0], w[2] <= 1 else { return nil }
        let polygons = Int(w[0]), rings = Int(w[1])
        guard h + polygons + rings <= w.count else { return nil }
        var previous = 0
        for k in 0..<polygons {
            let end = Int(w[h + k])
            guard end > previous else { return nil }
            previous = end
        }
        guard previous == rings else { return nil }
        previous = 0
        for k in 0..<rings {
            let end = Int(w[h + polygons + k])
            guard end - previous >= 3 else { return nil }
            previous = end
        }
        guard w.count - (h + polygons + rings) == previous * (w[2] == 1 ? 2 : 4) else { return nil }
        words = w
    }

    /// `d` as a 32-bit count of 10⁻⁷ degree, when the `Double` made back from it is `d` bit for
    /// bit (so not −0.0, which keeps its sign as a `Double`); nil otherwise.
    static func units(_ d: Double) -> Int32? {
        let units = (d * unitsPerDegree).rounded()
        guard units.magnitude <= Double(Int32.max) else { return nil }  // also refuses NaN
        let n = Int32(units)
        return (Double(n) / unitsPerDegree).bitPattern == d.bitPattern ? n : nil  // what `fixedPoint(_:_:)` reads
    }

    /// Whether positions are held in 32-bit fixed point (8 bytes each) rather than as `Double`s.
    public var isFixedPoint: Bool { words[2] == 1 }
    /// How many positions all the rings have.
    public var positionCount: Int { ringCount == 0 ? 0 : Int(words[Self.header + count + ringCount - 1]) }
    /// How many rings all the polygons have.
    public var ringCount: Int { Int(words[1]) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(words[0]) }

    public subscript(polygon: Int) -> Polygon {
        precondition(polygon >= 0 && polygon < count, "polygon index out of range")
        let first = polygon == 0 ? 0 : Int(words[Self.header + polygon - 1])
        return Polygon(shape: self, firstRing: first, ringCount: Int(words[Self.header + polygon]) - first)
    }

    /// Where the positions start in `words`.
    var coordinatesStart: Int { Self.header + Int(words[0]) + Int(words[1]) }

    /// The nested arrays these polygons were made from.
    public var arrays: [[[Coordinate]]] { map { $0.map(Array.init) } }

    /// Vertices `start..<end` of ring `ring` (counted across all polygons).
    func vertexRange(ofRing ring: Int) -> Range<Int> {
        let ends = Self.header + count
        let start = ring == 0 ? 0 : Int(words[ends + ring - 1])
        return start..<Int(words[ends + ring])
    }

    /// The fixed-point position whose latitude is `words[i]`.
    static func fixedPoint(_ words: [UInt32], _ i: Int) -> Coordinate {
        Coordinate(latitude: Double(Int32(bitPattern: words[i])) / unitsPerDegree,
                   longitude: Double(Int32(bitPattern: words[i + 1])) / unitsPerDegree)
    }

    /// The position of `Double`s whose latitude starts at `words[i]`.
    static func doubles(_ words: [UInt32], _ i: Int) -> Coordinate {
        Coordinate(latitude: Double(bitPattern: UInt64(words[i]) | UInt64(words[i + 1]) << 32),
                   longitude: Double(bitPattern: UInt64(words[i + 2]) | UInt64(words[i + 3]) << 32))
    }

    /// One polygon: its outer ring, then its holes.
    public struct Polygon: Sendable, RandomAccessCollection {
        let shape: Polygons
        let firstRing: Int
        let ringCount: Int

        public var startIndex: Int { 0 }
        public var endIndex: Int { ringCount }

        public subscript(ring: Int) -> Ring {
            precondition(ring >= 0 && ring < ringCount, "ring index out of range")
            let range = shape.vertexRange(ofRing: firstRing + ring)
            let fixed = shape.isFixedPoint
            return Ring(words: shape.words, start: shape.coordinatesStart + range.lowerBound * (fixed ? 2 : 4), count: range.count,
                        fixed: fixed)
        }
    }

    /// One ring's positions, open (the first is not repeated at the end).
    public struct Ring: Sendable, RandomAccessCollection {
        let words: [UInt32]
        /// The first position's first word.
        let start: Int
        public let count: Int
        let fixed: Bool

        public var startIndex: Int { 0 }
        public var endIndex: Int { count }

        public subscript(i: Int) -> Coordinate {
            precondition(i >= 0 && i < count, "position index out of range")
            return fixed ? Polygons.fixedPoint(words, start + 2 * i) : Polygons.doubles(words, start + 4 * i)
        }

        /// The positions with the first again at the end, as GeoJSON closes a ring.
        public var closed: LazyMapSequence<Range<Int>, Coordinate> {
            (0..<(isEmpty ? 0 : count + 1)).lazy.map { self[$0 % count] }
        }
    }
}

extension Polygons: Equatable {
    /// The same polygons, rings and positions (`==` on each `Double`, as the nested arrays compare).
    public static func == (a: Polygons, b: Polygons) -> Bool {
        a.words == b.words || a.elementsEqual(b) { $0.elementsEqual($1) { $0.elementsEqual($1) } }
    }
}

extension Polygons: CustomStringConvertible {
    public var description: String { "\(arrays)" }
}
