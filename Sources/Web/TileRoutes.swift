import Foundation
import Hummingbird
import JSON
import HTTPTypes
import Logging
import NIOCore
import Protocol
import Tiles

/// The board's offline basemaps: `GET /tiles/{z}/{x}/{y}` (the first layer) and
/// `GET /tiles/{layer}/{z}/{x}/{y}` (layer by its number), rows counted from the north as a web
/// map asks (the file's TMS rows flipped); `y` may end in `.png`, `.jpg`, `.jpeg` or `.webp`. The
/// stored bytes with their image type, an ETag and a week's cache; 404 for a tile the file lacks.
struct TileRoutes {
    let layers: [MBTiles]

    /// Opens `files`; one that cannot be served is logged with why and left out.
    static func open(_ files: [String], logger: Logger) -> [MBTiles] {
        files.compactMap { path in
            do {
                let tiles = try MBTiles(path: path)
                let m = tiles.metadata
                logger.info("web app: basemap \(m.name) from \(path): \(m.format.rawValue), zoom \(m.minZoom.map(String.init) ?? "?")–\(m.maxZoom.map(String.init) ?? "?")")
                return tiles
            } catch {
                logger.error("web app: basemap left out: \(error)")
                return nil
            }
        }
    }

    func add(to router: Router<BasicRequestContext>) {
        // The router takes one name per place in a path: the parts are named by place.
        router.get("/tiles/:a/:b/:c") { request, context in
            let p = context.parameters
            return tile(request, layer: "0", z: p.get("a"), x: p.get("b"), y: p.get("c"))
        }
        router.get("/tiles/:a/:b/:c/:d") { request, context in
            let p = context.parameters
            return tile(request, layer: p.get("a") ?? "", z: p.get("b"), x: p.get("c"), y: p.get("d"))
        }
    }

    func tile(_ request: Request, layer: String, z zText: String?, x xText: String?, y yParameter: String?) -> Response {
        guard let k = Int(layer), layers.indices.contains(k) else {
            return APIRoutes.error(CommandError(layers.isEmpty ? "this board serves no basemap: give http.tiles an MBTiles file"
                                                                : "no basemap layer '\(layer.prefix(12))': the layers are 0 to \(layers.count - 1) (GET /api/web.json lists them)"),
                                   status: .notFound)
        }
        var yText = Substring(yParameter ?? "")
        for suffix in [".png", ".jpg", ".jpeg", ".webp"] where yText.hasSuffix(suffix) {
            yText = yText.dropLast(suffix.count)
            break
        }
        guard let z = zText.flatMap({ Int($0) }), let x = xText.flatMap({ Int($0) }), let y = Int(yText),
              MBTiles.inRange(z: z, x: x, y: y) else {
            return APIRoutes.error(CommandError("a tile is /tiles/{z}/{x}/{y}: whole numbers, z 0 to \(MBTiles.maxZoom), x and y 0 to 2^z − 1"),
                                   status: .badRequest)
        }
        let source = layers[k]
        let data: Data?
        do {
            data = try source.tile(z: z, x: x, y: y)
        } catch {
            return APIRoutes.error(CommandError("the basemap \(source.metadata.name) cannot be read (see treelined's log)"), status: .internalServerError)
        }
        guard let data else {
            return APIRoutes.error(CommandError("no tile \(z)/\(x)/\(y) in \(source.metadata.name)"), status: .notFound)
        }
        let tag = StaticFiles.tag(data)
        var headers: HTTPFields = [.contentType: source.metadata.format.contentType, .eTag: tag, .cacheControl: "private, max-age=604800"]
        if let match = request.headers[.ifNoneMatch], StaticFiles.matches(ifNoneMatch: match, tag: tag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(data.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A file's version for tile addresses: its size and modification time, in hex.
    static func version(of path: String) -> String {
        guard let a = try? FileManager.default.attributesOfItem(atPath: path) else { return "0" }
        let size = (a[.size] as? NSNumber)?.uint64Value ?? 0
        let time = (a[.modificationDate] as? Date).map { UInt64(max(0, $0.timeIntervalSince1970 * 1000)) } ?? 0
        return String(size, radix: 16) + "-" + String(time, radix: 16)
    }

    /// web.json's `layers`: for each, `id`, `name`, `url` (a Leaflet template), `format`,
    /// `minzoom`, `maxzoom`, `bounds` (west, south, east, north) and `attribution` where known.
    func appendLayers(to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (k, layer) in layers.enumerated() {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            var w = JSONWriter()
            w.beginObject()
            w.member("id", k)
            // With the file's version: a new survey in the same place is new addresses, so a
            // phone's service worker, which keeps tiles by address, never shows the old one.
            w.member("url", "/tiles/\(k)/{z}/{x}/{y}?v=" + Self.version(of: layer.path))
            layer.metadata.writeMembers(to: &w)
            w.endObject()
            out.append(contentsOf: w.bytes)
        }
        out.append(UInt8(ascii: "]"))
    }
}
