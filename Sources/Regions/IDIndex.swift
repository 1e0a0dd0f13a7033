/// Each region's index by its id, for a `RegionSet`: an open-addressed table of the regions'
/// indices (4 bytes a slot, twice as many slots as regions), the ids themselves read from the
/// regions. A `[String: Int]` of a country's 100,000 regions costs 6 MB; this costs 1.
struct IDIndex: Sendable {
    /// Region index + 1 per slot; 0 is an empty slot. The count is a power of two.
    private let slots: [Int32]

    /// The index of every region by its id; where ids repeat, the first region wins.
    init(_ regions: [Region]) {
        precondition(regions.count < Int(Int32.max) / 2, "too many regions for one set")
        var capacity = 8
        while capacity < 2 * regions.count { capacity *= 2 }
        var slots = [Int32](repeating: 0, count: capacity)
        let mask = capacity - 1
        for (i, r) in regions.enumerated() {
            var s = r.id.hashValue & mask
            while slots[s] != 0 {
                if regions[Int(slots[s]) - 1].id == r.id { break }
                s = (s + 1) & mask
            }
            if slots[s] == 0 { slots[s] = Int32(i + 1) }
        }
        self.slots = slots
    }

    /// The index in `regions` (those the table was made from) of the region named `id`.
    func index(of id: String, in regions: [Region]) -> Int? {
        let mask = slots.count - 1
        var s = id.hashValue & mask
        // At most half the slots are taken, so an empty one ends every probe.
        while slots[s] != 0 {
            let i = Int(slots[s]) - 1
            if regions[i].id == id { return i }
            s = (s + 1) & mask
        }
        return nil
    }
}
