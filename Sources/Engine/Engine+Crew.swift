import Foundation
import MQTT

/// The crew seen on the broker, kept by the engine so that `crew` is answered like any command.
extension Engine {
    /// The board's own OwnTracks topic, never counted as crew.
    package func startCrew(own: String) { crew = CrewBook(own: own) }

    /// A message from `owntracks/+/+`, aged by the board's own time, else (before the first fix
    /// of this run, when the broker hands over every retained location) the system clock.
    package func takeCrew(topic: String, payload: [UInt8]) -> CrewBook.Outcome {
        let boardSeconds = (try? boardTime(ago: 0).get().nanoseconds / 1_000_000_000) ?? Int64(Date().timeIntervalSince1970)
        return crew.take(topic: topic, payload: payload, received: monotonicNanos(), boardSeconds: boardSeconds)
    }
}

extension Engine {
    /// `CREW`, now.
    func crewReply() -> [UInt8] { crew.reply(now: monotonicNanos()) }
}
