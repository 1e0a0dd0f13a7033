import Foundation
import Geo
import Store
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The database holds a location history: it and its -wal/-shm are 0600 whatever the umask.
@Suite struct StorePermissions {
    func mode(_ path: String) -> mode_t? {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode & 0o777 : nil
    }

    @Test func theDatabaseAndItsWALAndSHMAre0600UnderUmask022() throws {
        try withStoreFile { path in
            let old = umask(0o022)
            defer { umask(old) }
            let store = try Store(path: path)
            try store.commit([entry(1)], lastFix: nil, regions: [])
            for file in [path, path + "-wal", path + "-shm"] {
                #expect(mode(file) == 0o600, "\(file): \(mode(file).map { String($0, radix: 8) } ?? "missing")")
            }
        }
    }

    @Test func looserFilesOfAnEarlierRunAreNarrowed() throws {
        try withStoreFile { path in
            do {
                let store = try Store(path: path)
                try store.commit([entry(1)], lastFix: nil, regions: [])
            }
            for file in [path, path + "-wal", path + "-shm"] where mode(file) != nil { chmod(file, 0o644) }
            let store = try Store(path: path)
            try store.commit([entry(2)], lastFix: nil, regions: [])
            for file in [path, path + "-wal", path + "-shm"] { #expect(mode(file) == 0o600, "\(file)") }
        }
    }
}

/// Idempotency keys: recorded with their answer, found again after reopening, the first answer
/// kept, the newest N kept, keys bounded and scoped by source.
@Suite struct IdempotencyKeys {
    @Test func aKeyIsAnsweredAgainAfterReopeningAndKeepsItsFirstAnswer() throws {
        try withStoreFile { path in
            do {
                let store = try Store(path: path)
                #expect(try store.idempotentAnswer(for: "mqtt:q1") == nil)
                try store.record(key: "mqtt:q1", answer: Array("first".utf8), at: UTCTime(nanoseconds: 1))
                try store.record(key: "mqtt:q1", answer: Array("second".utf8), at: UTCTime(nanoseconds: 2))
            }
            let again = try Store(path: path)
            #expect(try again.idempotentAnswer(for: "mqtt:q1") == Array("first".utf8))
            #expect(try again.idempotentAnswer(for: "web:q1") == nil, "scoped by source")
        }
    }

    @Test func onlyTheNewestAreKept() throws {
        try withStoreFile { path in
            let store = try Store(path: path)
            for k in 1...30 { try store.record(key: "mqtt:\(k)", answer: [UInt8(k)], at: UTCTime(nanoseconds: Int64(k)), keep: 10) }
            #expect(try store.idempotencyKeyCount() == 10)
            #expect(try store.idempotentAnswer(for: "mqtt:20") == nil)
            #expect(try store.idempotentAnswer(for: "mqtt:21") == [21])
            #expect(try store.idempotentAnswer(for: "mqtt:30") == [30])
        }
    }

    @Test func keysAreBoundedPrintableAndScoped() {
        #expect((try? Store.idempotencyKey(source: "mqtt", id: "q1").get()) == "mqtt:q1")
        #expect((try? Store.idempotencyKey(source: "mqtt", id: String(repeating: "x", count: 128)).get()) != nil)
        for bad in ["", String(repeating: "x", count: 129), "a\nb", "tab\t", "é", "\u{7F}"] {
            #expect((try? Store.idempotencyKey(source: "mqtt", id: bad).get()) == nil, "\(bad.debugDescription)")
        }
    }
}
