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
///       owntracks: {user: board-7, device: treeline, tid: b7, interval_s: 60, distance_m: 50,
///                   kinds: [plant, album, reforestation], transitions: false, crew: true}
///       home_assistant: {prefix: homeassistant, inside: [album, reforestation], buttons: true}
///       commands: [water, add_region] # the commands the broker may send (default none)
///       fleet_regions: false         # true: take the fleet's regions (treeline/fleet/regions)
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
    /// The socket's commands taken on `<topic>/cmd` and `treeline/fleet/cmd`, in the order
    /// listed, once each (default none: no command topic is subscribed). Any client the broker
    /// lets publish there may send them: list only what the fleet needs.
    public var commands: [String] = []
    /// Take the fleet's regions from the retained `treeline/fleet/regions` (default false).
    public var fleetRegions = false
    /// Home Assistant's MQTT discovery; nil: none.
    public var homeAssistant: HomeAssistantConfig?

    /// What `commands:` may list: the socket's commands (`Command.commands`) but `subscribe`,
    /// which is the socket's own (over MQTT, `<topic>/events` is the subscription). Kept equal
    /// to `Command.commands` by a test (Config does not depend on Protocol).
    public static let commandNames = ["water", "undo_water", "state", "regions", "export", "add_region", "add_regions", "update_region", "remove_region", "restore_region",
                                      "can_plant", "plant", "trees", "remove_tree", "undo_tree", "plan", "layout", "capture", "captures",
                                      "track", "species", "round", "add_trail", "trails", "remove_trail", "start_trail", "stop_trail", "journal", "crew"]

    public init() {}
}

/// `mqtt.owntracks:`: the board as an OwnTracks device.
public struct OwnTracksConfig: Sendable, Equatable {
    /// Default: the client id (Home Assistant names the device by this level).
    public var user: String?
    /// Default "treeline".
    public var device: String?
    /// Tracker id shown on maps, 1 or 2 characters; default the user's first and last letter
    /// or digit.
    public var tid: String?
    /// A location at most every `interval_s`, or sooner after moving `distance_m`.
    public var intervalSeconds = 60.0
    public var distance = 50.0
    /// The kinds of region whose circles go as waypoints (and, with `transitions`, whose enter
    /// and exit go as transitions).
    public var kinds: Set<String> = ["plant", "album", "reforestation"]
    /// Enter and leave transitions for the waypoints' regions (default false: Home Assistant's
    /// OwnTracks integration holds a device at a zone's centre from an enter to its leave).
    public var transitions = false
    /// Show the crew (`owntracks/+/+`) on the web map (default true).
    public var crew = true

    public init() {}
}

/// `mqtt.home_assistant:` (or `true`): Home Assistant's MQTT discovery.
public struct HomeAssistantConfig: Sendable, Equatable {
    /// The discovery prefix, Home Assistant's default.
    public var prefix = "homeassistant"
    /// The kinds of region that get an "inside" binary sensor each (default none).
    public var inside: Set<String> = []
    /// A Water button per plant when `commands` lists `water` (default true).
    public var buttons = true

    public init() {}
}
