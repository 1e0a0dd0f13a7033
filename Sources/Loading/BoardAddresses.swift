#if canImport(Glibc)
import Glibc
#endif

/// The names and addresses this machine is reached by: what the web app's certificate is made
/// for, and where `treeline web` says to point the phone.
public struct BoardAddresses: Sendable, Equatable {
    /// The host name, its `.local` form (mDNS, as Avahi answers) and `localhost`.
    public var names: [String]
    /// Every interface's IPv4 and IPv6 address (link-local IPv6 ones left out: a URL cannot
    /// name them without a zone), loopback included, as text.
    public var addresses: [String]

    public init(names: [String], addresses: [String]) {
        self.names = names
        self.addresses = addresses
    }

    /// Read from the system now.
    public static func current() -> BoardAddresses {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count - 1)
        let host = Self.text(buffer)
        var names = ["localhost"]
        if !host.isEmpty, host != "localhost" {
            names.insert(host, at: 0)
            if !host.contains(".") { names.insert(host + ".local", at: 1) }
        }
        var addresses: [String] = []
        var list: UnsafeMutablePointer<ifaddrs>?
        if getifaddrs(&list) == 0, let first = list {
            defer { freeifaddrs(list) }
            var cursor: UnsafeMutablePointer<ifaddrs>? = first
            while let entry = cursor {
                defer { cursor = entry.pointee.ifa_next }
                guard let sa = entry.pointee.ifa_addr else { continue }
                if let text = Self.text(sa), !addresses.contains(text) { addresses.append(text) }
            }
        }
        return BoardAddresses(names: names, addresses: addresses)
    }

    static func text(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An IPv4 or IPv6 (not link-local) socket address as text.
    static func text(_ sa: UnsafeMutablePointer<sockaddr>) -> String? {
        switch Int32(sa.pointee.sa_family) {
        case AF_INET:
            return sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
                var a = p.pointee.sin_addr
                return text(ofAddress: withUnsafeBytes(of: &a) { Array($0) })
            }
        case AF_INET6:
            return sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                var a = p.pointee.sin6_addr
                let bytes = withUnsafeBytes(of: &a) { Array($0) }
                if bytes[0] == 0xFE && (bytes[1] & 0xC0) == 0x80 { return nil }  // fe80::/10
                return text(ofAddress: bytes)
            }
        default:
            return nil
        }
    }

    /// An address's 4 (IPv4) or 16 (IPv6) bytes as text (`inet_ntop`).
    public static func text(ofAddress bytes: [UInt8]) -> String? {
        var out = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = bytes.count == 4 ? AF_INET : bytes.count == 16 ? AF_INET6 : -1
        guard family >= 0 else { return nil }
        return bytes.withUnsafeBytes { p in inet_ntop(family, p.baseAddress, &out, socklen_t(out.count)).map { _ in text(out) } }
    }

    /// An IPv4 or IPv6 address in text as its bytes (`inet_pton`); nil for a name.
    public static func bytes(ofAddress text: String) -> [UInt8]? {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// The URLs a browser may open for a server listening on `host:port`: that address itself,
    /// or, for 0.0.0.0 / ::, each name and non-loopback address first, then the loopback ones.
    public func urls(listenHost host: String, port: Int, https: Bool) -> [String] {
        let scheme = https ? "https" : "http"
        func url(_ h: String) -> String { "\(scheme)://\(h.contains(":") ? "[\(h)]" : h):\(port)/" }
        guard host == "0.0.0.0" || host == "::" else { return [url(host)] }
        let wanted = addresses.filter { host == "::" || !$0.contains(":") }
        let loopback = wanted.filter { $0.hasPrefix("127.") || $0 == "::1" }
        let others = wanted.filter { !loopback.contains($0) }
        return names.filter { $0 != "localhost" }.map(url) + others.map(url) + loopback.map(url)
    }
}
