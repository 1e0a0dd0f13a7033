import Geo
import JSON
import Regions

/// The species catalog (`Data/species.json`): what may be planted, with spacing and heights.
///
/// The file is a JSON object `{"about": "…", "species": [ {…}, … ]}`; each entry has exactly
/// `latin`, `common` (non-empty strings), `spacing_m`, `min_height_m` and `max_height_m` (metres,
/// more than 0, min not above max). Latin names are unique, and no name (Latin or common) may
/// stand for two species, so `named(_:)` is never ambiguous. Every problem is reported, not just
/// the first, each naming the file, the entry's index and Latin name, and what to change.
public struct SpeciesCatalog: Sendable {
    /// Every species, in file order.
    public var species: [Species]
    /// Normalized name (Latin or common) → index in `species`.
    private var index: [String: Int]

    /// Sanity bounds that catch numbers in the wrong unit.
    public static let maxSpacing = 20.0
    /// The largest height accepted, metres.
    public static let maxHeight = 120.0

    static let fields = ["latin", "common", "spacing_m", "min_height_m", "max_height_m"]
    static let topLevelKeys = ["about", "species"]

    /// Reads a catalog file; `file` names it in problems. Throws `SpeciesCatalogError` with every
    /// problem found.
    public init(parsing bytes: some Collection<UInt8>, file: String) throws(SpeciesCatalogError) {
        typealias Problem = SpeciesCatalogError.Problem
        func fail(_ reason: SpeciesCatalogError.Reason) -> SpeciesCatalogError {
            SpeciesCatalogError(file: file, problems: [Problem(entry: nil, latin: nil, reason: reason)])
        }
        let doc: JSONDocument
        do {
            doc = try JSONDocument.parse(Array(bytes), duplicateMembers: true)  // reported below, by field
        } catch {
            throw fail(.notJSON(line: error.line, column: error.column, message: error.message))
        }
        guard case let .object(top) = doc.root else { throw fail(.notACatalog(found: doc.root.typeName)) }

        var problems = Self.topLevelProblems(top)
        guard let list = doc.root["species"] else {
            throw SpeciesCatalogError(file: file, problems: problems + [Problem(entry: nil, latin: nil, reason: .noSpeciesList)])
        }
        guard case let .array(entries) = list else {
            throw SpeciesCatalogError(file: file, problems: problems + [Problem(entry: nil, latin: nil,
                reason: .wrongType(field: "species", expected: "an array of species objects", found: list.typeName))])
        }
        if entries.isEmpty { problems.append(Problem(entry: nil, latin: nil, reason: .emptyCatalog)) }

        var species: [Species] = []
        var index: [String: Int] = [:]          // normalized name → position in `species`
        var owner: [String: (entry: Int, field: String)] = [:]  // normalized name → where it was first given
        for (n, entry) in entries.enumerated() {
            guard case .object = entry else {
                problems.append(Problem(entry: n, latin: nil, reason: .notAnObject(found: entry.typeName)))
                continue
            }
            var reader = EntryReader(entry: entry, index: n)
            let l = reader.name("latin"), common = reader.name("common")
            let spacing = reader.metres("spacing_m", limit: Self.maxSpacing)
            let minHeight = reader.metres("min_height_m", limit: Self.maxHeight)
            let maxHeight = reader.metres("max_height_m", limit: Self.maxHeight)
            if let minHeight, let maxHeight, minHeight > maxHeight { reader.add(.minAboveMax(min: minHeight, max: maxHeight)) }

            // Names: a Latin name once; no name standing for two species.
            var names: [(field: String, key: String)] = []
            if let l { names.append(("latin", Self.normalized(l))) }
            if let common { names.append(("common", Self.normalized(common))) }
            var reported: Set<Int> = []  // one problem per other entry (a copied entry clashes in both names)
            for (field, key) in names {
                if let first = owner[key], first.entry != n {
                    guard reported.insert(first.entry).inserted else { continue }
                    if field == "latin", first.field == "latin" {
                        reader.add(.duplicateLatin(firstEntry: first.entry))
                    } else {
                        reader.add(.ambiguousName(field: field, otherEntry: first.entry, otherField: first.field))
                    }
                } else if owner[key] == nil {
                    owner[key] = (n, field)
                }
            }

            problems += reader.problems
            guard reader.problems.isEmpty, let l, let common, let spacing, let minHeight, let maxHeight else { continue }
            for (_, key) in names where index[key] == nil { index[key] = species.count }
            species.append(Species(latin: l, common: common, spacing: spacing, minHeight: minHeight, maxHeight: maxHeight))
        }
        if !problems.isEmpty { throw SpeciesCatalogError(file: file, problems: problems) }
        self.species = species
        self.index = index
    }

