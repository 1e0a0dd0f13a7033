#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geo

/// A screen layout: the active POIs, and what was left out.
public struct Layout: Sendable {
    /// The active POIs in the order they were chosen: priority descending, distance, id.
    public var items: [LayoutItem]
    /// POIs given, and those beyond `maxDistance` or beyond the `maxVisible` nearest.
    public var poiCount: Int
    public var beyondMaxDistance: Int
    public var beyondMaxVisible: Int

    public var hiddenCount: Int { items.reduce(0) { $0 + ($1.hidden ? 1 : 0) } }
    public var visibleCount: Int { items.reduce(0) { $0 + ($1.visible ? 1 : 0) } }
    public var nearViewCount: Int { items.reduce(0) { $0 + ($1.inNearView ? 1 : 0) } }
}
