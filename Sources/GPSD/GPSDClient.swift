import Foundation
import Geo
import Synchronization

/// Reads fixes from gpsd through libgps, and survives gpsd coming and going.
///
/// `updates()` starts a reader on a thread of its own (libgps blocks; Swift's cooperative pool
/// has two threads here and must not wait on sockets) and streams what it reads. When gpsd is
/// absent, dies, or says nothing for `silence` seconds, the reader closes, waits (doubling from
/// 0.1 s to at most 10 s, never spinning) and connects again; its status is reported once per
/// change, not per attempt. Ending the stream (or cancelling its consumer) stops the reader
/// within a quarter of a second once connected; a connection attempt itself (name lookup and
/// TCP connect inside `gps_open`) is not interruptible and may take longer to an unreachable host.
public struct GPSDClient: Sendable {
    public var host: String
    public var port: Int
    /// Seconds without any report after which gpsd is taken for gone.
    public var silence: Double

    public init(host: String = "127.0.0.1", port: Int = 2947, silence: Double = 10) {
        self.host = host
        self.port = port
        self.silence = silence
    }

    /// The stream of fixes and status changes. Cancelling its consumer stops the reader at once
    /// (a fix it holds is lost); `stop.stop()` ends it gracefully: the fix the reader holds goes
    /// out, then the stream ends.
    public func updates(until stop: GPSDStop = GPSDStop()) -> AsyncStream<GPSDUpdate> {
        let (stream, continuation) = AsyncStream<GPSDUpdate>.makeStream()
        let flag = stop.flag
        continuation.onTermination = { _ in flag.set() }
        let client = self
        Thread.detachNewThread {
            Thread.current.name = "gpsd-client"
            client.run(continuation, flag)
            continuation.finish()
        }
        return stream
    }

    /// The reader's loop, on its own thread.
    func run(_ out: AsyncStream<GPSDUpdate>.Continuation, _ stop: StopFlag) {
        let session = GPSDSession()
        var backoff = Backoff()
        var status: GPSDStatus?
        func report(_ s: GPSDStatus) {
            guard s != status else { return }
            status = s
            out.yield(.status(s))
        }
        var positioned: Bool?
        func deliver(_ fix: Fix) {
            let has = fix.hasPosition
            if has != positioned {
                if !has { report(.noFix) } else if positioned == false { report(.fix) }
                positioned = has
            }
            out.yield(.fix(fix))
        }
        // After gpsd fell silent, a new connection is reported (and resets the backoff) only once
        // a fix comes: a gpsd that is up with no receiver would otherwise be reported connected
        // and silent again at every attempt.
        var awaitingFix = false
        while !stop.isSet {
            do {
                try session.open(host: host, port: port)
            } catch {
                report(.disconnected(error.description))
                awaitingFix = false
                stop.pause(backoff.delay())
                continue
            }
            if !awaitingFix { report(.connected("\(host):\(port)")) }
            var merger = EpochMerger()
            var heard = Self.now()
            var closed: String?, fellSilent = false
            reading: while !stop.isSet {
                // Wake for a pending fix's patience as well as for gpsd.
                let wait = min(0.25, merger.timeUntilDue(at: Self.now()) ?? 0.25)
                if session.waiting(microseconds: Int32(max(0.005, wait) * 1e6)) {
                    switch session.read() {
                    case .closed:
                        closed = "gpsd at \(host):\(port) closed the connection"
                        break reading
                    case .nothing:
                        continue  // part of a line: wait on the socket for the rest
                    case .report(let r):
                        heard = Self.now()
                        if case .position = r {
                            backoff.reset()
                            if awaitingFix {
                                awaitingFix = false
                                report(.connected("\(host):\(port)"))
                            }
                        }
                        if case let .device(path, active) = r, active, !path.isEmpty { report(.device(path)) }
                        for fix in merger.take(r, at: heard) { deliver(fix) }
                    }
                } else {
                    if Self.now() - heard > silence {
                        closed = "gpsd at \(host):\(port) silent for \(Int(silence)) s"
                        fellSilent = true
                        break reading
                    }
                }
                // A fix waits for its GST at most its patience, whatever else gpsd sends.
                if let fix = merger.due(at: Self.now()) { deliver(fix) }
            }
            // The epoch in hand goes out before the news of the disconnection.
            if let fix = merger.flush() { deliver(fix) }
            session.close()
            if let closed {
                if !(fellSilent && awaitingFix) { report(.disconnected(closed)) }
                awaitingFix = fellSilent
            }
            if !stop.isSet { stop.pause(backoff.delay()) }
        }
    }

    /// Monotonic seconds.
    static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
