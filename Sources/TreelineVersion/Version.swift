/// Treeline's version: the one place it is written. `treeline --version`, `treelined --version`,
/// the daemon's STATE and log, and the Debian package (`make deb`) all take it from here.
public let treelineVersion = "0.7.0"
