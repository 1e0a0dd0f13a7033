/// A libmosquitto call that failed, worded for the daemon's log.
public struct MQTTError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
