import Foundation
import Geo
import Synchronization

/// Ends a stream of `GPSDClient.updates(until:)` gracefully: the reader hands over the fix it
/// holds, then the stream ends (within a quarter of a second once connected).
public final class GPSDStop: Sendable {
    let flag = StopFlag()
    public init() {}
    public func stop() { flag.set() }
}
