import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The database holds a location history: it and its `-wal`/`-shm` are the owner's only (0600),
/// whatever the process's umask. SQLite creates `-wal` and `-shm` with the main file's mode (it
/// sets it with fchmod when a new one's differs), so the main file is created 0600 before SQLite
/// opens it; files of an older run that are looser are narrowed.
extension Store {
    static let fileMode: mode_t = 0o600

    static func createPrivately(_ path: String) throws(StoreError) {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, fileMode)
        if fd < 0 {
            let why = String(cString: strerror(errno))
            // Not ours to create (a read-only folder…): SQLite says what is wrong when it opens it.
            if errno == EACCES || errno == EROFS || errno == EISDIR { return }
            throw StoreError(path: path, message: "cannot create the database file: \(why)")
        }
        defer { close(fd) }
        var st = stat()
        if fstat(fd, &st) == 0, st.st_mode & 0o777 != fileMode, st.st_uid == geteuid() { _ = fchmod(fd, fileMode) }
        for suffix in ["-wal", "-shm"] {
            let side = path + suffix
            if stat(side, &st) == 0, st.st_mode & 0o777 != fileMode, st.st_uid == geteuid() { _ = chmod(side, fileMode) }
        }
    }
}
