import Protocol
import Server
import Store
import Web

/// Commands with an idempotency key (the web app's queued actions, MQTT's ids): a change whose
/// key was answered before is answered again from the store, not run again. The check, the
/// change and the key's record happen on the actor with no suspension between them, so two
/// copies of one request arriving together (a retry racing its original) still run once.
///
/// A key is kept with the request it came with (`Command.requestDigest`): the same key on
/// another request is another key, never the first request's answer.
extension Engine {
    /// Runs `command` under `key` (made by `Store.idempotencyKey`). A read is simply answered.
    /// A change is run unless `key` was answered before; when it succeeds, `recorded(answer)`
    /// is kept under the key (MQTT keeps its reply with the id, the web the answer itself).
    package nonisolated func answer(_ command: Command, key: String,
                                    recorded: @escaping @Sendable ([UInt8]) -> [UInt8] = { $0 }) async -> Result<KeyedAnswer, CommandError> {
        guard command.isChange else { return .success(.ran(await answer(command))) }
        return await once(command, key: command.keyed(key), recorded: recorded)
    }

    /// At most this many keys whose record failed are kept in memory (answered from there until
    /// a later write saves them).
    static let unrecordedKeep = 1000

    func once(_ command: Command, key: String, recorded: @Sendable ([UInt8]) -> [UInt8]) -> Result<KeyedAnswer, CommandError> {
        saveUnrecordedKeys()
        if let earlier = unrecordedKeys[key] { return .success(.repeated(earlier)) }
        do {
            if let earlier = try store.idempotentAnswer(for: key) { return .success(.repeated(earlier)) }
        } catch {
            logger.error("idempotency key \(key): \(error)")
            return .failure(CommandError("the database failed; the command was not run (see the daemon's log): send it again later", retryLater: true))
        }
        let answer = change(command)
        if case .success(let bytes) = answer {
            let kept = recorded(bytes)
            // A separate transaction from the change's own. When it fails, the key is answered
            // from memory and written with the next keyed command: a repeat still runs once,
            // unless the daemon stops before the database works again.
            do { try store.record(key: key, answer: kept, at: .now) } catch {
                logger.error("\(command.name) ran but its idempotency key \(key) was not recorded yet: \(error)")
                if unrecordedKeys.count < Self.unrecordedKeep { unrecordedKeys[key] = kept }
            }
        }
        return .success(.ran(answer))
    }

    /// Writes the keys kept in memory, when the database takes them again.
    func saveUnrecordedKeys() {
        for (key, answer) in unrecordedKeys {
            do {
                try store.record(key: key, answer: answer, at: .now)
                unrecordedKeys[key] = nil
            } catch { return }
        }
    }
}
