/// The config's `mqtt:` section: where the bridge publishes. Absent: no MQTT at all.
///
///     mqtt:
///       host: broker.example.org     # required
///       port: 1883                   # 8883 is usual with tls:
///       client_id: board-7           # default: the host name; the broker keeps the session by it
///       username: board-7
///       password_file: /etc/treeline/mqtt-password   # one line; kept out of the config
///       topic: treeline/board-7      # default treeline/<client_id>
///       keepalive_s: 30
///       tls: {ca_file: /etc/ssl/certs/ca.pem, cert_file: …, key_file: …}
public struct MQTTConfig: Sendable, Equatable {
    public var host = ""
    public var port = 1883
    public var clientID: String?
    public var username: String?
    public var passwordFile: String?
    public var topic: String?
    public var keepalive = 30
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?

    public init() {}
}
