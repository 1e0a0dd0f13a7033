/// What an error message may quote of a user's input: at most `limit` characters, then "…".
///
/// A message that repeats a 10 MB value is itself a problem (a log line, a socket reply); every
/// error that quotes a file's or a client's text goes through here, and a control or
/// text-direction character in it is written as `\u{…}` (`PlainText`): a message may reach a terminal.
public enum TextExcerpt {
    /// Characters quoted at most.
    public static let limit = 80

    /// `text`, or its first `limit` characters and "…" when it is longer.
    public static func short(_ text: some StringProtocol, limit: Int = TextExcerpt.limit) -> String {
        var end = text.startIndex
        var n = 0
        while end < text.endIndex {
            if n == limit { return PlainText.escaped(text[..<end]) + "…" }
            text.formIndex(after: &end)
            n += 1
        }
        return PlainText.escaped(text)
    }
}