    /// The species with this Latin or common name, ignoring case and extra spaces.
    public func named(_ name: String) -> Species? {
        index[Self.normalized(name)].map { species[$0] }
    }

    /// The species whose Latin or common name is nearest a name that is not in the catalog
    /// (edit distance at most 3, and less than half the name's length), for "did you mean".
    public func suggestion(for name: String) -> Species? {
        let key = Self.normalized(name)
        guard !key.isEmpty else { return nil }
        if let exact = index[key] { return species[exact] }
        let word = Array(key)
        var best: (distance: Int, index: Int)?
        for (candidate, i) in index {
            let d = Wording.editDistance(word, Array(candidate))
            guard d <= 3, 2 * d < word.count else { continue }
            if let b = best, (b.distance, b.index) <= (d, i) { continue }
            best = (d, i)
        }
        return best.map { species[$0.index] }
    }

    /// Species named in regions' `species` lists that the catalog does not have, in the regions'
    /// order, each with the region's id.
    public func unknownSpecies(in regions: [Region]) -> [(region: String, species: String)] {
        var out: [(region: String, species: String)] = []
        for region in regions {
            for name in region.species where named(name) == nil { out.append((region.id, name)) }
        }
        return out
    }

    // MARK: Helpers

    /// Problems with the catalog's top-level keys: repeated, unknown (with a suggestion), or an
    /// `about` that is not a string.
    static func topLevelProblems(_ top: [(key: String, value: JSONValue)]) -> [SpeciesCatalogError.Problem] {
        var problems: [SpeciesCatalogError.Problem] = []
        var seen: Set<String> = []
        for (key, value) in top {
            let reason: SpeciesCatalogError.Reason
            if !seen.insert(key).inserted {
                reason = .repeatedField(key)
            } else if !topLevelKeys.contains(key) {
                reason = .unknownField(key, suggestion: Wording.nearest(key.lowercased(), in: topLevelKeys))
            } else if key == "about", value.string == nil {
                reason = .wrongType(field: "about", expected: "a string", found: value.typeName)
            } else {
                continue
            }
            problems.append(SpeciesCatalogError.Problem(entry: nil, latin: nil, reason: reason))
        }
        return problems
    }

    /// Reads one entry of `species`, collecting its problems (each naming the entry and, once
    /// known, its Latin name); its members are checked for repeats and unknown names at once.
    struct EntryReader {
        let entry: JSONValue
        let index: Int
        let latin: String?
        private(set) var problems: [SpeciesCatalogError.Problem] = []

        init(entry: JSONValue, index: Int) {
            self.entry = entry
            self.index = index
            if let l = entry["latin"]?.string, !SpeciesCatalog.normalized(l).isEmpty { latin = SpeciesCatalog.trimmed(l) } else { latin = nil }
            guard case let .object(members) = entry else { return }
            var seen: Set<String> = []
            for (key, _) in members {
                if !seen.insert(key).inserted {
                    add(.repeatedField(key))
                } else if !SpeciesCatalog.fields.contains(key) {
                    add(.unknownField(key, suggestion: Wording.nearest(key.lowercased(), in: SpeciesCatalog.fields)))
                }
            }
        }

        mutating func add(_ reason: SpeciesCatalogError.Reason) {
            problems.append(SpeciesCatalogError.Problem(entry: index, latin: latin, reason: reason))
        }

        /// A name field: a non-empty string, trimmed.
        mutating func name(_ field: String) -> String? {
            guard let v = entry[field] else { add(.missingField(field)); return nil }
            guard let s = v.string else { add(.wrongType(field: field, expected: "a string", found: v.typeName)); return nil }
            guard !SpeciesCatalog.normalized(s).isEmpty else { add(.emptyName(field)); return nil }
            return SpeciesCatalog.trimmed(s)
        }

        /// A length in metres: more than 0, finite, at most `limit`.
        mutating func metres(_ field: String, limit: Double) -> Double? {
            guard let v = entry[field] else { add(.missingField(field)); return nil }
            guard let x = v.number else {
                add(.wrongType(field: field, expected: "a number of metres", found: v.typeName))
                return nil
            }
            guard x > 0, x.isFinite else { add(.notPositive(field: field, value: x)); return nil }
            guard x <= limit else { add(.implausible(field: field, value: x, limit: limit)); return nil }
            return x
        }
    }

    /// Lowercased, with runs of white space made one space and none at the ends.
    static func normalized(_ s: String) -> String {
        s.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static func trimmed(_ s: String) -> String {
        s.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
