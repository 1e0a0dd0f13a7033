import CGPS

/// Facts about the libgps this build links against. The client (reading fixes from gpsd) builds on
/// this module; only it imports CGPS.
public enum LibGPS {
    /// `GPSD_API_MAJOR_VERSION` of the headers compiled against (11 for gpsd 3.22).
    public static var apiMajor: Int { Int(tl_gps_api_major()) }
    public static var apiMinor: Int { Int(tl_gps_api_minor()) }
    /// `sizeof(struct gps_data_t)`, which the client allocates once and never copies.
    public static var dataSize: Int { Int(tl_gps_data_size()) }

    /// libgps's text for an error code from `gps_open` (negative `errno`).
    public static func errorString(_ code: Int32) -> String {
        String(cString: gps_errstr(code))
    }
}
