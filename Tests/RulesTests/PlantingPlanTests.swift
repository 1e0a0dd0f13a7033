import Foundation
import Geo
@testable import Rules
import Testing
import TestSupport
import Regions

private typealias F = PlantingFixtures

/// Checks every rule of a plan on the ellipsoid; returns the problems found.
private func planProblems(_ r: PlanResult, set: RegionSet, check: F.RingCheck, at: Coordinate, spacing: Double, reach: Double,
                          existing: [Coordinate], margin: Double) -> [String] {
    var problems: [String] = []
    let n = r.positions.count
    if r.shortfall == nil, n != r.requested { problems.append("\(n) of \(r.requested) placed without a reason") }
    if let reason = r.reason, !reason.hasPrefix("only \(n) of \(r.requested) tree") { problems.append("reason \(reason)") }
    if r.shortfall != nil, n >= r.requested { problems.append("a reason with every tree placed") }
    guard n > 0 else { return problems }
    if r.positions[0] != at { problems.append("the first position is not the tapped point") }
    for (k, p) in r.positions.enumerated() {
        let sd = set.signedDistance(0, p)
        if !(sd >= margin) || !set.contains(0, p) { problems.append("tree \(k) is outside (signed distance \(sd))") }
        if !check.isInside(p) { problems.append("tree \(k) is outside the outer rings or in a hole") }
        let d = F.geodesic.distance(at, p)
        if d > reach { problems.append("tree \(k) is \(d) m from the first, more than \(reach)") }
    }
    for (i, j, d) in F.pairsCloserThan(spacing, r.positions) { problems.append("trees \(i) and \(j) are \(d) m apart") }
    for (i, j, d) in F.pairsCloserThan(spacing, r.positions, existing) {
        problems.append("tree \(i) is \(d) m from recorded tree \(j)")
    }
    return problems
}

@Suite struct PlantingPlanProperties {
    /// Random concave areas with holes (and multipolygons) in six places, random spacing, count,
    /// maximum distance, margin and recorded trees: every rule holds on the ellipsoid, the plan is
    /// the same again for its seed, and a plan that stops short is full at its resolution.
    @Test(arguments: 0..<6)
    func everyRuleHoldsOnTheEllipsoid(place: Int) throws {
        let (name, center) = F.places[place]
        var rng = SplitMix64(seed: 0x5EED_0000 + UInt64(place))
        var stats = (cases: 0, complete: 0, full: 0)
        for seed in 0..<40 {
            let scale = rng.uniform(12, 90), spacing = rng.uniform(1.5, 7)
            let parts = F.area(center, scale: scale, rng: &rng)
            let set = RegionSet([F.reforestation(parts)])
            let check = F.RingCheck(parts)
            var planner = PlantingPlanner(regions: set)
            planner.margin = rng.next() % 4 == 0 ? rng.uniform(0.1, 1.5) : 0
            let existing = (0..<Int(rng.next() % 25)).map { _ in
                F.offset(center, east: rng.uniform(-scale, scale), north: rng.uniform(-scale, scale))
            }
            guard let at = F.pointInside(set, center, scale: scale, margin: planner.margin, rng: &rng) else { continue }
            let count = 1 + Int(rng.next() % 40)
            let reach: Double? = rng.next() % 3 == 0 ? nil : rng.uniform(0.7, 6) * spacing
            let r = planner.plan(area: 0, species: F.species(spacing), count: count, at: at, maxDistance: reach,
                                 existing: existing, seed: UInt64(seed))
            let label = "\(name) case \(seed): scale \(scale) m, spacing \(spacing) m, \(count) trees, reach \(reach.map { "\($0)" } ?? "default"), margin \(planner.margin)"
            stats.cases += 1

            if case let .firstNearRecordedTree(d, s) = r.shortfall {
                // Refused: the nearest recorded tree is that near, on the ellipsoid.
                let nearest = F.nearest(at, existing)
                #expect(abs(nearest - d) < 1e-9 && d < s && r.positions.isEmpty, "\(label)")
                continue
            }
            #expect(F.nearest(at, existing) >= spacing, "\(label): planned next to a recorded tree")
            let problems = planProblems(r, set: set, check: check, at: at, spacing: spacing, reach: reach ?? 3 * spacing,
                                        existing: existing, margin: planner.margin)
            #expect(problems.isEmpty, "\(label): \(problems.prefix(5))")
            #expect(planner.plan(area: 0, species: F.species(spacing), count: count, at: at, maxDistance: reach,
                                 existing: existing, seed: UInt64(seed)) == r, "\(label): not deterministic")
            if r.isComplete { stats.complete += 1 }

