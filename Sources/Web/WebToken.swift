import Crypto
import Foundation

/// The secret every request must carry: made at first start (32 random bytes, base64url),
/// kept in a file of mode 0600 that only the service's user reads; `treeline web` prints it
/// in the URL a phone opens once.
public struct WebToken: Sendable {
    let value: [UInt8]

    public var text: String { String(decoding: value, as: UTF8.self) }

    /// The token in `path`, or a new one written there (its folder must exist).
    public static func loadOrCreate(_ path: String) throws(WebError) -> WebToken {
        if let data = FileManager.default.contents(atPath: path) {
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.utf8.count >= 16, text.utf8.allSatisfy({ Self.isTokenByte($0) }) else {
                throw WebError("\(path): not a token (at least 16 characters of A–Z, a–z, 0–9, - and _): delete it and restart treelined to make a new one")
            }
            return WebToken(value: Array(text.utf8))
        }
        let token = WebToken(value: Array(Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }).base64URL.utf8))
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw WebError("cannot create the web token \(path): \(String(cString: strerror(errno))) — check that its folder exists and is writable by the service's user, or set http.token_file")
        }
        defer { close(fd) }
        let line = token.value + [0x0A]
        guard line.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == line.count, fsync(fd) == 0 else {
            unlink(path)
            throw WebError("cannot write the web token \(path): \(String(cString: strerror(errno)))")
        }
        return token
    }

    static func isTokenByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
    }

    /// Compares in time that does not depend on where the first difference is.
    func matches(_ candidate: some Collection<UInt8>) -> Bool {
        guard candidate.count == value.count else { return false }
        var diff: UInt8 = 0
        for (a, b) in zip(value, candidate) { diff |= a ^ b }
        return diff == 0
    }
}

extension Data {
    /// RFC 4648 §5, without padding.
    var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

/// What stops the web server from starting: the message names the file or setting and what to do.
public struct WebError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
