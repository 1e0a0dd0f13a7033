import MQTT

/// The crew seen on the broker, kept by the engine so that `crew` is answered like any command.
extension Engine {
    /// The board's own OwnTracks topic, never counted as crew.
    package func startCrew(own: String) { crew = CrewBook(own: own) }

    /// A message from `owntracks/+/+`, with the board's own time (if it has one) to age it by.
    package func takeCrew(topic: String, payload: [UInt8]) -> CrewBook.Outcome {
        let boardSeconds = try? boardTime(ago: 0).get().nanoseconds / 1_000_000_000
        return crew.take(topic: topic, payload: payload, received: monotonicNanos(), boardSeconds: boardSeconds)
    }
}

extension Engine {
    /// `CREW`, now.
    func crewReply() -> [UInt8] { crew.reply(now: monotonicNanos()) }
}
