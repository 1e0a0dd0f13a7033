import Foundation
import Geo
import Synchronization

/// What the gpsd client reports besides fixes, once per change.
public enum GPSDStatus: Sendable, Equatable, CustomStringConvertible {
    /// Connected to gpsd and watching.
    case connected(String)
    /// gpsd reads this receiver.
    case device(String)
    /// The receiver reports no position (mode 1): under canopy, indoors, starting up.
    case noFix
    /// Positions again after `noFix`.
    case fix
    /// Not connected, and why: gpsd absent, gone, or silent. The client keeps trying.
    case disconnected(String)

    public var description: String {
        switch self {
        case .connected(let s): return "connected to gpsd at \(s)"
        case .device(let s): return "receiver \(s)"
        case .noFix: return "no fix"
        case .fix: return "fix"
        case .disconnected(let s): return "disconnected: \(s)"
        }
    }
}
