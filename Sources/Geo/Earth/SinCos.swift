/// Sines and cosines of a latitude's and a longitude's angle at once, for `ECEF.init`: every fix
/// the monitor takes needs both, and libm's `sincos` took some 110 instructions an angle, about a
/// twelfth of the monitor's own cost. Here the two angles share one reduction and one pair of
/// polynomials, in two SIMD lanes: some 100 instructions for both.
///
/// For |x| ≤ 3.2 (a coordinate's angles are within ±π): x = k·π/2 + r with k from −2 to 2 and
/// |r| ≤ π/4 (π/2 in two parts, the first of 33 bits, so k times it is exact), then the minimax
/// polynomials of fdlibm's `__kernel_sin` and `__kernel_cos` on r, and the quadrant's swap and
/// signs. Within an ulp of libm's values, or 2⁻⁸⁰ where those are tinier (cos 90° and sin 180°
/// are some 6·10⁻¹⁷: π/2 in two parts leaves them 10⁻²⁶ off, 2·10⁻²⁰ m in a position), checked
/// against glibc in the tests; not always the same bits.
///
/// (Measured with callgrind, this form cost fewer instructions than a scalar one called twice,
/// than constants as literals, and than rounding by adding 1.5·2⁵²: see docs/BENCHMARKS.md.)
@usableFromInline
enum SinCos {
    // π/2 = pio2Hi + pio2Lo: pio2Hi has 33 significant bits (fdlibm's pio2_1, pio2_1t).
    @usableFromInline static let pio2Hi = 1.57079632673412561417e+00
    @usableFromInline static let pio2Lo = 6.07710050650619224932e-11
    @usableFromInline static let twoOverPi = 6.36619772367581382433e-01

    // sin r ≈ r + r³·(S1 + r²·(S2 + … + r²·S6)) on |r| ≤ π/4.
    @usableFromInline static let s1 = -1.66666666666666324348e-01
    @usableFromInline static let s2 = 8.33333333332248946124e-03
    @usableFromInline static let s3 = -1.98412698298579493134e-04
    @usableFromInline static let s4 = 2.75573137070700676789e-06
    @usableFromInline static let s5 = -2.50507602534068634195e-08
    @usableFromInline static let s6 = 1.58969099521155010221e-10

    // cos r ≈ 1 − r²/2 + r⁴·(C1 + r²·(C2 + … + r²·C6)) on |r| ≤ π/4.
    @usableFromInline static let c1 = 4.16666666666666019037e-02
    @usableFromInline static let c2 = -1.38888888888741095749e-03
    @usableFromInline static let c3 = 2.48015872894767294178e-05
    @usableFromInline static let c4 = -2.75573143513906633035e-07
    @usableFromInline static let c5 = 2.08757232129817482790e-09
    @usableFromInline static let c6 = -1.13596475577881948265e-11

    /// The largest |x| taken: a little more than π.
    @usableFromInline static let limit = 3.2

    /// `(sin x, cos x)` lane by lane, for |x| ≤ `limit` in both lanes (NaN or beyond: the caller
    /// asks libm).
    @inlinable
    static func sinCos(_ x: SIMD2<Double>) -> (sin: SIMD2<Double>, cos: SIMD2<Double>) {
        typealias V = SIMD2<Double>
        let k: V = (x * twoOverPi).rounded(.toNearestOrEven)
        var r: V = (x - k * pio2Hi) - k * pio2Lo
        r.replace(with: x, where: k .== 0)  // x itself: −0 stays −0 (below too), as libm keeps it
        let z: V = r * r
        // fdlibm's __kernel_sin with no tail: r + r³·(S1 + z·P(z)).
        var ps: V = z * s6 + V(repeating: s5)
        ps = z * ps + V(repeating: s4)
        ps = z * ps + V(repeating: s3)
        ps = z * ps + V(repeating: s2)
        let zr: V = z * r
        var sinR: V = r + zr * (z * ps + V(repeating: s1))
        sinR.replace(with: r, where: r .== 0)
        // fdlibm's __kernel_cos with no tail: w + (((1 − w) − z/2) + z·Q(z)), w = 1 − z/2.
        var q: V = z * c6 + V(repeating: c5)
        q = z * q + V(repeating: c4)
        q = z * q + V(repeating: c3)
        q = z * q + V(repeating: c2)
        q = z * q + V(repeating: c1)
        q = z * q
        let hz: V = 0.5 * z
        let w: V = 1 - hz
        let tail: V = ((1 - w) - hz) + z * q
        let cosR: V = w + tail
        // Quadrant k mod 4: 0 (sin r, cos r), 1 (cos r, −sin r), 2 (−sin r, −cos r), 3 (−cos r, sin r).
        let odd = (k .== 1) .| (k .== -1)
        var s = sinR.replacing(with: cosR, where: odd)
        var c = cosR.replacing(with: sinR, where: odd)
        let sinNegative = (k .== 2) .| (k .== -2) .| (k .== -1)
        let cosNegative = (k .== 2) .| (k .== -2) .| (k .== 1)
        s.replace(with: -s, where: sinNegative)
        c.replace(with: -c, where: cosNegative)
        return (s, c)
    }
}
