import ArgumentParser
import Daemon

/// One executable, two commands, chosen by the name it was started under (argv[0]'s last path
/// component), as busybox does: `treelined` (the package's /usr/bin/treelined, a symbolic link to
/// /usr/bin/treeline, and the unit's ExecStart=) is the daemon; any other name, `treeline` first,
/// is the command line. Two executables each carried their own copy of the Swift runtime,
/// Foundation and ICU's data (docs/BENCHMARKS.md, "Package size").
@main
enum MultiCall {
    /// What a name starts: the daemon for `treelined`, the command line for any other.
    enum Command: Equatable { case cli, daemon }

    static func command(startedAs argv0: String) -> Command {
        let name = argv0.split(separator: "/", omittingEmptySubsequences: true).last ?? ""
        return name == "treelined" ? .daemon : .cli
    }

    static func main() async {
        switch command(startedAs: CommandLine.arguments.first ?? "") {
        case .daemon: await Treelined.main()
        case .cli: await Treeline.main()
        }
    }
}
