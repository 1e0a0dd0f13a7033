import AR
import Geo
import JSON

/// Why a request was refused: the text of the ERROR line.
public struct CommandError: Error, Equatable, Sendable {
    public var message: String
    /// Not a refusal of the request but of the moment (the database failed, no fix yet since a
    /// restart): the same request may succeed later, so a queue keeps it (HTTP 503).
    public var retryLater: Bool
    public init(_ message: String, retryLater: Bool = false) {
        self.message = message
        self.retryLater = retryLater
    }

    /// `{"class":"ERROR","message":…}` (no newline), with `"retry_later":true` when it is one:
    /// what every transport sends for it.
    public var json: [UInt8] {
        JSONWriter.object { o in
            o.member("class", "ERROR")
            o.member("message", message)
            if retryLater { o.member("retry_later", true) }
        }
    }
}
