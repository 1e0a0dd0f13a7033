import Regions

/// Which regions file each region of the base layer came from, by its position in the layer: a
/// country's 100,000 regions from a few files are 100,000 small numbers beside the files' names,
/// not a dictionary of ids (8 MB).
package struct BaseFiles: Sendable {
    /// The files, in the order their first region comes in the layer.
    package private(set) var names: [String] = []
    private var of: [UInt32] = []

    package init() {}

    /// The files of `list`'s regions, in its order.
    package init(_ list: [(region: Region, file: String)]) {
        of.reserveCapacity(list.count)
        var last: (name: String, index: UInt32)?
        for (_, file) in list {
            if let last, last.name == file {
                of.append(last.index)
                continue
            }
            let i = names.firstIndex(of: file).map(UInt32.init) ?? UInt32(names.count)
            if i == names.count { names.append(file) }
            of.append(i)
            last = (file, i)
        }
    }

    /// The file of the region at `position` of the layer.
    package subscript(position: Int) -> String { names[Int(of[position])] }

    /// The file of region `id` of `layer` (the layer these files are of), or nil; a scan, for
    /// messages.
    package func file(of id: String, in layer: [Region]) -> String? {
        layer.firstIndex(where: { $0.id == id }).map { self[$0] }
    }
}
