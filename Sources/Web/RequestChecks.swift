/// Checks of a request's address and origin that need no server: pure, tested on their own
/// (Tests/WebTests).
public enum RequestChecks {
    /// Why a request's path, as received (not decoded), is refused before any file or route
    /// is looked up; nil when it is fine. A file server decodes the path and opens what it
    /// names: a NUL (`%00`) cuts the name short, so `photo%00.html` would open `photo` and be
    /// typed by `.html`; a backslash or an encoded slash names another folder to some readers.
    /// So: no NUL, no control character (C0 or DEL), no backslash, no encoded slash or backslash,
    /// raw or percent-encoded, and every `%` followed by two hex digits.
    public static func refusal(ofPath path: some StringProtocol) -> String? {
        let b = Array(path.utf8)
        var i = 0
        while i < b.count {
            var byte = b[i]
            var encoded = false
            if byte == UInt8(ascii: "%") {
                guard i + 2 < b.count, let hi = hex(b[i + 1]), let lo = hex(b[i + 2]) else {
                    return "a % in the path must be followed by two hex digits"
                }
                byte = hi << 4 | lo
                encoded = true
                i += 2
            }
            if byte == 0 { return "the path holds a NUL" + (encoded ? " (%00)" : "") }
            if byte < 0x20 || byte == 0x7F { return "the path holds a control character" }
            if byte == UInt8(ascii: "\\") { return "the path holds a backslash" }
            if encoded && byte == UInt8(ascii: "/") { return "the path holds an encoded slash (%2F)" }
            i += 1
        }
        return nil
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Where `/?token=…` sends the browser back to: the request's path when it is a plain path
    /// of this origin (`/` then letters, digits, `-`, `.`, `_`, `~` and single slashes, no
    /// `..`), else `/`. A browser reads `//host`, `/\host` (and `/\t\host`, …) as another site.
    public static func redirectTarget(forPath path: some StringProtocol) -> String {
        let b = Array(path.utf8)
        guard b.first == UInt8(ascii: "/") else { return "/" }
        var previous: UInt8 = 0
        for c in b {
            let plain = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
                || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "~") || c == UInt8(ascii: "/")
            guard plain, !(c == UInt8(ascii: "/") && previous == UInt8(ascii: "/")) else { return "/" }
            previous = c
        }
        if path.split(separator: "/").contains(where: { $0 == ".." || $0 == "." }) { return "/" }
        return String(path)
    }

    /// Whether a state-changing request a cookie carried comes from this board's own page:
    /// its `Origin` is the origin served (`scheme://` the request's Host, the port the scheme's
    /// default when Host has none), or, with no Origin, `Sec-Fetch-Site: same-origin`. Another
    /// port of the same host is another origin (though the cookie, SameSite=Lax, goes there).
    public static func isSameOrigin(origin: String?, secFetchSite: String?, host: String?, scheme: String) -> Bool {
        guard let origin else { return secFetchSite?.lowercased() == "same-origin" }
        guard let host, let served = Authority(host, scheme: scheme),
              let (originScheme, rest) = origin.split(separator: "://", maxSplits: 1).twoParts,
              originScheme.lowercased() == scheme, !rest.contains("/"), let from = Authority(rest, scheme: scheme) else { return false }
        return from == served
    }

    /// A host and port, the host in lower case, the port the scheme's default when not given.
    struct Authority: Equatable {
        let host: String
        let port: Int

        init?(_ text: some StringProtocol, scheme: String) {
            let s = String(text)
            guard !s.isEmpty, !s.contains("@") else { return nil }
            var hostPart = Substring(s), portPart: Substring?
            if s.hasPrefix("[") {  // [IPv6]:port
                guard let close = s.firstIndex(of: "]") else { return nil }
                hostPart = s[...close]
                let after = s[s.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":") else { return nil }
                    portPart = after.dropFirst()
                }
            } else if let colon = s.lastIndex(of: ":") {
                hostPart = s[..<colon]
                portPart = s[s.index(after: colon)...]
            }
            guard !hostPart.isEmpty else { return nil }
            host = hostPart.lowercased()
            if let portPart {
                guard !portPart.isEmpty, portPart.allSatisfy(\.isASCII), let p = Int(portPart), (1...65535).contains(p) else { return nil }
                port = p
            } else {
                port = scheme == "https" ? 443 : 80
            }
        }
    }
}

extension Array where Element == Substring {
    fileprivate var twoParts: (Substring, Substring)? { count == 2 ? (self[0], self[1]) : nil }
}
