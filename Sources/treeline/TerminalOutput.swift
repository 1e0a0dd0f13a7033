import Geo
import JSON

/// Everything the command line prints goes through here (it shadows the standard library's
/// `print` in this module): a name, a note or a message from the daemon may hold a control or
/// text-direction character (from an older database, or quoted back in an error), which a
/// terminal would act on — set its title, clear the screen. Such characters are printed as
/// `\u{…}`; line feeds and tabs are kept.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let text = items.map { String(describing: $0) }.joined(separator: separator)
    Swift.print(PlainText.forTerminal(text), terminator: terminator)
}
