import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A minimal DOM built with XMLParser, so the tests read the SVG as a real XML parser does:
/// a document that is not well-formed fails to parse.
final class XMLNode {
    let name: String
    let attributes: [String: String]
    var children: [XMLNode] = []
    var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    subscript(_ attribute: String) -> String? { attributes[attribute] }

    func double(_ attribute: String) -> Double? { attributes[attribute].flatMap(Double.init) }

    /// This node and all its descendants, in document order.
    var all: [XMLNode] { [self] + children.flatMap(\.all) }

    func elements(_ name: String) -> [XMLNode] { all.filter { $0.name == name } }

    func element(id: String) -> XMLNode? { all.first { $0["id"] == id } }

    /// Text of this node and its descendants.
    var allText: String { text + children.map(\.allText).joined() }
}

final class DOMBuilder: NSObject, XMLParserDelegate {
    var stack: [XMLNode] = []
    var root: XMLNode?

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
                attributes attributeDict: [String: String] = [:]) {
        let node = XMLNode(name: elementName, attributes: attributeDict)
        stack.last?.children.append(node)
        if stack.isEmpty { root = node }
        stack.append(node)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        stack.removeLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        stack.last?.text += string
    }
}

/// The parsed document, or nil when it is not well-formed XML.
func parseXML(_ text: String) -> XMLNode? {
    let parser = XMLParser(data: Data(text.utf8))
    let builder = DOMBuilder()
    parser.delegate = builder
    guard parser.parse(), builder.stack.isEmpty else { return nil }
    return builder.root
}

/// The points of an SVG path's `d` written as absolute M/L commands, one array per subpath.
func subpaths(_ d: String) -> [[(Double, Double)]] {
    var out: [[(Double, Double)]] = []
    var numbers: [Double] = []
    var current = ""
    var command: Character = " "
    func flushNumber() {
        if !current.isEmpty, let v = Double(current) { numbers.append(v) }
        current = ""
    }
    func flushCommand() {
        flushNumber()
        guard command == "M" || command == "L" else { numbers = []; return }
        var pts: [(Double, Double)] = []
        var i = 0
        while i + 1 < numbers.count { pts.append((numbers[i], numbers[i + 1])); i += 2 }
        if command == "M" { out.append(pts) } else if !out.isEmpty { out[out.count - 1].append(contentsOf: pts) }
        numbers = []
    }
    for ch in d {
        if ch.isLetter {
            flushCommand()
            command = ch
        } else if ch == " " || ch == "," {
            flushNumber()
        } else if ch == "-" && !current.isEmpty {
            flushNumber()
            current = "-"
        } else {
            current.append(ch)
        }
    }
    flushCommand()
    return out
}
