import AR
import Geo
import JSON
import Protocol
import Regions
import Rules
import Walks

/// What the engine holds at one moment, handed out whole and immutable. The read-only replies
/// (`state`, `regions`, `export`, `species`, `layout`, the web app's regions layer, OwnTracks)
/// are written from it beside the actor, so a long one (a country's regions, a layout of many
/// points) never holds up a fix or a command that changes something.
package struct Snapshot: Sendable {
    /// The regions in force with the monitor's view of them.
    package var regions: RegionsInForce
    /// The last used fix as the monitor keeps it, and as gpsd gave it (altitude, speed, course).
    package var lastFix: LastFix?
    package var lastUsedFix: Fix?
    /// When (monotonic ns) the last used fix was received in this run; nil before the first.
    package var lastFixReceived: UInt64?
    /// When each region in force was first announced (only in `snapshot(added: true)`); a count
    /// of changes to the regions.
    package var regionsAdded: [String: UTCTime] = [:]
    package var regionsVersion: Int
    /// The species catalog, or why there is none.
    package var catalog: Result<SpeciesCatalog, CommandError>
    /// The trails and the one under way.
    package var trails: TrailBook
    /// The daemon's own figures, for `state`.
    package var status: Status

    package struct Status: Sendable {
        var version: String
        /// The journal's name: another name is another journal (a replaced database).
        var journal: String
        /// The last seq committed when the snapshot was taken.
        var seq: Int64
        var counters: Counters
        var used: Int
        var dropped: [DropReason: Int]
    }

    /// What the engine counts of its own work since it started, for `state` and systemd's STATUS=.
    package struct Counters: Sendable {
        /// gpsd's state as last reported.
        var gpsd = "not connected yet"
        /// Fixes received (used or dropped).
        var fixes = 0
        var eventsByType: [String: Int] = [:]
        /// Commits and their durations (ns): the disk's share of an event's latency.
        var commits = 0
        var commitNanos: UInt64 = 0
        var slowestCommit: UInt64 = 0

        mutating func committed(took: UInt64) {
            commits += 1
            commitNanos += took
            slowestCommit = max(slowestCommit, took)
        }
    }

    /// `{"class":"STATE",…}`: the version, the last seq, gpsd, the last fix, the regions the
    /// walker is inside, the fixes used and dropped, events by type, commits and subscribers.
    package func stateReply(subscribers: Int) -> [UInt8] {
        JSONWriter.object { o in
            o.member("class", "STATE")
            o.member("version", status.version)
            o.member("journal", status.journal)
            o.member("seq", status.seq)
            o.member("gpsd", status.counters.gpsd)
            o.member("last_fix") { w in
                if let at = regions.at { w.raw { at.appendJSON(to: &$0) } } else { w.null() }
            }
            o.member("inside") { w in
                w.array { a in
                    for (i, r) in regions.set.regions.enumerated() where regions.inside[i] { a.value(r.id) }
                }
            }
            o.member("regions", regions.set.count)
            o.member("fixes", status.counters.fixes)
            o.member("used", status.used)
            o.member("dropped") { w in
                w.object { d in
                    for r in DropReason.allCases { if let n = status.dropped[r] { d.member(r.rawValue, n) } }
                }
            }
            o.member("events") { w in
                w.object { e in
                    for (type, n) in status.counters.eventsByType.sorted(by: { $0.key < $1.key }) { e.member(type, n) }
                }
            }
            o.member("commits", status.counters.commits)
            o.member("commit_ms") { w in
                w.object { c in
                    let n = status.counters
                    c.member("mean", n.commits == 0 ? 0 : Double(n.commitNanos) / Double(n.commits) / 1e6, decimals: 2)
                    c.member("max", Double(n.slowestCommit) / 1e6, decimals: 2)
                }
            }
            o.member("subscribers", subscribers)
        }
    }

    /// `{"class":"SPECIES","species":[…]}`: the catalog's species answering `query`, best first,
    /// each with the reforestation areas in force that allow it.
    package func speciesReply(_ query: String) -> Result<[UInt8], CommandError> {
        catalog.map { $0.reply(query: query, regions: regions.set) }
    }

    /// The planting rules over the regions in force, and where to apply them: `at`, else the
    /// last fix.
    package func planting(at: Coordinate?) -> Result<(PlantingRules, Coordinate), CommandError> {
        catalog.flatMap { catalog in position(at).map { (PlantingRules(regions: regions.set, catalog: catalog), $0) } }
    }

    /// Where a command applies: `at`, else the last fix; refused before any fix.
    func position(_ at: Coordinate?) -> Result<Coordinate, CommandError> {
        guard let c = at ?? lastFix?.coordinate else {
            return .failure(CommandError("no fix yet: wait for one, or give \"at\":[lat, lon]"))
        }
        return .success(c)
    }

    /// The points of interest (the regions in force) laid out for a camera at `at`, else at the
    /// last fix (`LAYOUT`), or the whole circle stacked once (`PANORAMA`).
    package func layoutReply(camera: Camera, options: LayoutOptions, at: Coordinate?, panorama: Bool) -> Result<[UInt8], CommandError> {
        let list = regions.set.regions
        return position(at).map { c in
            LayoutReply.json(observer: c, camera: camera, options: options, pois: list.map(POI.init(region:)),
                             kind: { list[$0].kind.rawValue }, panorama: panorama)
        }
    }

    /// `ROUND`: the shortest walk found from `at` (else the last fix) through the stops asked for.
    package func roundReply(_ stops: RoundStops, at: Coordinate?) -> Result<[UInt8], CommandError> {
        position(at).flatMap { from in
            Round.stops(stops, in: regions).map { Round.plan(from: from, stops: $0).reply }.mapError { CommandError($0.message) }
        }
    }

    /// `TRAILS`: every trail, its progress and lock, and the run under way.
    package func trailsReply() -> [UInt8] {
        let wanted = Set(trails.trails.flatMap { $0.checkpoints.map(\.region) })
        var found = Set<String>()
        if !wanted.isEmpty { for r in regions.set.regions where wanted.contains(r.id) { found.insert(r.id) } }
        return trails.reply(inForce: found.contains)
    }
}
