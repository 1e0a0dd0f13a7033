/// Inputs that fuzzing found harmful, shared by the suites that check each layer against them.
public enum HostileInput {
    /// Four lines that stopped `treeline replay --regions` with SIGILL: GGA's HDOP of -99.9 made
    /// a negative horizontal error and the monitor an inverted query box.
    public static let negativeHDOP = """
        $GPRMC,090000.00,A,4006.21600,N,00814.13000,W,,,010526,,,A*4D
        $GPGGA,090000.00,4006.21600,N,00814.13000,W,1,08,-99.9,,M,,M,,*53
        $GPRMC,090001.00,A,4006.21600,N,00814.14300,W,,,010526,,,A*48
        $GPGGA,090001.00,4006.21600,N,00814.14300,W,1,08,-99.9,,M,,M,,*56

        """
}