            // Stopping short means full at the fallback's resolution: no point of the disc that
            // has a disc of radius h/√2 inside the area (and the reach) is farther than
            // spacing + h/√2 from every tree.
            if case .full = r.shortfall {
                stats.full += 1
                let rr = reach ?? 3 * spacing
                let h = max(spacing / 16, rr / 512), slack = h / 2.0.squareRoot() + 0.01
                let trees = r.positions + existing
                for _ in 0..<300 {
                    let p = F.offset(at, east: rng.uniform(-rr, rr), north: rng.uniform(-rr, rr))
                    guard set.signedDistance(0, p) >= planner.margin + slack, F.geodesic.distance(at, p) <= rr - slack else { continue }
                    let d = F.nearest(p, trees)
                    #expect(d < spacing + slack, "\(label): room left at \(p), \(d) m from the nearest tree")
                }
            }
        }
        // The cases are varied: some complete, some run out of room.
        #expect(stats.cases >= 35 && stats.complete >= 5 && stats.full >= 5, "\(stats)")
    }

    /// A maximum distance far beyond the area costs nothing: the disc worked in is the area's.
    @Test func aHugeMaximumDistance() {
        let c = F.places[4].center
        let set = RegionSet([F.reforestation([[F.rectangle(c, west: -20, south: -20, east: 20, north: 20)]])])
        let start = ContinuousClock.now
        let r = PlantingPlanner(regions: set).plan(area: 0, species: F.species(4), count: 200, at: c, maxDistance: 5_000_000, seed: 9)
        #expect(ContinuousClock.now - start < .seconds(10))
        // 1,600 m² at 4 m: 100 on a square grid, 115 by hexagonal density, and a few along the edges.
        #expect(r.positions.count > 90 && r.positions.count < 135, "\(r.positions.count)")
        #expect(r.reason == "only \(r.positions.count) of 200 trees fit: the area within 5000000 m of the first tree is full at 4 m spacing")
        for p in r.positions { #expect(set.signedDistance(0, p) >= 0) }
        #expect(F.smallestGap(r.positions, below: 4) >= 4)
    }

    @Test func sameSeedSamePlanOtherSeedOtherPlan() {
        let c = F.places[0].center
        let set = RegionSet([F.reforestation([[F.rectangle(c, west: -100, south: -100, east: 100, north: 100)]])])
        let planner = PlantingPlanner(regions: set)
        let oak = F.species(5)
        var plans: [[Coordinate]] = []
        for seed in 0..<20 as Range<UInt64> {
            let r = planner.plan(area: 0, species: oak, count: 8, at: c, seed: seed)
            #expect(r.isComplete && r.positions.count == 8)
            #expect(planner.plan(area: 0, species: oak, count: 8, at: c, seed: seed) == r)
            plans.append(r.positions)
        }
        // 20 seeds, 20 different plans (the tapped point is each plan's first).
        #expect(Set(plans.map { $0.dropFirst().map { "\($0.latitude),\($0.longitude)" } }).count == 20)
    }

    /// The frame's inverse: a planar point back on the ellipsoid projects to itself, and is the
    /// point the geodesic reaches for small offsets.
    @Test func theFrameInverseIsExact() {
        for (name, c) in F.places {
            let frame = LocalFrame(origin: c)
            for q in [Planar(x: 0, y: 0), Planar(x: 3.5, y: -2), Planar(x: -250, y: 900), Planar(x: 20_000, y: 35_000), Planar(x: -50_000, y: -1)] {
                let p = frame.coordinate(q)
                let back = frame.project(p)
                #expect(abs(back.x - q.x) < 1e-6 && abs(back.y - q.y) < 1e-6, "\(name): \(q) → \(back)")
                #expect(p.isValid)
            }
            // Near the origin the plane is the ellipsoid to nanometres (ECEF rounding).
            let p = frame.coordinate(Planar(x: 3, y: 4))
            #expect(abs(F.geodesic.distance(c, p) - 5) < 1e-8, "\(name)")
        }
    }
}

/// Fixed areas for the refusals and figures: a 100 m square around `c` with a 20 m square hole.
private struct SquareWithHole {
    let c = F.places[0].center
    let parts: [[[Coordinate]]]
    let set: RegionSet

    init(kind: RegionKind = .reforestation) {
        parts = [[F.rectangle(c, west: -50, south: -50, east: 50, north: 50), F.rectangle(c, west: -10, south: -10, east: 10, north: 10)]]
        set = RegionSet([Region(id: "sq", kind: kind, name: "square", shape: .polygons(Polygons(parts)))])
    }
}

@Suite struct PlantingPlanRefusals {
    let oak = F.species(5)

    @Test func firstPointOutsideTheArea() {
        let area = SquareWithHole()
        let at = F.offset(area.c, east: 60, north: 0)
        let r = PlantingPlanner(regions: area.set).plan(area: 0, species: oak, count: 5, at: at, seed: 1)
        #expect(r.positions.isEmpty)
        #expect(r.reason == "only 0 of 5 trees fit: the first point is outside the area (10 m from its edge)")
        guard case let .firstOutside(d) = r.shortfall else { Issue.record("\(String(describing: r.shortfall))"); return }
        #expect(abs(d - 10) < 0.01)
    }

