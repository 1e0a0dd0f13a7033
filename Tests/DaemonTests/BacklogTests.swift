import Foundation
import Geo
import IntegrationSupport
import Store
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A subscriber catching up on a journal, over the socket and as Server-Sent Events: every seq
/// exactly once and in order, across the catch-up's pages (256 events: journals of 257 and more
/// cross them over both transports) and the switch to live events, with and without events
/// committed while it catches up. Journals of 0 to 100,000 events, written beforehand; `since` at
/// 0, in the middle and at the end. Each read ends on a marker event added after the last one
/// expected, not on a quiet spell.
extension Daemon {
    /// A regions file with no region: the daemon journals nothing of its own at start.
    static func emptyRegions(in folder: URL) throws -> URL {
        let file = folder.appendingPathComponent("no-regions.geojson")
        try Data(#"{"type":"FeatureCollection","features":[]}"#.utf8).write(to: file)
        return file
    }

    /// `count` events in the daemon's database before it starts, committed 10,000 at a time.
    static func writeJournal(_ count: Int, to path: String) throws {
        let store = try Store(path: path)
        var k = 0
        while k < count {
            let n = min(10_000, count - k)
            let entries = (k..<(k + n)).map { i in
                let time = UTCTime(nanoseconds: 1_777_600_000_000_000_000 + Int64(i) * 1_000_000_000)
                // As long as a real enter's line (about 300 bytes) or longer: a page of 256 then passes
                // the socket's write buffer (64 KiB), as the region events of a real journal do.
                let name = "Encosta do Castelo, talhão \(i % 97)" + String(repeating: " (norte)", count: i % 3 == 0 ? 40 : 12)
                return JournalEntry(time: time, type: "enter", region: "bk-\(i % 97)", kind: "plant",
                                    json: Array(#"{"time":"2026-05-01T09:00:00Z","type":"enter","region":"bk-\#(i % 97)","kind":"plant","name":"\#(name)","lat":40.1000015,"lon":-8.2399595,"error_m":3.2,"n":\#(i)}"#.utf8))
            }
            try store.commit(entries, lastFix: nil, regions: [])
            k += n
        }
    }

    /// A daemon with a journal of `count` events, serving plain HTTP on loopback too.
    func backlogDaemon(_ count: Int) async throws -> (DaemonProcess, httpPort: Int) {
        let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("tl-empty-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let daemon = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: [try Self.emptyRegions(in: scratch)])
        try Self.writeJournal(count, to: daemon.database)
        let port = try serveWeb(daemon, extra: "  tls: off\n")
        try await daemon.start()
        // READY=1 waits for the web listener: a client that connects at once is never refused.
        #expect(GPSDProcess.accepts(port), "the web app's port accepts as soon as treelined says READY=1")
        return (daemon, port)
    }

    /// Adds `count` plants, one command at a time on a connection of its own, on another thread:
    /// events committed while a subscriber catches up.
    static func addPlants(_ count: Int, socket: String) -> Thread {
        let t = Thread {
            guard let c = try? SocketClient(path: socket) else { return }
            _ = c.line()
            for k in 0..<count {
                _ = c.ask(#"{"cmd":"add_region","kind":"plant","name":"Live \#(k)","interval_days":3,"at":[40.1,-8.2]}"#)
            }
        }
        t.start()
        return t
    }

    static func lastSeq(_ socket: String) throws -> Int64 {
        let c = try SocketClient(path: socket)
        _ = c.line()
        return (json(c.ask(#"{"cmd":"state"}"#))["seq"] as? NSNumber)?.int64Value ?? -1
    }

    /// Adds an album on a connection of its own: the known event a subscriber waits for to know
    /// that nothing more (no repeat, nothing skipped before it) is coming. Its seq (-1: refused).
    /// `command`: another `add_region` to make it (the album changes what an album's watchers see).
    @discardableResult
    static func marker(_ socket: String, name: String = "Marker", command: String? = nil) -> Int64 {
        guard let c = try? SocketClient(path: socket) else { return -1 }
        _ = c.line()
        let reply = json(c.ask(command ?? #"{"cmd":"add_region","kind":"album","name":"\#(name)","at":[40.1,-8.2]}"#))
        guard reply["type"] as? String == "region_added" else { return -1 }
        return (reply["seq"] as? NSNumber)?.int64Value ?? -1
    }

    /// The seqs a socket subscriber from `since` gets: once it has `last` (at once if `since` is
    /// `last`), a marker is added, and reading ends at the marker's event (each line within 10 s).
    /// Anything more, a repeat or a seq out of place, comes before the marker and is in the list.
    static func socketSeqs(_ socket: String, since: Int64, last: Int64) throws -> [Int64] {
        let c = try SocketClient(path: socket)
        _ = c.line()
        let subscribed = json(c.ask(#"{"cmd":"subscribe","since":\#(since)}"#))
        guard subscribed["class"] as? String == "SUBSCRIBED" else { return [-1] }
        var seqs: [Int64] = []
        var end = since >= last ? marker(socket) : Int64.max
        while let line = c.line(timeout: 10) {
            let e = json(line)  // once: 100,000 lines a read at most
            guard let seq = (e["seq"] as? NSNumber)?.int64Value, e["class"] as? String == "EVENT" else { continue }
            seqs.append(seq)
            if seq >= end { break }
            if seq >= last, end == .max { end = marker(socket) }
        }
        return seqs
    }

    /// The same as Server-Sent Events: `GET /api/events?since=N` over plain HTTP, the chunked
    /// body taken apart by hand; the same marker ends it.
    static func sseSeqs(port: Int, token: String, socket: String, since: Int64, last: Int64) throws -> [Int64] {
        let c = try TCPClient(port: port)
        c.send("GET /api/events?since=\(since) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAuthorization: Bearer \(token)\r\n\r\n")
        var seqs: [Int64] = []
        var reader = SSEReader()
        guard let head = c.head(), head.hasPrefix("HTTP/1.1 200") else { return [-1] }
        var end = Int64.max
        var subscribed = false
        reading: while let bytes = c.read(timeout: 10) {
            for data in reader.take(bytes) {
                let e = json(data)
                if e["class"] as? String == "SUBSCRIBED" {
                    subscribed = true
                    if since >= last { end = marker(socket) }
                }
                guard e["class"] as? String == "EVENT", let seq = (e["seq"] as? NSNumber)?.int64Value else { continue }
                seqs.append(seq)
                if seq >= end { break reading }
                if seq >= last, end == .max { end = marker(socket) }
            }
        }
        return subscribed ? seqs : [-1]
    }

    /// Sizes around every page limit, and what months of a board's journal reach.
    static let backlogSizes = [0, 1, 255, 256, 257, 700, 5_000, 100_000]

    @Test(arguments: backlogSizes) func aSubscriberCatchingUpGetsEachSeqOnceInOrder(_ count: Int) async throws {
        let (daemon, port) = try await backlogDaemon(count)
        defer { daemon.finish() }
        let token = try String(contentsOf: daemon.folder.appendingPathComponent("web-token"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // What the journal holds: the events written beforehand, then each round's live plants
        // and its marker.
        var journal = Int64(count)
        for live in [false, true] {
            for at in ["start", "middle", "end"] {
                for transport in ["socket", "sse"] {
                    let start = try Self.lastSeq(daemon.socket)
                    #expect(start == journal)
                    let since = at == "start" ? 0 : at == "middle" ? start / 2 : start
                    let adding = live ? 40 : 0
                    let adder = live ? Self.addPlants(adding, socket: daemon.socket) : nil
                    // Each plant added journals one event (`region_added`), then the marker one.
                    let expectedLast = start + Int64(adding)
                    let seqs = transport == "socket"
                        ? try Self.socketSeqs(daemon.socket, since: since, last: expectedLast)
                        : try Self.sseSeqs(port: port, token: token, socket: daemon.socket, since: since, last: expectedLast)
                    while let a = adder, !a.isFinished { usleep(10_000) }
                    let final = try Self.lastSeq(daemon.socket)
                    #expect(final == expectedLast + 1, "the live plants and the marker")
                    journal = final
                    let want = Array((since + 1)...final)
                    let what = "\(transport), journal \(count), since \(since), \(live ? "with" : "without") live events"
                    #expect(seqs.count == want.count, "\(what): \(seqs.count) events for \(want.count) seqs")
                    #expect(seqs == want, "\(what): first difference at \(Array(zip(seqs, want)).firstIndex { $0 != $1 } ?? min(seqs.count, want.count))")
                    if seqs != want { return }
                }
            }
        }
    }

    /// The MQTT bridge reads the same journal, at most 100 unacknowledged at a time: a backlog of
    /// 5,000 events crosses that window 50 times, and the broker's subscriber gets seq 1 to 5,000
    /// in order, each once (the bridge repeats only after a lost connection).
    @Test func theBrokerGetsABacklogInOrderEachOnce() async throws {
        let count = 5_000
        let (broker, subscriber) = try await brokerAndSubscriber(topics: ["treeline/backlog/events"])
        defer { subscriber.stop(); broker.finish() }
        let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("tl-mq-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let daemon = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: [try Self.emptyRegions(in: scratch)])
        defer { daemon.finish() }
        try Self.writeJournal(count, to: daemon.database)
        try connect(daemon, to: broker, clientID: "backlog")
        try await daemon.start()
        let got = await subscriber.waitFor(count: count, topic: "treeline/backlog/events", within: 120)
        #expect(got.count >= count)
        // The marker, journaled after the backlog: a repeat or a stray seq would come before it.
        #expect(Self.marker(daemon.socket) == Int64(count) + 1)
        let seqsOf = { subscriber.messages.filter { $0.topic == "treeline/backlog/events" }.compactMap { (json($0.payload)["seq"] as? NSNumber)?.int64Value } }
        var patience = Patience()
        while !seqsOf().contains(Int64(count) + 1), patience.waited < 30 { await patience.nap(0.02) }
        let seqs = seqsOf()
        let want = Array(1...Int64(count) + 1)
        #expect(seqs == want, "\(seqs.count) events for \(want.count) seqs, first difference at \(Array(zip(seqs, want)).firstIndex { $0 != $1 } ?? min(seqs.count, want.count))")
    }

    /// At start-up the daemon announces 300 regions in one record; a client that connects as soon
    /// as the socket opens, and subscribes from 0 asking for the base regions, gets the record and
    /// each region's `region_added` exactly once, in file order (more than a page of 256), then
    /// the marker. 20 starts.
    @Test func aSubscriberAtStartUpGetsEachAnnouncementOnce() async throws {
        let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("tl-300-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let file = scratch.appendingPathComponent("plants-300.geojson")
        let features = (0..<300).map { k in
            #"{"type":"Feature","properties":{"id":"p\#(k)","kind":"album","name":"Album \#(k)"},"geometry":{"type":"Point","coordinates":[\#(-8.2 + Double(k) * 1e-3),40.1]}}"#
        }
        try Data(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#.utf8).write(to: file)
        let want = ["1 base_layer "] + (0..<300).map { "1 region_added p\($0)" } + ["2 region_added "]
        for round in 0..<20 {
            let daemon = try DaemonProcess(gpsdPort: NMEAFeeder.freePort(), regions: [file])
            defer { daemon.finish() }
            let seen = LineBox()
            let subscriber = Thread {
                let deadline = Date().addingTimeInterval(20)
                var client: SocketClient?
                while client == nil, Date() < deadline {
                    client = try? SocketClient(path: daemon.socket)
                    if client == nil { usleep(500) }
                }
                guard let c = client else { return }
                _ = c.line()
                c.send(#"{"cmd":"subscribe","since":0,"base_regions":true}"# + "\n")
                // To the 300th region's announcement, then a marker: the next event must be its.
                var end = Int64.max, parts = 0
                var lastPart: Int64 = 0
                while let line = c.line(timeout: 10) {
                    let e = json(line)
                    guard let seq = (e["seq"] as? NSNumber)?.int64Value, e["class"] as? String == "EVENT" else { continue }
                    if let part = (e["part"] as? NSNumber)?.int64Value {
                        parts += 1
                        if part <= lastPart { seen.append("part \(part) after \(lastPart)", at: 0) }
                        lastPart = part
                    }
                    let id = seq == 1 ? e["region"] as? String ?? "?" : ""
                    seen.append("\(seq) \(e["type"] as? String ?? "?") \(id)", at: 0)
                    if seq >= end { break }
                    if parts == 300, end == .max { end = Self.marker(daemon.socket) }
                }
            }
            subscriber.start()
            try await daemon.start()
            while !subscriber.isFinished { try await Task.sleep(for: .milliseconds(50)) }
            let got = seen.all.map(\.line)
            #expect(got == want, "round \(round): \(got.count) events (the record, its 300 and the marker), first difference at \(Array(zip(got, want)).firstIndex { $0 != $1 } ?? got.count)")
            if got != want { return }
        }
    }
}

/// A plain TCP client on loopback: an HTTP request out, bytes in.
final class TCPClient {
    let fd: Int32
    private var pending: [UInt8] = []

    /// `fd` is set only once connected (see `SocketClient.init`: no second close by `deinit`).
    init(port: Int) throws {
        let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard r == 0 else {
            close(s)
            throw POSIXError(.ECONNREFUSED, "cannot connect to 127.0.0.1:\(port)")
        }
        fd = s
    }

    deinit { close(fd) }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        var at = 0
        while at < bytes.count {
            let n = bytes[at...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            at += n
        }
    }

    /// Bytes as they come; nil at the end or after `timeout` seconds without any.
    func read(timeout: Double) -> [UInt8]? {
        if !pending.isEmpty {
            defer { pending = [] }
            return pending
        }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        var waited = 0.0
        while true {
            let ready = poll(&p, 1, 100)
            if ready < 0 && errno == EINTR { continue }
            if ready > 0 { break }
            waited += 0.1
            if waited >= timeout { return nil }
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return n > 0 ? Array(chunk[..<n]) : nil
    }

    /// The response's head (status line and headers); what came after it is kept for `read`.
    func head() -> String? {
        var bytes: [UInt8] = []
        while let more = read(timeout: 10) {
            bytes += more
            if let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) {
                pending = Array(bytes[end.upperBound...])
                return String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
            }
        }
        return nil
    }
}

/// A chunked body of Server-Sent Events taken apart: each frame's `data:` line.
///
/// What is taken is passed over by an offset and dropped once per call (a read of 64 KiB holds
/// hundreds of chunks and frames: dropping each as it is taken moved the rest every time).
struct SSEReader {
    private var raw: [UInt8] = []
    private var body: [UInt8] = []

    mutating func take(_ bytes: [UInt8]) -> [String] {
        raw += bytes
        // Chunks: a hex size line, the bytes, CRLF.
        var at = 0
        while let lineEnd = raw[at...].firstRange(of: [0x0D, 0x0A]) {
            guard let size = Int(String(decoding: raw[at..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? "", radix: 16) else { break }
            guard raw.count >= lineEnd.upperBound + size + 2 else { break }
            body += raw[lineEnd.upperBound..<(lineEnd.upperBound + size)]
            at = lineEnd.upperBound + size + 2
        }
        raw.removeSubrange(..<at)
        var out: [String] = []
        var from = 0
        while let end = body[from...].firstRange(of: [0x0A, 0x0A]) {
            let frame = String(decoding: body[from..<end.lowerBound], as: UTF8.self)
            from = end.upperBound
            for line in frame.split(separator: "\n") where line.hasPrefix("data: ") { out.append(String(line.dropFirst(6))) }
        }
        body.removeSubrange(..<from)
        return out
    }
}
