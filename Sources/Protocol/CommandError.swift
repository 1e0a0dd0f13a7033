import AR
import Geo
import JSON

/// Why a request was refused: the text of the ERROR line.
public struct CommandError: Error, Equatable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }

    /// `{"class":"ERROR","message":…}` (no newline): what every transport sends for it.
    public var json: [UInt8] {
        JSONWriter.object { o in
            o.member("class", "ERROR")
            o.member("message", message)
        }
    }
}
