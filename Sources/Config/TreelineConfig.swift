import Geo
import Rules
import Yams

/// The daemon's configuration file (YAML), whose `monitor:` section the CLI reads too:
///
///     gpsd: {host: 127.0.0.1, port: 2947}
///     regions: /etc/treeline/regions.geojson      # or a list of files
///     socket: /run/treeline/treeline.sock
///     database: /var/lib/treeline/treeline.sqlite
///     species: /usr/local/share/treeline/species.json
///     monitor: {hysteresis_m: 5, accuracy_factor: 1, max_error_m: 50, max_speed_mps: 100,
///               dwell_s: 60, transit: true, initial_enter: false}
///
/// Every key is optional and has the default above. An unknown key is an error, so a typo never
/// falls back to a default silently.
public struct TreelineConfig: Sendable, Equatable {
    public var gpsdHost = "127.0.0.1"
    public var gpsdPort = 2947
    public var regions = ["/etc/treeline/regions.geojson"]
    public var socket = "/run/treeline/treeline.sock"
    public var database = "/var/lib/treeline/treeline.sqlite"
    /// The species catalog (planting rules, plans).
    public var species = "/usr/local/share/treeline/species.json"
    public var monitor = MonitorConfig()

    public init() {}
}
