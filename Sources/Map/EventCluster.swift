#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo
import Rules

/// Events drawn as one marker because they are within a few pixels of each other.
struct EventCluster {
    var x: Double
    var y: Double
    var events: [Int]
}
