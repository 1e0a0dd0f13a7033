/// Text that a name, a note, an id or a species may hold, and how to show the rest.
///
/// A name travels: into a terminal (`treeline plants`), a log, a page, an MQTT payload. A C0 or
/// C1 control (ESC starts a terminal's escape sequences; U+009B is CSI on its own), DEL, or a
/// bidirectional override or isolate (which reorders what follows it, so "txt.exe" can show as
/// "exe.txt") acts on whatever shows it. Such text is refused where it enters (every command,
/// regions files, fleet regions), and escaped where a message quotes it. Lone surrogates cannot
/// reach here: the JSON reader refuses them, and a Swift string cannot hold one.
public enum PlainText {
    /// Whether a scalar may not appear in a name, note, id or species.
    @inlinable
    public static func isUnsafe(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0..<0x20, 0x7F...0x9F: return true  // C0, DEL, C1
        case 0x202A...0x202E, 0x2066...0x2069: return true  // bidi embeddings, overrides, isolates
        default: return false
        }
    }

    /// The first scalar of `s` that may not appear, nil when there is none.
    public static func firstUnsafe(in s: some StringProtocol) -> Unicode.Scalar? {
        s.unicodeScalars.first(where: isUnsafe)
    }

    /// nil when `s` is plain; else why not, naming `field` and the character (escaped) and what to do.
    public static func problem(_ s: some StringProtocol, field: String) -> String? {
        guard let u = firstUnsafe(in: s) else { return nil }
        return "\(field) holds \(escape(u)), a control or text-direction character: names, notes, ids and species are plain text (no escapes, tabs or line breaks)"
    }

    /// `\u{1B}` for a scalar that may not appear.
    static func escape(_ u: Unicode.Scalar) -> String { "\\u{" + String(u.value, radix: 16, uppercase: true) + "}" }

    /// `s` with every scalar that may not appear written as `\u{…}` (and a backslash as itself):
    /// safe to print to a terminal or a log.
    public static func escaped(_ s: some StringProtocol) -> String {
        guard firstUnsafe(in: s) != nil else { return String(s) }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            if isUnsafe(u) { out.append(contentsOf: escape(u).unicodeScalars) } else { out.append(u) }
        }
        return String(out)
    }

    /// For a terminal: as `escaped`, but line feeds (and tabs) kept, as a table or a list of lines
    /// holds them.
    public static func forTerminal(_ s: some StringProtocol) -> String {
        var out = String.UnicodeScalarView()
        var changed = false
        for u in s.unicodeScalars {
            if isUnsafe(u) && u != "\n" && u != "\t" {
                out.append(contentsOf: escape(u).unicodeScalars)
                changed = true
            } else {
                out.append(u)
            }
        }
        return changed ? String(out) : String(s)
    }
}
