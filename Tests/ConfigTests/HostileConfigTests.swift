import Config
import Testing

/// Configs that fuzzing made slow to refuse, or whose errors repeated megabytes.
@Suite struct HostileConfig {
    func messages(_ text: String) -> [String] {
        do {
            _ = try TreelineConfig.parse(text, file: "c.yaml")
            return []
        } catch {
            return error.issues.map(\.message)
        }
    }

    @Test func aFileOfMegabytesIsRefusedBeforeYAMLReadsIt() {
        let m = messages("monitor:\n  dwell_s: " + String(repeating: "9", count: 10_000_000) + "\n")
        #expect(m == ["is 10000021 bytes, over the limit of 1024 KiB for a config: is this the config file?"])
    }

    @Test func anOverLongNumberIsRefusedAndQuotedShort() {
        let m = messages("monitor:\n  dwell_s: " + String(repeating: "9", count: 500_000) + "\n")
        #expect(m == ["must be a number, not \"" + String(repeating: "9", count: 80) + "…\""])
    }

    @Test func longKeysAndPathsAreQuotedShort() {
        let key = String(repeating: "k", count: 100_000)
        let m = messages("\(key): 1\n")
        #expect(m.count == 1 && m[0].count < 200)
        let path = String(repeating: "p", count: 5000)
        #expect(messages("socket: \(path)\n") == ["is 5000 bytes long (\"" + String(repeating: "p", count: 80) + "…\"); a path has at most 4096"])
    }
}
