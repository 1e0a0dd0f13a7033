import Foundation
import IntegrationSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's resident memory, kB (VmRSS).
func residentKB(_ pid: Int32) -> Int {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

extension Daemon {
    /// A client that writes 4 MiB of `x\n` (each line an error to answer) and reads nothing:
    /// the daemon stops reading it once its answers are not taken, so the client blocks itself,
    /// the daemon's memory stays put, and another client is answered all along.
    @Test func aClientThatNeverReadsCostsABoundedAmount() async throws {
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try await daemon.start()
            let pid = try #require(daemon.pid)
            let (other, _) = try daemon.client()
            #expect(json(other.ask(#"{"cmd":"state"}"#))["class"] as? String == "STATE")
            let before = residentKB(pid)

            let (flood, _) = try daemon.client()
            _ = fcntl(flood.fd, F_SETFL, fcntl(flood.fd, F_GETFL) | O_NONBLOCK)
            let total = 4 << 20
            let chunk = [UInt8](repeating: 0, count: 65_536).enumerated().map { $0.offset % 2 == 0 ? UInt8(ascii: "x") : 0x0A }
            var sent = 0, answered = 0, stalled = 0.0, peak = before
            while sent < total, stalled < 3 {
                let n = chunk.withUnsafeBytes { Glibc.send(flood.fd, $0.baseAddress, min($0.count, total - sent), Int32(MSG_NOSIGNAL)) }
                if n > 0 {
                    sent += n
                    stalled = 0
                } else {
                    usleep(100_000)
                    stalled += 0.1
                    // Meanwhile another client is answered.
                    if json(other.ask(#"{"cmd":"state"}"#, timeout: 5))["class"] as? String == "STATE" { answered += 1 }
                    peak = max(peak, residentKB(pid))
                }
            }
            peak = max(peak, residentKB(pid))
            print("never-reading client: accepted \(sent) of \(total) bytes; daemon RSS \(before) kB → peak \(peak) kB (+\((peak - before) / 1024) MB); other client answered \(answered) times")
            #expect(sent < total, "the daemon stopped reading the flood (back-pressure)")
            #expect(answered >= 10, "the other client kept being answered")
            #expect(peak - before < 64 * 1024, "RSS grew by \(peak - before) kB")
            // The flooder is still served once it reads: its first answers are the errors.
            #expect(flood.line(timeout: 5)?.hasPrefix(#"{"class":"ERROR","message":"not JSON"#) == true)
            #expect(daemon.isRunning)
        }
    }

    /// A subscription to a region that is not in force would deliver nothing, ever: refused.
    @Test func aSubscriptionToAnUnknownRegionIsRefused() async throws {
        try await withGPSD(log: walk) { _, gpsd in
            let daemon = try DaemonProcess(gpsdPort: gpsd.port, regions: sampleRegions)
            defer { daemon.finish() }
            try await daemon.start()
            let (c, _) = try daemon.client()
            let refused = json(c.ask(#"{"cmd":"subscribe","regions":["plant-carvalho","plant-nowhere","zz"]}"#))
            #expect(refused["message"] as? String == "\"regions\": no region 'plant-nowhere' (and 1 more) is in force: {\"cmd\":\"regions\"} (treeline state --regions) lists their ids")
            let ok = json(c.ask(#"{"cmd":"subscribe","regions":["plant-carvalho"]}"#))
            #expect(ok["class"] as? String == "SUBSCRIBED", "\(ok)")
        }
    }
}
