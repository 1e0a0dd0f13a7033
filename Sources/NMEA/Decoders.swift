import Geo

/// Sentence decoders. Each reads every field it needs into locals first and commits to the
/// epoch only when the whole sentence is well formed: a malformed sentence changes nothing.
extension NMEAReader {
    @usableFromInline static let knotsToMetresPerSecond = 1852.0 / 3600.0
    @usableFromInline static let kmhToMetresPerSecond = 1.0 / 3.6

    /// An optional numeric field: nil when empty; `ok` cleared when present but malformed.
    @inlinable
    static func optional(_ f: Field, _ ok: inout Bool) -> Double? {
        if f.isEmpty { return nil }
        guard let v = f.decimal else { ok = false; return nil }
        return v
    }

    /// An optional field of a quantity without a sign (DOP, σ, speed): as `optional`, and a
    /// field with a sign is malformed, so a negative HDOP never becomes a negative error.
    @inlinable
    static func magnitude(_ f: Field, _ ok: inout Bool) -> Double? {
        if f.isEmpty { return nil }
        guard let v = f.unsignedDecimal else { ok = false; return nil }
        return v
    }

    @inlinable
    static func position(_ lat: Field, _ ns: Field, _ lon: Field, _ ew: Field) -> Coordinate? {
        guard let la = lat.angle(hemisphere: ns, positive: UInt8(ascii: "N"), negative: UInt8(ascii: "S"), limit: 90),
              let lo = lon.angle(hemisphere: ew, positive: UInt8(ascii: "E"), negative: UInt8(ascii: "W"), limit: 180)
        else { return nil }
        return Coordinate(latitude: la, longitude: lo)
    }

    /// A time field: the open epoch's time when the bytes are the same as its sentence's (most
    /// sentences of an epoch), else parsed.
    @inlinable
    func time(_ f: Field) -> (nanos: Int64, key: RawKey?)? {
        let key = f.rawKey
        if assembler.open, let key, key == assembler.acc.timeKey { return (assembler.acc.timeOfDay, key) }
        guard let t = f.timeOfDay else { return nil }
        return (t, key)
    }

    /// An RMC date field, remembered so that a log's one date is converted once.
    @inlinable
    mutating func date(_ f: Field) -> Int64? {
        let key = f.rawKey
        if let key, key == lastDateKey { return lastDateDays }
        guard let d = f.ddmmyy else { return nil }
        lastDateKey = key
        lastDateDays = d
        return d
    }

    @inlinable
    static func course(_ v: Double?) -> Double? {
        guard let v, v >= 0, v <= 360 else { return nil }
        return v == 360 ? 0 : v
    }

    /// Commits a well-formed GGA, GNS or GLL to its epoch.
    @inlinable
    mutating func commitPosition(
        _ tod: (nanos: Int64, key: RawKey?), saysFix: Bool, _ coordinate: Coordinate?,
        altitude: Double? = nil, hdop: Double? = nil, satellites: Int? = nil, _ emit: (Fix) -> Void
    ) {
        assembler.timed(tod.nanos, key: tod.key, stats: &counters, emit)
        assembler.acc.lastSaysFix = saysFix
        if saysFix, let coordinate {
            assembler.setPosition(coordinate)
            if let altitude { assembler.acc.altitudeMSL = altitude }
        }
        if let hdop { assembler.acc.hdop = hdop }
        if let satellites { assembler.acc.satellites = satellites }
    }

    /// RMC: time, status, position, speed (knots), course, date (ddmmyy), variation, FAA mode.
    @inlinable
    mutating func decodeRMC(_ f: inout FieldCursor, _ emit: (Fix) -> Void) -> Bool {
        let time = f.next(), status = f.next(), lat = f.next(), ns = f.next(), lon = f.next(), ew = f.next()
        let spd = f.next(), crs = f.next(), date = f.next()
        f.skip(2)
        let faa = f.next()
        guard let tod = self.time(time), let s = status.character,
              s == UInt8(ascii: "A") || s == UInt8(ascii: "V") else { return false }
        var day: Int64?
        if !date.isEmpty {
            guard let d = self.date(date) else { return false }
            day = d
        }
        // FAA mode N (not valid) overrides an A status, as NMEA 2.3 says.
        let valid = s == UInt8(ascii: "A") && faa.first != UInt8(ascii: "N")
        var ok = true
        var coordinate: Coordinate?
        var speed: Double?, course: Double?
        if valid {
            guard let c = Self.position(lat, ns, lon, ew) else { return false }
            coordinate = c
            speed = Self.magnitude(spd, &ok).map { $0 * Self.knotsToMetresPerSecond }
            course = Self.course(Self.optional(crs, &ok))
            guard ok else { return false }
        }
        assembler.timed(tod.nanos, key: tod.key, stats: &counters, emit)
        if let day { assembler.acc.date = day }
        assembler.acc.lastSaysFix = valid
        if valid {
            assembler.setPosition(coordinate!)
            if let speed { assembler.acc.speed = speed }
            if let course { assembler.acc.course = course }
        }
        return true
    }

