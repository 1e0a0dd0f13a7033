import Geo
import Rules
import Regions

/// Colours and symbols of the map. Fences use green/blue/orange by kind; the track is a dark
/// magenta so it stands apart from all three; event markers differ by shape as well as colour
/// so they stay apart for colour-blind readers and in greyscale prints.
enum MapStyle {
    struct KindStyle {
        var fill: String
        var stroke: String
        var text: String
        var title: String
    }

    static func kind(_ k: RegionKind) -> KindStyle {
        switch k {
        case .reforestation: return KindStyle(fill: "#3a9e4f", stroke: "#1f6b32", text: "#14462a", title: "Reforestation area")
        case .plant: return KindStyle(fill: "#3b7dd8", stroke: "#1f4f99", text: "#173a70", title: "Plant")
        case .album: return KindStyle(fill: "#f08c1a", stroke: "#b25f00", text: "#7a3f00", title: "Album")
        }
    }

    static let fillOpacity = "0.22"
    static let track = "#a3177a"
    static let trackCasing = "#ffffff"

    enum Symbol {
        case triangleUp, triangleDown, circle, diamond, square, plus, cross, drop
    }

    struct EventStyle {
        var symbol: Symbol
        var colour: String
    }

    /// Every event type, in the order the legend lists them.
    static let eventOrder: [RegionEvent.EventType] = [
        .enter, .exit, .dwell, .waterDue, .watered, .captureAllowed, .captureLocked, .plantingAllowed, .plantingForbidden,
    ]

    static func event(_ t: RegionEvent.EventType) -> EventStyle {
        switch t {
        case .enter: return EventStyle(symbol: .triangleUp, colour: "#0b7a35")
        case .exit: return EventStyle(symbol: .triangleDown, colour: "#c62828")
        case .dwell: return EventStyle(symbol: .circle, colour: "#6a1b9a")
        case .waterDue: return EventStyle(symbol: .drop, colour: "#0d6fb8")
        case .watered: return EventStyle(symbol: .diamond, colour: "#00897b")
        case .captureAllowed: return EventStyle(symbol: .square, colour: "#e65100")
        case .captureLocked: return EventStyle(symbol: .square, colour: "#4e4e4e")
        case .plantingAllowed: return EventStyle(symbol: .plus, colour: "#2e7d32")
        case .plantingForbidden: return EventStyle(symbol: .cross, colour: "#b71c1c")
        }
    }

    /// The SVG element of a marker centred on (x, y) with half-size `r` pixels. A hollow marker
    /// (transit events) is white with a coloured outline; a solid one has a white outline so it
    /// stands out on any fill.
    static func marker(_ t: RegionEvent.EventType, x: Double, y: Double, r: Double, hollow: Bool) -> String {
        let st = event(t)
        let paint = hollow
            ? "fill=\"#fff\" stroke=\"\(st.colour)\" stroke-width=\"1.8\""
            : "fill=\"\(st.colour)\" stroke=\"#fff\" stroke-width=\"1\""
        let n = SVGText.num
        func poly(_ pts: [(Double, Double)]) -> String {
            var d = ""
            for (i, p) in pts.enumerated() {
                d += (i == 0 ? "M" : "L") + n(x + p.0 * r, 1) + " " + n(y + p.1 * r, 1)
            }
            return "<path d=\"\(d)Z\" \(paint)/>"
        }
        switch st.symbol {
        case .circle:
            return "<circle cx=\"\(n(x, 1))\" cy=\"\(n(y, 1))\" r=\"\(n(r * 0.85, 1))\" \(paint)/>"
        case .square:
            return poly([(-0.8, -0.8), (0.8, -0.8), (0.8, 0.8), (-0.8, 0.8)])
        case .triangleUp:
            return poly([(0, -1.1), (1, 0.75), (-1, 0.75)])
        case .triangleDown:
            return poly([(0, 1.1), (1, -0.75), (-1, -0.75)])
        case .diamond:
            return poly([(0, -1.1), (1, 0), (0, 1.1), (-1, 0)])
        case .drop:
            return poly([(0, -1.2), (0.7, 0), (0.5, 0.75), (0, 1), (-0.5, 0.75), (-0.7, 0)])
        case .plus:
            let a = 0.35, b = 1.0
            return poly([(-a, -b), (a, -b), (a, -a), (b, -a), (b, a), (a, a), (a, b), (-a, b), (-a, a), (-b, a), (-b, -a), (-a, -a)])
        case .cross:
            let a = 0.3, b = 1.0
            // A plus rotated by 45°.
            let plus: [(Double, Double)] = [(-a, -b), (a, -b), (a, -a), (b, -a), (b, a), (a, a), (a, b), (-a, b), (-a, a), (-b, a), (-b, -a), (-a, -a)]
            let c = 0.7071067811865476
            return poly(plus.map { (($0.0 - $0.1) * c, ($0.0 + $0.1) * c) })
        }
    }
}
