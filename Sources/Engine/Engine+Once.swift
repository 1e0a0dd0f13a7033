import Protocol
import Server
import Store
import Web

/// Commands with an idempotency key (the web app's queued actions, MQTT's ids): a change whose
/// key was answered before is answered again from the store, not run again. The check, the
/// change and the key's record happen on the actor with no suspension between them, so two
/// copies of one request arriving together (a retry racing its original) still run once.
extension Engine {
    /// Runs `command` under `key` (made by `Store.idempotencyKey`). A read is simply answered.
    /// A change is run unless `key` was answered before; when it succeeds, `recorded(answer)`
    /// is kept under the key (MQTT keeps its reply with the id, the web the answer itself).
    package nonisolated func answer(_ command: Command, key: String,
                                    recorded: @escaping @Sendable ([UInt8]) -> [UInt8] = { $0 }) async -> Result<KeyedAnswer, CommandError> {
        guard command.isChange else { return .success(.ran(await answer(command))) }
        return await once(command, key: key, recorded: recorded)
    }

    func once(_ command: Command, key: String, recorded: @Sendable ([UInt8]) -> [UInt8]) -> Result<KeyedAnswer, CommandError> {
        do {
            if let earlier = try store.idempotentAnswer(for: key) { return .success(.repeated(earlier)) }
        } catch {
            logger.error("idempotency key \(key): \(error)")
            return .failure(CommandError("the database failed; the command was not run (see the daemon's log): send it again later"))
        }
        let answer = change(command)
        if case .success(let bytes) = answer {
            // A separate transaction from the change's own: a power cut between the two (a
            // moment) would let a retry run it again; everything else cannot.
            do { try store.record(key: key, answer: recorded(bytes), at: .now) } catch {
                logger.error("\(command.name) ran but its idempotency key \(key) was not recorded: \(error)")
            }
        }
        return .success(.ran(answer))
    }
}
