import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A listening socket systemd passed (LISTEN_FDS/LISTEN_PID): fd 3.
enum SocketActivation {
    static func listener(environment: [String: String] = ProcessInfo.processInfo.environment) -> CInt? {
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
              let n = environment["LISTEN_FDS"].flatMap(Int.init), n >= 1 else { return nil }
        let fd: CInt = 3  // SD_LISTEN_FDS_START
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return fd
    }
}
