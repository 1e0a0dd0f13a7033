#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// How `fill` lays trees out.
public enum FillPattern: String, Sendable, CaseIterable {
    /// A triangular lattice at the spacing (the densest packing), then gap-filled.
    case hexagonal
    /// Bridson's Poisson-disk sampling (irregular), then gap-filled.
    case poisson
}
