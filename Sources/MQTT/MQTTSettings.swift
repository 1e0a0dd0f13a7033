/// How to reach the broker: the `mqtt:` section of the config, checked.
public struct MQTTSettings: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// Stable across restarts: the broker keeps the session (and its queued messages) by it.
    public var clientID: String
    public var username: String?
    public var password: String?
    public var keepalive: Int
    /// TLS: the CA that signed the broker's certificate, and optionally a client certificate.
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?

    public init(host: String, port: Int, clientID: String, username: String? = nil, password: String? = nil, keepalive: Int = 30,
                caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil) {
        self.host = host
        self.port = port
        self.clientID = clientID
        self.username = username
        self.password = password
        self.keepalive = keepalive
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
    }
}