    @Test func firstPointInAHole() {
        let area = SquareWithHole()
        let at = F.offset(area.c, east: 4, north: 0)
        let r = PlantingPlanner(regions: area.set).plan(area: 0, species: oak, count: 5, at: at, seed: 1)
        #expect(r.positions.isEmpty)
        #expect(r.reason == "only 0 of 5 trees fit: the first point is in a hole of the area (6 m from the hole's edge)")
    }

    @Test func firstPointInsideTheMargin() {
        let area = SquareWithHole()
        var planner = PlantingPlanner(regions: area.set)
        planner.margin = 2
        let at = F.offset(area.c, east: 49, north: 0)
        let r = planner.plan(area: 0, species: oak, count: 5, at: at, seed: 1)
        #expect(r.positions.isEmpty)
        #expect(r.reason == "only 0 of 5 trees fit: the first point is 1 m from the area's edge, the margin is 2 m")
    }

    @Test func firstPointNearARecordedTree() {
        let area = SquareWithHole()
        let at = F.offset(area.c, east: 0, north: 30)
        let existing = [F.offset(area.c, east: 40, north: -40), F.offset(at, east: 2.1, north: 0)]
        let r = PlantingPlanner(regions: area.set).plan(area: 0, species: oak, count: 3, at: at, existing: existing, seed: 1)
        #expect(r.positions.isEmpty)
        #expect(r.reason == "only 0 of 3 trees fit: the first point is 2.1 m from a recorded tree, spacing is 5 m")
        // Just under the spacing shows enough decimals not to read as the spacing.
        let close = [F.offset(at, east: 0, north: 4.96)]
        #expect(PlantingPlanner(regions: area.set).plan(area: 0, species: oak, count: 3, at: at, existing: close, seed: 1).reason
            == "only 0 of 3 trees fit: the first point is 4.96 m from a recorded tree, spacing is 5 m")
        // At the spacing it is allowed.
        let atSpacing = [F.offset(at, east: 0, north: 5.000001)]
        #expect(PlantingPlanner(regions: area.set).plan(area: 0, species: oak, count: 3, at: at, existing: atSpacing, seed: 1).isComplete)
    }

    @Test func maximumDistanceBelowTheSpacingLeavesOnlyTheFirst() {
        let area = SquareWithHole()
        let at = F.offset(area.c, east: 0, north: 30)
        let planner = PlantingPlanner(regions: area.set)
        let r = planner.plan(area: 0, species: oak, count: 4, at: at, maxDistance: 4, seed: 1)
        #expect(r.positions == [at])
        #expect(r.reason == "only 1 of 4 trees fit: the maximum distance from the first tree (4 m) is not more than the spacing (5 m)")
        #expect(planner.plan(area: 0, species: oak, count: 4, at: at, maxDistance: 5, seed: 1).positions == [at])
        // A little more than the spacing: the others stand on a thin ring around the first.
        let ring = planner.plan(area: 0, species: oak, count: 4, at: at, maxDistance: 5.2, seed: 1)
        #expect(ring.isComplete)
        for p in ring.positions.dropFirst() {
            let d = F.geodesic.distance(at, p)
            #expect(d >= 5 && d <= 5.2)
        }
    }

    @Test func aTinyAreaHoldsOnlyTheFirst() {
        let c = F.places[1].center
        let set = RegionSet([F.reforestation([[F.rectangle(c, west: 0, south: 0, east: 3, north: 3)]])])
        let r = PlantingPlanner(regions: set).plan(area: 0, species: oak, count: 5, at: F.offset(c, east: 1, north: 1), seed: 7)
        #expect(r.positions.count == 1)
        #expect(r.reason == "only 1 of 5 trees fit: the area within 15 m of the first tree is full at 5 m spacing")
        #expect(r.shortfall == .full(maxDistance: 15, spacing: 5))
    }

    /// A 1 m × 7 m strip with the first tree at one end: exactly one more fits (at 5 to 7.07 m).
    @Test(arguments: 0..<10 as Range<UInt64>)
    func aStripHoldsExactlyTwo(seed: UInt64) {
        let c = F.places[2].center
        let set = RegionSet([F.reforestation([[F.rectangle(c, west: 0, south: 0, east: 7, north: 1)]])])
        let at = F.offset(c, east: 0.5, north: 0.5)
        let r = PlantingPlanner(regions: set).plan(area: 0, species: oak, count: 3, at: at, seed: seed)
        #expect(r.positions.count == 2)
        #expect(r.reason == "only 2 of 3 trees fit: the area within 15 m of the first tree is full at 5 m spacing")
        if r.positions.count == 2 {
            let d = F.geodesic.distance(at, r.positions[1])
            #expect(d >= 5 && d <= 6.6)
            #expect(set.signedDistance(0, r.positions[1]) >= 0)
        }
    }

    @Test func onlyReforestationAreas() {
        let area = SquareWithHole(kind: .plant)
        let r = PlantingPlanner(regions: area.set).plan(area: 0, species: oak, count: 2, at: F.offset(area.c, east: 30, north: 0), seed: 1)
        #expect(r.positions.isEmpty)
        #expect(r.reason == "only 0 of 2 trees fit: region 'sq' is a plant area, not a reforestation area")
        #expect(PlantingPlanner(regions: area.set).fill(area: 0, species: oak, seed: 1).positions.isEmpty)
    }

    @Test func noTreesAndOneTree() {
        let area = SquareWithHole()
        let at = F.offset(area.c, east: 30, north: 0)
        let planner = PlantingPlanner(regions: area.set)
        #expect(planner.plan(area: 0, species: oak, count: 0, at: at, seed: 1) == PlanResult(positions: [], requested: 0, shortfall: nil))
        let one = planner.plan(area: 0, species: oak, count: 1, at: at, seed: 1)
        #expect(one.positions == [at] && one.reason == nil)
        let nowhere = planner.plan(area: 0, species: oak, count: 2, at: Coordinate(latitude: .nan, longitude: 0), seed: 1)
        #expect(nowhere.reason == "only 0 of 2 trees fit: the first point is not a valid position")
    }
}

