import CGPS
import Geo
#if canImport(Glibc)
import Glibc
#endif

/// One connection to gpsd through libgps, confined to the thread that made it.
///
/// `gps_data_t` (24 KB, owning a malloc'd private part) is allocated once at a stable address,
/// never copied, and closed once. libgps ORs the `set` bits of every report into one mask and
/// resets them only on TPV, so a SKY would look like a new fix: the class of the JSON line read
/// decides what a report is.
final class GPSDSession {
    private let data: UnsafeMutablePointer<gps_data_t>
    private var isOpen = false
    /// The JSON line of the last report, as libgps copies it.
    private var message = [CChar](repeating: 0, count: 8_192)

    init() {
        data = .allocate(capacity: 1)
        UnsafeMutableRawPointer(data).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<gps_data_t>.size)
    }

    deinit {
        close()
        data.deallocate()
    }

    /// libgps sends its requests with write(2): to a gpsd that has just gone, that raises
    /// SIGPIPE, whose default ends the whole process (the daemon, `treeline watch`). Ignored once,
    /// process-wide, before the first connection, as gpsd's own clients do: the write then fails
    /// with EPIPE and the client reconnects as for any other loss of gpsd.
    static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

    /// Connects and asks for JSON reports.
    func open(host: String, port: Int) throws(GPSDError) {
        _ = Self.ignoreBrokenPipes
        close()
        errno = 0
        let status = gps_open(host, String(port), data)
        guard status == 0 else {
            let code = errno
            throw GPSDError("cannot connect to gpsd at \(host):\(port): \(LibGPS.errorString(Int32(code)))")
        }
        isOpen = true
        guard gps_stream(data, UInt32(WATCH_ENABLE | WATCH_JSON), nil) == 0 else {
            close()
            throw GPSDError("gpsd at \(host):\(port) refused the watch request")
        }
    }

    func close() {
        guard isOpen else { return }
        _ = gps_close(data)
        isOpen = false
        partial = false
    }

    /// Whether libgps holds part of a line and nothing more: `gps_waiting` says true at once while
    /// any bytes are buffered, so the socket itself must be asked until more arrive.
    private var partial = false

    /// Whether something is ready to read within `microseconds`: a complete line in libgps's
    /// buffer, or new bytes on the socket.
    func waiting(microseconds: Int32) -> Bool {
        guard isOpen else { return false }
        guard partial else { return gps_waiting(data, microseconds) }
        var p = pollfd(fd: Int32(data.pointee.gps_fd), events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, microseconds / 1000) > 0
    }

    /// What one read gives.
    enum Read: Equatable {
        case report(GPSDReport)
        /// Only part of a line so far: no report, and no sign of life either.
        case nothing
        /// The connection failed or closed.
        case closed
    }

    /// Reads one report.
    func read() -> Read {
        guard isOpen else { return .closed }
        data.pointee.set = 0
        message[0] = 0
        let n = message.withUnsafeMutableBufferPointer { gps_read(data, $0.baseAddress, Int32($0.count)) }
        if n < 0 { return .closed }
        partial = n == 0
        if n == 0 { return .nothing }
        return .report(message.withUnsafeBufferPointer { report(class: Self.reportClass($0)) })
    }

    /// The value of `"class"` at the start of a gpsd JSON line (`{"class":"TPV",...`).
    static func reportClass(_ line: UnsafeBufferPointer<CChar>) -> String {
        let prefix = Array(#"{"class":""#.utf8CString.dropLast())
        guard line.count > prefix.count, line.starts(with: prefix) else { return "" }
        var name: [UInt8] = []
        for c in line[prefix.count...] {
            if c == 0x22 || c == 0 || name.count > 16 { break }  // closing quote
            name.append(UInt8(bitPattern: c))
        }
        return String(decoding: name, as: UTF8.self)
    }

    private func report(class name: String) -> GPSDReport {
        // Fields are read through the pointer: `data.pointee` as a whole would copy 24 KB.
        func value(_ x: Double) -> Double? { x.isFinite ? x : nil }
        switch name {
        case "TPV":
            let f = data.pointee.fix
            let mode: FixMode = f.mode >= 3 ? .threeD : f.mode == 2 ? .twoD : .noFix
            var fix = Fix(mode: mode)
            fix.time = Self.time(f.time)
            if let t = fix.time { fix.timeOfDay = (t.nanoseconds % UTCTime.nanosPerDay + UTCTime.nanosPerDay) % UTCTime.nanosPerDay }
            if mode >= .twoD, let lat = value(f.latitude), let lon = value(f.longitude) {
                fix.coordinate = Coordinate(latitude: lat, longitude: lon)
            }
            if mode == .threeD { fix.altitudeMSL = value(f.altMSL) }
            fix.speed = value(f.speed)
            fix.course = value(f.track)
            return .position(fix)
        case "GST":
            return .errors(time: Self.time(tl_gst_time(data)), latitude: tl_gst_lat_err(data), longitude: tl_gst_lon_err(data))
        case "SKY":
            let used = data.pointee.satellites_used, dop = data.pointee.dop
            return .sky(time: Self.time(data.pointee.skyview_time), hdop: value(dop.hdop), pdop: value(dop.pdop), vdop: value(dop.vdop),
                        satellitesUsed: used > 0 ? Int(used) : nil)
        case "DEVICE":
            let dev = data.pointee.dev
            let path = withUnsafeBytes(of: dev.path) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            return .device(path: path, active: dev.activated.tv_sec != 0 || dev.activated.tv_nsec != 0)
        default:
            return .other
        }
    }

    /// A libgps timespec as UTC time; nil for 0 (no date yet).
    static func time(_ t: timespec_t) -> UTCTime? {
        guard t.tv_sec != 0 || t.tv_nsec != 0 else { return nil }
        return UTCTime(nanoseconds: Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec))
    }
}
