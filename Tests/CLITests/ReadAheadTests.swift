import Foundation
import Geo
import Loading
import NMEA
import Testing

/// `treeline replay --regions` parses the log on a thread of its own while the monitor works:
/// what the monitor is handed must be the log's fixes, every one, in order, as a single reading
/// gives them, however the two threads' speeds compare.
@Suite struct ReadAheadReading {
    static var walk: String { dataDirectory.appendingPathComponent("walk.nmea").path }

    static func oneReading(_ path: String) throws -> ([Fix], NMEAStats) {
        var fixes: [Fix] = []
        let stats = try LogFile(path: path).replay { fixes.append($0) }
        return (fixes, stats)
    }

    /// Batches of 1, 7 and 4,096 fixes with 1 to 8 waiting; a consumer that lags (it sleeps now
    /// and then, so the reader fills the queue and waits) and one that does not.
    @Test(arguments: [(1, 1, false), (7, 2, true), (4_096, 8, false), (64, 1, true)])
    func everyFixInOrderAsOneReading(_ batch: Int, _ depth: Int, _ slow: Bool) throws {
        let (expected, expectedStats) = try Self.oneReading(Self.walk)
        let size = try #require(try LogFile(path: Self.walk).size)
        var fixes: [Fix] = []
        var progress: [Int] = []
        // swift-format-ignore: ReplaceForEachWithForLoop
        // ReadAhead's own forEach, which returns the reader's counts.
        let stats = try ReadAhead(try LogFile(path: Self.walk), batch: batch, depth: depth).forEach { fix, bytesRead in
            fixes.append(fix)
            if progress.last != bytesRead { progress.append(bytesRead) }
            if slow, fixes.count % 97 == 0 { usleep(200) }
        }
        #expect(expected.count > 1_000)
        #expect(fixes == expected)
        #expect(stats == expectedStats)
        #expect(progress == progress.sorted() && progress.last == size, "the bytes read only grow, to the whole file")
    }

    /// An empty log ends at once, with a single reading's (empty) counts.
    @Test func anEmptyLogEndsAtOnce() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("read-ahead-\(getpid()).nmea")
        FileManager.default.createFile(atPath: empty.path, contents: Data())
        defer { try? FileManager.default.removeItem(at: empty) }
        var count = 0
        // swift-format-ignore: ReplaceForEachWithForLoop
        let stats = try ReadAhead(try LogFile(path: empty.path)).forEach { _, _ in count += 1 }
        let single = try Self.oneReading(empty.path).1
        #expect(count == 0 && stats == single)
    }
}
