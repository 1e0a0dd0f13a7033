import AR
import Geo
import Store
import Protocol

/// What the socket asks of the daemon. Replies are JSON objects (`{…}`, no newline).
public protocol ServerDelegate: Sendable {
    /// The journal, for subscribers catching up.
    var store: Store { get }
    /// The daemon's version, for HELLO.
    var version: String { get }
    /// The last seq committed.
    func lastSeq() -> Int64
    /// The highest seq retention has pruned (0: none): a subscriber asking for events from
    /// before it is told that some are gone.
    func prunedThrough() -> Int64
    /// The ids of the regions in force (a subscription's `regions` must name some of them).
    func regionIDs() async -> Set<String>
    /// The answer to every command but `subscribe`: the reply's JSON object, or the error the
    /// client is sent (`{"class":"ERROR","message":…}`). Commands that change something answer
    /// after it is committed, and publish their events to subscribers before answering.
    func answer(_ request: Command) async -> Result<[UInt8], CommandError>
}
