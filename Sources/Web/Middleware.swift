import Foundation
import Geo
import Hummingbird
import HTTPTypes
import Logging
import Server
import JSON
import Protocol

/// Every request carries the token: `Authorization: Bearer …`, or the cookie that opening
/// `/?token=…` once sets (then a redirect drops the token from the address bar and history).
/// The cookie is SameSite=Lax: the redirect's page gets it even when the link was opened from
/// another site (a chat, a mail), and no other site's POST carries it.
/// Anything else: 401 and nothing more.
struct TokenGate<Context: RequestContext>: RouterMiddleware {
    static var cookieName: String { "treeline_token" }
    let token: WebToken
    let secureCookie: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let offered = request.uri.queryParameters.get("token") {
            guard token.matches(Array(offered.utf8)) else { return Self.unauthorized("the token in the address is not this board's: open the URL `treeline web` prints on the board") }
            // Back to the same page without the token: a plain path of this origin only (never
            // "//host" or "/\\host", which a browser would take for another site; anything odd
            // goes to "/"), the rest of the query encoded again.
            var allowed = CharacterSet.urlQueryAllowed
            allowed.remove(charactersIn: "&=+#")
            func encoded(_ s: Substring) -> String { String(s).addingPercentEncoding(withAllowedCharacters: allowed) ?? "" }
            var rest = request.uri.queryParameters.filter { $0.key != "token" }.map { "\(encoded($0.key))=\(encoded($0.value))" }.joined(separator: "&")
            if !rest.isEmpty { rest = "?" + rest }
            let path = RequestChecks.redirectTarget(forPath: request.uri.path)
            var cookie = "\(Self.cookieName)=\(token.text); Path=/; HttpOnly; SameSite=Lax; Max-Age=31536000"
            if secureCookie { cookie += "; Secure" }
            return Response(status: .seeOther, headers: [.location: path + rest, .setCookie: cookie, .cacheControl: "no-store"])
        }
        if let auth = request.headers[.authorization] {
            let parts = auth.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer", token.matches(Array(parts[1].utf8)) else {
                return Self.unauthorized("the bearer token is not this board's (`treeline web` prints it in its URL)")
            }
            return try await next(request, context)
        }
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0].trimmingCharacters(in: .whitespaces) == Self.cookieName, token.matches(Array(kv[1].utf8)) {
                    // The browser sends the cookie to this board from a page on any of its
                    // ports (SameSite counts every port as the same site): a change must come
                    // from this origin's own page.
                    if Self.changesState.contains(request.method),
                       !RequestChecks.isSameOrigin(origin: request.headers[.origin], secFetchSite: request.headers[HTTPField.Name("Sec-Fetch-Site")!],
                                                   host: request.head.authority, scheme: secureCookie ? "https" : "http") {
                        return Self.crossOrigin(request)
                    }
                    return try await next(request, context)
                }
            }
        }
        return Self.unauthorized("this board's web app needs its token: open the URL `treeline web` prints on the board (…/?token=…), or send Authorization: Bearer <token>")
    }

    static var changesState: Set<HTTPRequest.Method> { [.post, .put, .patch, .delete] }

    static func crossOrigin(_ request: Request) -> Response {
        let from = request.headers[.origin].map { "from \(TextExcerpt.short($0))" } ?? "without an Origin"
        var response = APIRoutes.error(CommandError("\(request.method.rawValue) \(TextExcerpt.short(request.uri.path)) \(from) is refused: with the cookie a change must come from this board's own page (same origin); other clients send Authorization: Bearer <token>"), status: .forbidden)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    static func unauthorized(_ message: String) -> Response {
        var response = APIRoutes.error(CommandError(message), status: .unauthorized)
        response.headers[.wwwAuthenticate] = #"Bearer realm="treeline""#
        response.headers[.cacheControl] = "no-store"
        return response
    }
}

/// Errors thrown below (a route's, a file not found, a body over its limit) as the socket's
/// `{"class":"ERROR","message":…}` with their status.
struct ErrorsAsJSON<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let e as HTTPError {
            let message: String
            switch e.status {
            case .notFound: message = "nothing at \(request.uri.path): the API is POST /api, GET /api/events, /api/regions.geojson, /api/trees.geojson, /api/track.geojson"
            case .contentTooLarge: message = "the body is over the limit (http.max_body_kib for commands, http.max_photo_mib for photos)"
            default: message = e.body ?? e.status.reasonPhrase
            }
            var response = APIRoutes.error(CommandError(message), status: e.status)
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }
}

/// Headers every answer carries: no sniffing, no framing, no referrer (an address may hold the
/// token), a content policy of this origin only (tiles, when configured, from their host), and
/// nothing of `/api` cached. One set, for the router's answers (`SecurityHeaders`) and for those
/// written below it (`RequestLimits`' 413).
struct SecurityHeaderSet: Sendable {
    let policy: String

    init(tiles: String?) {
        var images = "'self' data: blob:"
        if let tiles, let source = Self.source(ofTiles: tiles) { images += " " + source }
        policy = "default-src 'self'; img-src \(images); style-src 'self' 'unsafe-inline'; media-src 'self' blob: mediastream:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    }

    /// `https://{s}.tile.example.org:8443/{z}/{x}/{y}.png` → `https://*.tile.example.org:8443`.
    static func source(ofTiles template: String) -> String? {
        let wildcard = template.replacingOccurrences(of: "{s}", with: "tile-subdomain")
        guard let url = URL(string: wildcard.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "")),
              let scheme = url.scheme, var host = url.host else { return nil }
        if template.contains("{s}") {
            let labels = host.split(separator: ".")
            host = labels.map { $0.contains("tile-subdomain") ? "*" : String($0) }.joined(separator: ".")
            if !host.hasPrefix("*") { host = "*." + labels.dropFirst().joined(separator: ".") }
        }
        return "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    /// Sets them on `fields`. A content policy already there (a photo's `sandbox`) is kept and
    /// the usual one added to it; `noStore`: `Cache-Control: no-store`.
    func apply(to fields: inout HTTPFields, noStore: Bool) {
        fields[.xContentTypeOptions] = "nosniff"
        fields[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        fields[HTTPField.Name("X-Frame-Options")!] = "DENY"
        fields[.contentSecurityPolicy] = fields[.contentSecurityPolicy].map { "\($0); \(policy)" } ?? policy
        if noStore { fields[.cacheControl] = "no-store" }
    }
}

struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    let set: SecurityHeaderSet

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        set.apply(to: &response.headers, noStore: request.uri.path.hasPrefix("/api"))
        return response
    }
}

/// Refuses with 400, before any file or route is looked up, a path (as received, not decoded)
/// that holds a NUL, a control character, a backslash or an encoded slash (`RequestChecks`).
struct PathGuard<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let reason = RequestChecks.refusal(ofPath: request.uri.path) {
            return APIRoutes.error(CommandError("\(reason): ask for the page's own addresses (/, /ar/, /api/…) as they are"), status: .badRequest)
        }
        return try await next(request, context)
    }
}
