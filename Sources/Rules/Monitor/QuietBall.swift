import Geo

/// A ball in space around the last fix evaluated in full, in which no fix can change the state
/// of a region, nor pass through one, except the few it leaves out (`RegionMonitor.watched`).
/// Fixes in it evaluate those alone, as a fix outside it would; the regions we are inside tick
/// on, for dwell and watering.
///
/// With `m` the ball's margin (no more than the margin of any fix it holds, see `holds`):
/// every region the state has us outside, watched ones aside, is less than `m` inside at every
/// point of the ball, and every region it has us inside is less than `m` outside. A fix in the
/// ball, and the straight path to it from the fix before (also in the ball, which is convex),
/// can then give no enter, exit or transit in those: they need a signed distance of at least
/// the fix's margin, or at most minus it. A fix in the ball may be up to `m` inside a region
/// we are outside, so it stamps nothing in `containedAt` for the regions it skips, and transit
/// looks at the path from it in full.
///
/// A walker among fences some tens of metres apart stays in one ball for several fixes, and a
/// receiver standing still for as long as it stands. A walker along a boundary, a few metres
/// from it, would get no ball at all: that fence is watched instead (up to `watchLimit` of
/// them, those that limit the ball most), and the ball reaches as far as the others allow.
///
/// It rests on what the per-region bounds already rest on: the signed distance changes by at
/// most the distance moved (`moved`, the chord with room for its rounding and the plane's scale).
struct QuietBall: Sendable {
    var center = ECEF(x: 0, y: 0, z: 0)
    /// 0: no ball.
    var radius = 0.0
    var margin = 0.0

    /// How far from a fix a ball may reach, metres. Larger costs more regions to bound per ball.
    static let reach = 100.0
    /// A fix this far from the one before, metres, or farther, gets no ball: at driving speed the
    /// next fix is mostly out of any ball the fences leave room for, and measuring one costs
    /// more than it saves (on the pipeline benchmark, 12 m paid and 25 m did not).
    static let maxStep = 12.0
    /// How many polygons' distances a ball may compute, when their cheap bounds are what limits
    /// it (a point deep in a polygon is only known to be among its raster's clear cells).
    static let distanceBudget = 4
    /// How many regions near the fix a ball may leave out of its promise (`watched`): a
    /// walker along a boundary evaluates that region at each fix, and the ball holds the rest.
    static let watchLimit = 3
    /// Distances are computed for a ball only while it is smaller than this many steps (plus
    /// 3 m for a receiver standing still): a larger ball would not hold many more fixes.
    static let stepsWorthADistance = 8.0
    /// The share of the fix's error term in the ball's margin: less than all of it, so that the
    /// next fixes, whose errors wander, still reach the margin.
    static let errorShare = 0.75
    /// What the distances of transit's path search (`approximateSignedDistance`) may differ by
    /// from the bounds the ball is measured with: they agree to millimetres near a fence.
    static let searchSlack = 0.01

    /// An upper bound of how much a region's signed distance changes from `a` to `b`.
    @inline(__always)
    static func moved(_ a: ECEF, _ b: ECEF) -> Double { a.distance(to: b) * (1 + 1e-4) + 1e-3 }

    /// Whether a fix at `p` with horizontal error `error` is in the ball, under `config`: its
    /// margin must be at least the ball's (a transit's, over the larger error of two fixes, is
    /// then too).
    @inline(__always)
    func holds(_ p: ECEF, error: Double, _ config: MonitorConfig) -> Bool {
        radius > 0 && Self.moved(center, p) < radius && config.accuracyFactor >= 0 && error >= 0
            && config.hysteresisMetres + config.accuracyFactor * error >= margin
    }

    /// A region that limits the ball: how far the ball may reach for it, and whether that comes
    /// from its distance (or a circle's chord) rather than a looser bound.
    struct Limit {
        var region: Int32
        var room: Double
        var exact: Bool
        /// Left out of the ball's promise: evaluated at every fix in it.
        var watched: Bool
    }
}
