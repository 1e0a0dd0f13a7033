import AR
import Geo
import Store

/// Why a request was refused: the text of the ERROR line.
public struct RequestError: Error, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
