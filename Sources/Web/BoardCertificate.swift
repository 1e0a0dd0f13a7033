import Crypto
import Foundation
import Loading
import SwiftASN1
import X509

/// `tls: auto`: the board's own self-signed certificate (ECDSA P-256) for its names and
/// addresses, made at first start and kept beside the database (`web-cert.pem`, and
/// `web-key.pem` of mode 0600). Made again when the board has a name or address the kept one
/// does not cover, or when it has less than 30 days left. A phone accepts it once.
public struct BoardCertificate: Sendable {
    public let certificatePEM: String
    public let keyPEM: String
    public let names: [String]
    public let addresses: [String]

    /// 825 days: the longest validity Apple's devices accept for a TLS server certificate.
    static let validity: TimeInterval = 825 * 86_400

    public static func loadOrMake(folder: String, for board: BoardAddresses, now: Date = Date()) throws(WebError) -> (BoardCertificate, made: Bool) {
        let certPath = folder + "/web-cert.pem", keyPath = folder + "/web-key.pem"
        var wanted = board
        if let cert = FileManager.default.contents(atPath: certPath), let key = FileManager.default.contents(atPath: keyPath),
           let kept = try? BoardCertificate(certificatePEM: String(decoding: cert, as: UTF8.self), keyPEM: String(decoding: key, as: UTF8.self)) {
            if Set(board.names).isSubset(of: kept.names), Set(board.addresses).isSubset(of: kept.addresses),
               let until = try? Certificate(pemEncoded: kept.certificatePEM).notValidAfter, until.timeIntervalSince(now) > 30 * 86_400 {
                return (kept, false)
            }
            // A board moving between networks keeps the names it had: the phones that
            // accepted the certificate there need not accept a new one when it comes back.
            wanted.names += kept.names.filter { !wanted.names.contains($0) }
            wanted.addresses += kept.addresses.filter { !wanted.addresses.contains($0) }
        }
        let made = try make(for: wanted, now: now)
        try write(made.keyPEM, to: keyPath, mode: 0o600)
        try write(made.certificatePEM, to: certPath, mode: 0o644)
        return (made, true)
    }

    /// Reads a PEM pair back (its names and addresses from the subject alternative names).
    init(certificatePEM: String, keyPEM: String) throws {
        let cert = try Certificate(pemEncoded: certificatePEM)
        // The pair must belong together (the two files are written one after the other).
        let key = try P256.Signing.PrivateKey(pemRepresentation: keyPEM)
        guard cert.publicKey == Certificate.PublicKey(key.publicKey) else { throw WebError("the key is not the certificate's") }
        var names: [String] = [], addresses: [String] = []
        for n in try cert.extensions.subjectAlternativeNames ?? SubjectAlternativeNames() {
            switch n {
            case .dnsName(let s): names.append(s)
            case .ipAddress(let octets): if let a = BoardAddresses.text(ofAddress: Array(octets.bytes)) { addresses.append(a) }
            default: break
            }
        }
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
        self.names = names
        self.addresses = addresses
    }

    static func make(for board: BoardAddresses, now: Date) throws(WebError) -> BoardCertificate {
        do {
            let key = P256.Signing.PrivateKey()
            let signer = Certificate.PrivateKey(key)
            let name = try DistinguishedName {
                OrganizationName("Treeline")
                CommonName(board.names.first ?? "treeline")
            }
            var alternatives: [GeneralName] = board.names.map { .dnsName($0) }
            alternatives += board.addresses.compactMap { a in BoardAddresses.bytes(ofAddress: a).map { .ipAddress(ASN1OctetString(contentBytes: ArraySlice($0))) } }
            let extensions = try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(alternatives)
            }
            let cert = try Certificate(version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: signer.publicKey,
                                       notValidBefore: now.addingTimeInterval(-86_400), notValidAfter: now.addingTimeInterval(validity),
                                       issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: signer)
            return try BoardCertificate(certificatePEM: cert.serializeAsPEM().pemString, keyPEM: key.pemRepresentation)
        } catch {
            throw WebError("cannot make the web app's certificate: \(error)")
        }
    }


    static func write(_ text: String, to path: String, mode: mode_t) throws(WebError) {
        let temporary = path + ".new"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw WebError("cannot write \(path): \(String(cString: strerror(errno))) — its folder must be writable by the service's user") }
        let bytes = Array(text.utf8)
        let ok = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count && fsync(fd) == 0
        close(fd)
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw WebError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