    /// GGA: time, position, quality, satellites used, HDOP, altitude MSL, geoid separation.
    @inlinable
    mutating func decodeGGA(_ f: inout FieldCursor, _ emit: (Fix) -> Void) -> Bool {
        let time = f.next(), lat = f.next(), ns = f.next(), lon = f.next(), ew = f.next()
        let quality = f.next(), sats = f.next(), hdopField = f.next(), alt = f.next()
        guard let tod = self.time(time), let q = quality.unsignedInt else { return false }
        var ok = true
        let hdop = Self.magnitude(hdopField, &ok)
        let satellites = sats.isEmpty ? nil : sats.unsignedInt
        guard ok else { return false }
        var coordinate: Coordinate?
        var altitude: Double?
        if q > 0 {
            guard let c = Self.position(lat, ns, lon, ew) else { return false }
            coordinate = c
            altitude = Self.optional(alt, &ok)
            guard ok else { return false }
        }
        commitPosition(tod, saysFix: q > 0, coordinate, altitude: altitude, hdop: hdop, satellites: satellites, emit)
        return true
    }

    /// GLL: position, time, status, FAA mode.
    @inlinable
    mutating func decodeGLL(_ f: inout FieldCursor, _ emit: (Fix) -> Void) -> Bool {
        let lat = f.next(), ns = f.next(), lon = f.next(), ew = f.next(), time = f.next(), status = f.next()
        let faa = f.next()
        guard let tod = self.time(time), let s = status.character,
              s == UInt8(ascii: "A") || s == UInt8(ascii: "V") else { return false }
        let valid = s == UInt8(ascii: "A") && faa.first != UInt8(ascii: "N")
        var coordinate: Coordinate?
        if valid {
            guard let c = Self.position(lat, ns, lon, ew) else { return false }
            coordinate = c
        }
        commitPosition(tod, saysFix: valid, coordinate, emit)
        return true
    }

    /// GNS: time, position, mode indicators (one per constellation), satellites, HDOP, altitude.
    @inlinable
    mutating func decodeGNS(_ f: inout FieldCursor, _ emit: (Fix) -> Void) -> Bool {
        let time = f.next(), lat = f.next(), ns = f.next(), lon = f.next(), ew = f.next()
        let modeField = f.next(), sats = f.next(), hdopField = f.next(), alt = f.next()
        guard let tod = self.time(time), !modeField.isEmpty else { return false }
        var valid = false
        for i in 0..<modeField.count where modeField.base[i] != UInt8(ascii: "N") { valid = true }
        var ok = true
        let hdop = Self.magnitude(hdopField, &ok)
        let satellites = sats.isEmpty ? nil : sats.unsignedInt
        var coordinate: Coordinate?
        var altitude: Double?
        if valid {
            guard let c = Self.position(lat, ns, lon, ew) else { return false }
            coordinate = c
            altitude = Self.optional(alt, &ok)
        }
        guard ok else { return false }
        commitPosition(tod, saysFix: valid, coordinate, altitude: altitude, hdop: hdop, satellites: satellites, emit)
        return true
    }

