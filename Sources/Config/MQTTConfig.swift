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
///       owntracks: {user: crew, device: board-7, tid: b7, interval_s: 60, distance_m: 50,
///                   kinds: [plant, album, reforestation]}
///       commands: false              # true: commands and the fleet's regions from the broker
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
    /// OwnTracks' formats too (`owntracks/<user>/<device>`); nil: not published.
    public var ownTracks: OwnTracksConfig?
    /// Take the socket's commands on `<topic>/cmd` and `treeline/fleet/cmd`, and the fleet's
    /// regions from `treeline/fleet/regions` (default false: the broker only hears).
    public var commands = false

    public init() {}
}

/// `mqtt.owntracks:`: the board as an OwnTracks device.
public struct OwnTracksConfig: Sendable, Equatable {
    /// Default "treeline".
    public var user: String?
    /// Default: the client id.
    public var device: String?
    /// Tracker id shown on maps, 1 or 2 characters; default the device's first two.
    public var tid: String?
    /// A location at most every `interval_s`, or sooner after moving `distance_m`.
    public var intervalSeconds = 60.0
    public var distance = 50.0
    /// The kinds of region whose enter/exit go as transitions and whose circles as waypoints.
    public var kinds: Set<String> = ["plant", "album", "reforestation"]

    public init() {}
}
