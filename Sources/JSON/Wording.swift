/// Words for messages, in one place: numbers as a person writes them, and the "did you mean"
/// suggestion for a misspelt name (config keys, catalog fields, species names).
public enum Wording {
    /// `v` without a needless ".0" (`5`, not `5.0`; `0.5`, `1e+20`, `inf`, `nan`): `NumberText.shortest`.
    public static func number(_ v: Double) -> String { NumberText.shortest(v) }

    /// The Levenshtein distance between `a` and `b`, by characters: insertions, deletions and
    /// substitutions, each counting 1.
    public static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var diagonal = row[0]
            row[0] = i
            for j in 1...b.count {
                let next = min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1))
                diagonal = row[j]
                row[j] = next
            }
        }
        return row[b.count]
    }

    /// The candidate nearest `word` when it is at most `maxDistance` edits away (the first of
    /// equals), else nil. Words over 40 characters get none: nothing a user misspells is that
    /// long, and the cost grows with the product of the lengths.
    public static func nearest(_ word: String, in candidates: [String], maxDistance: Int = 3) -> String? {
        guard word.count <= 40 else { return nil }
        let w = Array(word)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let d = editDistance(w, Array(candidate))
            if d <= maxDistance, best.map({ d < $0.distance }) ?? true { best = (candidate, d) }
        }
        return best?.candidate
    }
}