    /// ZDA: time, day, month, year (four digits), local zone.
    @inlinable
    mutating func decodeZDA(_ f: inout FieldCursor, _ emit: (Fix) -> Void) -> Bool {
        let time = f.next(), dd = f.next(), mm = f.next(), yyyy = f.next()
        guard let tod = self.time(time) else { return false }
        var day: Int64?
        if !(dd.isEmpty && mm.isEmpty && yyyy.isEmpty) {
            // GPS began in 1980; a year beyond 2200 is a corrupt field (and would overflow the time).
            guard let d = dd.unsignedInt, let m = mm.unsignedInt, let y = yyyy.unsignedInt, yyyy.count == 4,
                  (1980...2200).contains(y), (1...12).contains(m), d >= 1, d <= CivilDate.daysIn(month: m, year: y) else { return false }
            day = CivilDate.daysFromCivil(year: y, month: m, day: d)
        }
        assembler.timed(tod.nanos, key: tod.key, stats: &counters, emit)
        if let day { assembler.acc.date = day }
        return true
    }

    /// GST: time, RMS, error ellipse, σ latitude, σ longitude, σ altitude (metres).
    @inlinable
    mutating func decodeGST(_ f: inout FieldCursor, _ emit: (Fix) -> Void) -> Bool {
        let time = f.next()
        f.skip(4)
        let sLat = f.next(), sLon = f.next()
        guard let tod = self.time(time) else { return false }
        var ok = true
        let a = Self.magnitude(sLat, &ok), b = Self.magnitude(sLon, &ok)
        guard ok else { return false }
        assembler.timed(tod.nanos, key: tod.key, stats: &counters, emit)
        if let a, let b { assembler.acc.horizontalError = (a * a + b * b).squareRoot() }
        return true
    }

    /// GSA: selection mode, fix mode (1 none, 2, 3), 12 satellite ids, PDOP, HDOP, VDOP.
    /// No time: belongs to the open epoch.
    @inlinable
    mutating func decodeGSA(_ f: inout FieldCursor) -> Bool {
        _ = f.next()
        let modeField = f.next()
        guard let mode = modeField.unsignedInt, (1...3).contains(mode) else { return false }
        let used = f.countNonEmpty(12)
        var ok = true
        let p = Self.magnitude(f.next(), &ok), h = Self.magnitude(f.next(), &ok), v = Self.magnitude(f.next(), &ok)
        guard ok else { return false }
        // Multi-constellation receivers send one GSA per system: the best fix type counts, and
        // the satellites add up over the epoch.
        if assembler.open {
            let best = max(assembler.acc.gsaMode ?? 0, mode)
            assembler.acc.gsaMode = best
            assembler.acc.lastSaysFix = best >= 2
            assembler.acc.gsaSatellites += used
            assembler.lastGSAMode = best
            assembler.lastGSAUsed = assembler.acc.gsaSatellites
        } else {
            assembler.lastGSAMode = mode
            assembler.lastGSAUsed = used
            return true  // its epoch was not seen; the receiver's word on satellites still counts
        }
        if let p { assembler.acc.pdop = p }
        if let h { assembler.acc.hdop = h }
        if let v { assembler.acc.vdop = v }
        return true
    }

    /// VTG: course true, course magnetic, speed knots, speed km/h, FAA mode; or the NMEA 2.0 form
    /// without unit letters. No time: belongs to the open epoch.
    @inlinable
    mutating func decodeVTG(_ f: inout FieldCursor) -> Bool {
        let c1 = f.next(), t = f.next()
        var ok = true
        var course: Double?
        var speed: Double?
        var faa: UInt8?
        if t.character == UInt8(ascii: "T") || (t.isEmpty && c1.isEmpty) {
            course = Self.course(Self.optional(c1, &ok))
            f.skip(2)
            let kn = f.next()
            _ = f.next()
            let kmh = f.next()
            _ = f.next()
            faa = f.next().first
            if let k = Self.magnitude(kn, &ok) {
                speed = k * Self.knotsToMetresPerSecond
            } else if let k = Self.magnitude(kmh, &ok) {
                speed = k * Self.kmhToMetresPerSecond
            }
        } else {
            // NMEA 2.0: course true, course magnetic, knots, km/h.
            course = Self.course(Self.optional(c1, &ok))
            speed = Self.magnitude(f.next(), &ok).map { $0 * Self.knotsToMetresPerSecond }
        }
        guard ok else { return false }
        guard assembler.open, faa != UInt8(ascii: "N") else { return true }
        if let course { assembler.acc.course = course }
        if let speed { assembler.acc.speed = speed }
        return true
    }
}
