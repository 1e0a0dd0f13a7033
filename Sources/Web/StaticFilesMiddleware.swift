import Hummingbird
import HTTPTypes
import NIOCore

/// Answers GET and HEAD for the files `StaticFiles` holds, from memory: the smallest encoding
/// the client takes (`Content-Encoding`, `Vary: Accept-Encoding`), an ETag per encoding (a
/// matching `If-None-Match` is 304), and `Cache-Control: no-cache` (the browser keeps the file
/// but asks each time whether it changed: an upgraded board's page shows at once). Anything else
/// goes on to the routes.
struct StaticFilesMiddleware<Context: RequestContext>: RouterMiddleware {
    let files: StaticFiles

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head, let asset = files.asset(for: request.uri.path) else {
            return try await next(request, context)
        }
        let coding = StaticFiles.encoding(for: request.headers[.acceptEncoding], asset: asset)
        let body: ByteBuffer
        let tag: String
        switch coding {
        case .brotli?: (body, tag) = (asset.brotli!, String(asset.tag.dropLast()) + "-br\"")
        case .gzip?: (body, tag) = (asset.gzip!, String(asset.tag.dropLast()) + "-gz\"")
        case nil: (body, tag) = (asset.identity, asset.tag)
        }
        var headers: HTTPFields = [.contentType: asset.contentType, .eTag: tag, .cacheControl: "no-cache"]
        if asset.gzip != nil || asset.brotli != nil { headers[.vary] = "Accept-Encoding" }
        if let coding { headers[.contentEncoding] = coding.rawValue }
        if let match = request.headers[.ifNoneMatch], StaticFiles.matches(ifNoneMatch: match, tag: tag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(body.readableBytes)
        if request.method == .head { return Response(status: .ok, headers: headers, body: ResponseBody()) }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }
}
