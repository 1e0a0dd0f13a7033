import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The processes the tests start (gpsd, treelined, mosquitto, mosquitto_sub) die with them.

extension Process {
    /// Runs `command` (the executable's path, then its arguments) under `setpriv --pdeathsig KILL`
    /// when util-linux has it: the kernel kills the child if the thread that started it ends (the
    /// test process dying, say). Start it with `launchWithSignalsUnblocked`, from a thread that
    /// lives as long as the child.
    func dyingWithTheTests(_ command: [String]) {
        let setpriv = "/usr/bin/setpriv"
        if FileManager.default.isExecutableFile(atPath: setpriv) {
            executableURL = URL(fileURLWithPath: setpriv)
            arguments = ["--pdeathsig", "KILL"] + command
        } else {
            executableURL = URL(fileURLWithPath: command[0])
            arguments = Array(command.dropFirst())
        }
    }
}

/// Empties the calling thread's signal mask.
func unblockSignals() {
    var none = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, nil)
}

/// Starts `process` from a thread of its own with no signals blocked, which lives as long as the
/// process (its parent-death signal, `setpriv --pdeathsig`, comes when that thread ends: started
/// from a Dispatch worker, which Dispatch ends when idle, a daemon was SIGKILLed a few seconds
/// into a long test).
///
/// Foundation's Process (posix_spawn without POSIX_SPAWN_SETSIGMASK) gives the child the signal
/// mask of the thread that runs it, and Dispatch's worker threads — where async tests run — block
/// nearly every signal: mosquitto started from one never sees SIGTERM (nor SIGINT, SIGHUP), so a
/// clean stop would save nothing.
func launchWithSignalsUnblocked(_ process: Process) throws {
    final class Launch: @unchecked Sendable {
        let process: Process
        var error: Error?
        let done = DispatchSemaphore(value: 0)
        init(_ process: Process) { self.process = process }
    }
    let launch = Launch(process)
    Thread.detachNewThread {
        unblockSignals()
        do {
            try launch.process.run()
        } catch {
            launch.error = error
            launch.done.signal()
            return
        }
        launch.done.signal()
        // Only watched here (waitUntilExit is left to the owner: it is not safe from two threads at once).
        while launch.process.isRunning { usleep(20_000) }
    }
    launch.done.wait()
    if let error = launch.error { throw error }
}

