import Foundation
import Geo
import GRDB
import Rules

/// A problem with the database: which file, what went wrong, what to do.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "database \(path): \(message)" }
}
