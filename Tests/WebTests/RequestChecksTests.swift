import Testing
import Web

/// What a request's path may hold, where `/?token=` may send the browser back to, and which
/// origin may change state with the cookie.
@Suite struct RequestChecksTests {
    @Test func plainPathsPass() {
        for path in ["/", "/index.html", "/ar/", "/api", "/api/photos/20260101T000000Z-0123456789abcdef-01234567.png",
                     "/leaflet/leaflet.js", "/a%20b", "/%7Euser", "/caf%C3%A9", "/..%2e"] {
            #expect(RequestChecks.refusal(ofPath: path) == nil, "\(path)")
        }
    }

    @Test func aNULAControlCharacterABackslashOrAnEncodedSlashIsRefused() {
        for path in ["/api/photos/x.heic%00.html", "/ar/index.html%00.js", "/a\u{0}b", "/a%0ab", "/a%0D%0Ab", "/a%09", "/a%7f", "/a%7F",
                     "/a\u{7F}", "/a\tb", "/\\host", "/%5Chost", "/%5chost", "/a%2Fb", "/a%2fb", "/%2e%2e%2fweb-token", "/a%", "/a%0", "/a%zz"] {
            #expect(RequestChecks.refusal(ofPath: path) != nil, "\(path)")
        }
        #expect(RequestChecks.refusal(ofPath: "/x.gif%00.js") == "the path holds a NUL (%00)")
    }

    @Test func theTokenRedirectGoesOnlyToAPlainPathOfThisOrigin() {
        #expect(RequestChecks.redirectTarget(forPath: "/") == "/")
        #expect(RequestChecks.redirectTarget(forPath: "/ar/") == "/ar/")
        #expect(RequestChecks.redirectTarget(forPath: "/index.html") == "/index.html")
        for odd in ["/\\host", "/\\\\host", "/%5Chost", "/ \\host", "/\t\\host", "/\t/host", "//host", "///host", "/\\/host", "host",
                    "", "https://evil.example/", "/a/../b", "/./", "/a%2F", "/a?b", "/a#b", "/caf\u{E9}"] {
            #expect(RequestChecks.redirectTarget(forPath: odd) == "/", "\(odd)")
        }
    }

    @Test func aChangeWithTheCookieMustComeFromThisOrigin() {
        func same(_ origin: String?, _ site: String? = nil, host: String? = "board.local:8443", scheme: String = "https") -> Bool {
            RequestChecks.isSameOrigin(origin: origin, secFetchSite: site, host: host, scheme: scheme)
        }
        #expect(same("https://board.local:8443"))
        #expect(same("https://BOARD.local:8443"))
        #expect(same("https://board.local", host: "board.local"))
        #expect(same("https://board.local:443", host: "board.local"))
        #expect(same("https://[fd00::2]:8443", host: "[fd00::2]:8443"))
        #expect(same("http://127.0.0.1:8080", host: "127.0.0.1:8080", scheme: "http"))
        #expect(same(nil, "same-origin"))
        // Another port of the same host, another host, another scheme, an opaque origin.
        #expect(!same("https://board.local:9443"))
        #expect(!same("https://evil.example:8443"))
        #expect(!same("http://board.local:8443"))
        #expect(!same("null"))
        #expect(!same("https://board.local:8443/"))
        #expect(!same("https://user@board.local:8443"))
        #expect(!same("https://board.local:8443", host: nil))
        // No Origin: only the browser's own word that the page is this origin's.
        #expect(!same(nil))
        #expect(!same(nil, "same-site"))
        #expect(!same(nil, "cross-site"))
        #expect(!same(nil, "none"))
    }
}
