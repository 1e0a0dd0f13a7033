import Geo
import JSON

extension SpeciesCatalog {
    /// How well a species answered a search; better matches sort first.
    public enum Match: Int, Sendable, Comparable {
        /// The query is the Latin or common name.
        case exact = 0
        /// A name, or one of its words, starts with the query.
        case prefix = 1
        /// The query is inside a name.
        case contains = 2
        /// A name or one of its words is a small typo away (one edit up to 5 letters, two beyond).
        case typo = 3

        public static func < (a: Match, b: Match) -> Bool { a.rawValue < b.rawValue }
    }

    /// The species whose Latin or common name answers `query`, best first (then by Latin name):
    /// case, accents and runs of spaces do not matter, and a small typo is forgiven. An empty
    /// query answers every species.
    public func search(_ query: String) -> [(species: Species, match: Match)] {
        let q = Self.searchKey(query)
        guard !q.isEmpty else { return species.sorted { $0.latin < $1.latin }.map { ($0, .exact) } }
        let allowed = q.count <= 5 ? 1 : 2
        var found: [(species: Species, match: Match)] = []
        for s in species {
            var best: Match?
            for name in [s.latin, s.common] {
                let key = Self.searchKey(name)
                let words = key.split(separator: " ").map(String.init)
                let match: Match?
                if key == q {
                    match = .exact
                } else if key.hasPrefix(q) || words.contains(where: { $0.hasPrefix(q) }) {
                    match = .prefix
                } else if key.contains(q) {
                    match = .contains
                } else if ([key] + words).contains(where: { Wording.editDistance(Array(q), Array($0)) <= allowed }) {
                    match = .typo
                } else {
                    match = nil
                }
                if let match, best.map({ match < $0 }) ?? true { best = match }
            }
            if let best { found.append((s, best)) }
        }
        return found.sorted { $0.match != $1.match ? $0.match < $1.match : $0.species.latin < $1.species.latin }
    }

    /// `s` lowercased, without accents (Latin letters of U+00C0–U+017F to their base letter,
    /// combining marks dropped), with runs of white space made one space and none at the ends.
    static func searchKey(_ s: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(s.unicodeScalars.count)
        for c in s.lowercased().unicodeScalars where c.properties.generalCategory != .nonspacingMark {
            out.unicodeScalars.append(Self.baseLetter[c] ?? c)  // a decomposed accent is dropped above
        }
        return out.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Accented lower-case Latin letters to their base letter.
    static let baseLetter: [Unicode.Scalar: Unicode.Scalar] = {
        let groups: [(String, Unicode.Scalar)] = [
            ("àáâãäåāăą", "a"), ("çćĉċč", "c"), ("ďđ", "d"), ("èéêëēĕėęě", "e"), ("ĝğġģ", "g"), ("ĥħ", "h"),
            ("ìíîïĩīĭįı", "i"), ("ĵ", "j"), ("ķ", "k"), ("ĺļľŀł", "l"), ("ñńņňŉ", "n"), ("òóôõöøōŏő", "o"),
            ("ŕŗř", "r"), ("śŝşšș", "s"), ("ţťŧț", "t"), ("ùúûüũūŭůűų", "u"), ("ŵ", "w"), ("ýÿŷ", "y"), ("źżž", "z"),
        ]
        var table: [Unicode.Scalar: Unicode.Scalar] = [:]
        for (letters, base) in groups {
            for c in letters.unicodeScalars { table[c] = base }
        }
        return table
    }()
}
