import Store

/// What the socket asks of the daemon. Replies are JSON objects (`{…}`, no newline).
public protocol ServerDelegate: Sendable {
    /// The journal, for subscribers catching up.
    var store: Store { get }
    /// The daemon's version, for HELLO.
    var version: String { get }
    /// The last seq committed.
    func lastSeq() -> Int64
    /// Records that a plant was watered: the committed `watered` event (already published to
    /// subscribers), or why not.
    func water(plant: String) async -> Result<JournalEvent, RequestError>
    /// `{"class":"STATE",…}`: the last fix, fences inside, counters, gpsd's status.
    func state() async -> [UInt8]
    /// `{"class":"REGIONS",…}`: the regions in force.
    func regions() async -> [UInt8]
}
