import AR
import Geo
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
    /// The ids of the regions in force (a subscription's `regions` must name some of them).
    func regionIDs() async -> Set<String>
    /// `{"class":"CAN_PLANT",…}`, or why it cannot be answered (no fix, no catalog).
    func canPlant(species: String?, area: String?, at: Coordinate?) async -> Result<[UInt8], RequestError>
    /// `{"class":"PLANT",…}`: recorded (with its number) or refused (with the reason).
    func plant(species: String, area: String?, at: Coordinate?) async -> Result<[UInt8], RequestError>
    /// `{"class":"PLAN",…}`: the positions placed and, when fewer than asked, why.
    func plan(area: String, species: String, count: Int, at: Coordinate?, maxDistance: Double?, seed: UInt64) async -> Result<[UInt8], RequestError>
    /// `{"class":"LAYOUT",…}`: the regions in force as points of interest, stacked on the screen.
    func layout(camera: Camera, options: LayoutOptions, at: Coordinate?) async -> Result<[UInt8], RequestError>
}
