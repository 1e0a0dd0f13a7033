/// Delays between attempts to reach gpsd: doubling from 0.1 s, at most `cap` (10 s). Pure.
struct Backoff {
    let first: Double
    let cap: Double
    private var next: Double

    init(first: Double = 0.1, cap: Double = 10) {
        self.first = first
        self.cap = cap
        next = first
    }

    /// The delay before the next attempt.
    mutating func delay() -> Double {
        defer { next = min(cap, next * 2) }
        return next
    }

    /// After a connection that delivered reports: start again from the first delay.
    mutating func reset() { next = first }
}
