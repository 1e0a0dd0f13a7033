#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-line progress bar on standard error, only when it is a terminal and the log is big
/// enough to wait for; cleared when done.
final class ProgressBar {
    private let total: Int
    private let label: String
    private var shown = -1
    private let active: Bool

    init(total: Int?, label: String) {
        self.total = total ?? 0
        self.label = label
        active = isatty(2) == 1 && (total ?? 0) >= 8 << 20
    }

    func update(_ done: Int) {
        guard active, total > 0 else { return }
        let percent = min(100, done * 100 / total)
        guard percent != shown else { return }
        shown = percent
        let width = 30, filled = width * percent / 100
        let line = "\r\(label) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] \(percent)%"
        _ = Array(line.utf8).withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }

    /// Clears the bar (once), before anything else is written to standard error.
    func finish() {
        guard active, shown >= 0 else { return }
        shown = -1
        _ = Array("\r\u{1B}[K".utf8).withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
