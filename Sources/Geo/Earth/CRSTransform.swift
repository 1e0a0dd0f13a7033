import CPROJ

/// A transformation from a CRS (say EPSG:3763, Portugal's PT-TM06/ETRS89) to WGS84 longitude and
/// latitude, through PROJ. Axis order is normalised for visualisation: easting/x first in,
/// longitude first out, whatever the EPSG axis order says.
///
/// Holds its own PROJ context, which is not thread-safe: use one instance from one thread.
public final class CRSTransform {
    /// The source CRS as given to PROJ, e.g. `EPSG:3763`.
    public let source: String
    private let context: OpaquePointer
    private let transform: OpaquePointer

    /// Sets up the transformation from `source` to WGS84. Throws `CRSError` when PROJ cannot start,
    /// does not know the CRS, or cannot put its axes in easting/longitude-first order.
    public init(from source: String) throws(CRSError) {
        self.source = source
        guard let ctx = proj_context_create() else { throw CRSError(crs: source, reason: "PROJ could not start") }
        proj_log_func(ctx, nil, treelineSilentProjLog)
        guard let raw = proj_create_crs_to_crs(ctx, source, "EPSG:4326", nil) else {
            let reason = String(cString: proj_context_errno_string(ctx, proj_context_errno(ctx)))
            proj_context_destroy(ctx)
            throw CRSError(crs: source, reason: "PROJ does not know it (\(reason))")
        }
        guard let normalized = proj_normalize_for_visualization(ctx, raw) else {
            proj_destroy(raw)
            proj_context_destroy(ctx)
            throw CRSError(crs: source, reason: "PROJ cannot order its axes")
        }
        proj_destroy(raw)
        context = ctx
        transform = normalized
    }

    deinit {
        proj_destroy(transform)
        proj_context_destroy(context)
    }

    /// `(x, y)` in the source CRS to WGS84; nil where PROJ cannot transform the point.
    public func toWGS84(x: Double, y: Double) -> Coordinate? {
        let input = proj_coord(x, y, 0, .infinity)
        let out = proj_trans(transform, PJ_FWD, input)
        let lon = out.v.0, lat = out.v.1
        guard lon.isFinite, lat.isFinite, lon != .greatestFiniteMagnitude, abs(lat) <= 90 else { return nil }
        return Coordinate(latitude: lat, longitude: lon)
    }
}

/// PROJ writes its diagnostics to stderr unless told otherwise; Treeline reports errors itself.
private let treelineSilentProjLog: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void = { _, _, _ in }