@Suite struct PlantingPlanBetterThanTheOriginal {
    /// A sliver 0.6 m wide and 40 m long, the first tree at one end: of the annulus the original
    /// drew from (5–15 m, 628 m²) only some 6 m² lie in the sliver, so its 20 random attempts a
    /// tree mostly miss; the fallback's circle points find the room every time.
    @Test func aSliverDefeatsRandomAttemptsButNotTheFallback() {
        let c = F.places[1].center
        let set = RegionSet([F.reforestation([[F.rectangle(c, west: 0, south: 0, east: 40, north: 0.6)]])])
        let at = F.offset(c, east: 0.3, north: 0.3)
        var original = PlantingPlanner(regions: set)
        original.fallback = false
        let planner = PlantingPlanner(regions: set)
        let oak = F.species(5)
        var originalComplete = (two: 0, three: 0), complete = (two: 0, three: 0)
        for seed in 0..<200 as Range<UInt64> {
            if original.plan(area: 0, species: oak, count: 2, at: at, seed: seed).isComplete { originalComplete.two += 1 }
            if original.plan(area: 0, species: oak, count: 3, at: at, seed: seed).isComplete { originalComplete.three += 1 }
            if planner.plan(area: 0, species: oak, count: 2, at: at, seed: seed).isComplete { complete.two += 1 }
            let three = planner.plan(area: 0, species: oak, count: 3, at: at, seed: seed)
            if three.isComplete { complete.three += 1 }
            for p in three.positions { #expect(set.signedDistance(0, p) >= 0) }
            #expect(F.smallestGap(three.positions, below: 5) >= 5)
        }
        // 1 − (1 − 6/628)^20 ≈ 17.5 % for the second tree; the third needs more luck still.
        #expect(originalComplete.two > 15 && originalComplete.two < 60, "\(originalComplete)")
        #expect(originalComplete.three < 10, "\(originalComplete)")
        #expect(complete == (200, 200))
    }

    /// Forty trees asked around one point of an open area (room for about 37 at 5 m within
    /// 15 m): the original stops at its first tree whose 20 attempts fail; the same seed with the
    /// fallback goes on from there, so it places strictly more, every time.
    @Test func aCrowdedDiscHoldsMore() {
        let c = F.places[3].center
        let set = RegionSet([F.reforestation([[F.rectangle(c, west: -100, south: -100, east: 100, north: 100)]])])
        var original = PlantingPlanner(regions: set)
        original.fallback = false
        let planner = PlantingPlanner(regions: set)
        let oak = F.species(5)
        var totals = (original: 0, fallback: 0)
        for seed in 0..<30 as Range<UInt64> {
            let a = original.plan(area: 0, species: oak, count: 40, at: c, seed: seed)
            let b = planner.plan(area: 0, species: oak, count: 40, at: c, seed: seed)
            #expect(b.positions.count > a.positions.count, "seed \(seed)")
            #expect(Array(b.positions.prefix(a.positions.count)) == a.positions, "seed \(seed): the same until the original gives up")
            #expect(F.smallestGap(b.positions, below: 5) >= 5)
            totals.original += a.positions.count
            totals.fallback += b.positions.count
        }
        #expect(totals.fallback * 10 >= totals.original * 15, "\(totals)")
    }
}
