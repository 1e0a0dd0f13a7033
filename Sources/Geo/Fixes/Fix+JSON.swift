import JSON

extension Fix {
    /// The most bytes `appendJSON` writes: the time, nine numbers at their longest, the names.
    static let maxJSONBytes = 512

    /// One JSON object (no newline) with gpsd's TPV names: `time` (when the date is known), `mode`,
    /// `lat`, `lon`, and where known `altMSL`, `speed`, `track`, `eph`, `hdop`, `satellites`.
    ///
    /// Written into a buffer on the stack and appended at once: `replay --fixes` writes a million
    /// of these, and appending byte by byte to the array checked its capacity ~150 times a line.
    public func appendJSON(to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maxJSONBytes) { buf in
            let start = buf.baseAddress!
            var c = ByteCursor(start)
            writeJSON(&c)
            out.append(contentsOf: UnsafeBufferPointer(start: start, count: c.written(since: start)))
        }
    }

    func writeJSON(_ c: inout ByteCursor) {
        c.put(UInt8(ascii: "{"))
        if let time {
            c.put("\"time\":\"")
            time.writeISO8601(&c)
            c.put("\",")
        }
        c.put("\"mode\":")
        c.int(mode.rawValue)
        if let p = coordinate {
            c.put(",\"lat\":")
            c.fixed(p.latitude, decimals: 9)
            c.put(",\"lon\":")
            c.fixed(p.longitude, decimals: 9)
        }
        if let altitudeMSL { c.put(",\"altMSL\":"); c.fixed(altitudeMSL, decimals: 3) }
        if let speed { c.put(",\"speed\":"); c.fixed(speed, decimals: 3) }
        if let course { c.put(",\"track\":"); c.fixed(course, decimals: 4) }
        if let horizontalError { c.put(",\"eph\":"); c.fixed(horizontalError, decimals: 3) }
        if let hdop { c.put(",\"hdop\":"); c.fixed(hdop, decimals: 2) }
        if let satellitesUsed {
            c.put(",\"satellites\":")
            c.int(satellitesUsed)
        }
        c.put(UInt8(ascii: "}"))
    }

    /// The JSON object as a String (tests, logs).
    public var json: String {
        var out: [UInt8] = []
        appendJSON(to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
