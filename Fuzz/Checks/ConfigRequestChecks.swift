import Config
import NIOCore
import Server
import Protocol

/// `config`: the configuration parser on the input as UTF-8 (invalid sequences replaced): no trap,
/// and the same outcome twice. Of the issues only the keys are compared: for duplicate keys that
/// differ only by tag, or that are not scalars, Yams's message lists them, and places the error,
/// in a Dictionary's order, which differs from one Dictionary to the next
/// (Fuzz/Reproducers/config/duplicate-tagged-keys-position.yaml).
public enum ConfigFuzz {
    public static func check(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)
        let first = outcome(text), second = outcome(text)
        if first != second { fuzzFailure("TreelineConfig.parse gives \(first), then \(second)") }
    }

    enum Outcome: Equatable {
        case config(TreelineConfig)
        case issues([String])
    }

    static func outcome(_ text: String) -> Outcome {
        do {
            return .config(try TreelineConfig.parse(text, file: "fuzz.yaml"))
        } catch {
            return .issues(error.issues.map { $0.key ?? "-" })
        }
    }
}

/// `request`: the socket's request parser on the input as one line: no trap, and the same outcome
/// whatever collection holds the bytes: an Array, a slice not starting at index 0, and the
/// ByteBufferView the server passes (read index not at 0).
public enum RequestFuzz {
    public static func check(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        let array = outcome(bytes)
        let padded = [UInt8(ascii: "x"), UInt8(ascii: "y")] + bytes
        let slice = outcome(padded[2...])
        if slice != array { fuzzFailure("Command.parse: \(array) from an Array, \(slice) from an ArraySlice") }
        var buffer = ByteBufferAllocator().buffer(capacity: padded.count)
        buffer.writeBytes(padded)
        buffer.moveReaderIndex(forwardBy: 2)
        let view = outcome(buffer.readableBytesView)
        if view != array { fuzzFailure("Command.parse: \(array) from an Array, \(view) from a ByteBufferView") }
    }

    /// The request, or the error's message (Command is Equatable; its description is not
    /// canonical: sets print in any order).
    enum Outcome: Equatable {
        case request(Command)
        case error(String)
    }

    static func outcome(_ bytes: some Collection<UInt8>) -> Outcome {
        do { return .request(try Command.parse(bytes)) } catch { return .error(error.message) }
    }
}
