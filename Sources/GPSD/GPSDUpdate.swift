import Foundation
import Geo
import Synchronization

/// A fix, or a change of status.
public enum GPSDUpdate: Sendable, Equatable {
    case fix(Fix)
    case status(GPSDStatus)
}
