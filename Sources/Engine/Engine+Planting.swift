import AR
import Foundation
import Geo
import Rules
import Server
import Store
import JSON
import Protocol

/// Planting (can_plant, plant, plan): answers from the regions in force, the catalog and the
/// recorded trees. `can_plant` and `plan` read only: they are answered from a snapshot beside
/// the actor (a plan of thousands of trees takes a while); `plant` records, in turn.
extension Engine {
    // MARK: planting

    package func setCatalog(_ c: Result<SpeciesCatalog, DaemonError>) {
        switch c {
        case .success(let c): catalog = .success(c)
        case .failure(let e):
            // A catalog read before stays in force (a reload with a broken file keeps it).
            if case .success = catalog {
                logger.warning("species catalog: \(e.description); the one read before stays in force")
                return
            }
            catalog = .failure(Self.noCatalog(e.description))
            logger.warning("planting commands are off: \(e.description)")
        }
    }

    /// What planting commands answer without a catalog.
    static func noCatalog(_ problem: String) -> CommandError {
        CommandError("\(problem): set species: in the config to the catalog's path")
    }

    func planting(at: Coordinate?) -> Result<(PlantingRules, Coordinate), CommandError> {
        snapshot().planting(at: at)
    }

    package nonisolated func canPlant(species: String?, area: String?, at: Coordinate?) async -> Result<[UInt8], CommandError> {
        await snapshot().planting(at: at).flatMap { rules, c in
            do {
                let verdict = rules.check(at: c, species: species, area: area, trees: try store.trees())
                return .success(verdict.reply(class: "CAN_PLANT", tree: nil, species: species.flatMap { rules.catalog.named($0)?.latin } ?? species, at: c))
            } catch {
                return .failure(CommandError("cannot read the trees: \(error)"))
            }
        }
    }

    /// Records a tree; with `ago` (queued on a phone that could not reach the board), planted
    /// that many seconds back unless `planted` says when, where the board was then unless `at`
    /// says where.
    package func plant(species: String, area: String?, at: Coordinate?, project: String?, planted: UTCTime?, ago: Double? = nil) -> Result<[UInt8], CommandError> {
        if let planted, planted.nanoseconds > eventTime.nanoseconds + UTCTime.nanosPerDay {
            return .failure(CommandError("\"planted\" is in the future: give when the tree was planted, or leave it out for now"))
        }
        if let ago {
            if let at {
                return boardTime(ago: ago).flatMap { then in plant(species: species, area: area, at: at, project: project, planted: planted ?? then) }
            }
            return fixAgo(ago).flatMap { then in
                plant(species: species, area: area, at: then.coordinate, project: project, planted: planted ?? then.time)
            }
        }
        return planting(at: at).flatMap { rules, c in
            let latin = rules.catalog.named(species)?.latin ?? species
            do {
                let (verdict, tree) = try store.plant(species: latin, at: c, planted: planted ?? eventTime, project: project) { trees in
                    rules.check(at: c, species: species, area: area, trees: trees)
                }
                if let tree { logger.info("tree #\(tree.id) planted: \(latin) in \(tree.area)") }
                return .success(verdict.reply(class: "PLANT", tree: tree, species: latin, at: c))
            } catch {
                return .failure(CommandError("the tree could not be recorded: \(error)"))
            }
        }
    }

    package nonisolated func plan(area: String, species name: String, count: Int, at: Coordinate?, maxDistance: Double?,
                                  seed: UInt64) async -> Result<[UInt8], CommandError> {
        await snapshot().planting(at: at).flatMap { rules, c in
            let i: Int, species: Species
            do throws(PlantingVerdict.Refusal) { (i, species) = try rules.resolve(area: area, species: name) } catch { return .failure(CommandError(error.message)) }
            let existing: [Coordinate]
            do { existing = try store.trees().map(\.coordinate) } catch { return .failure(CommandError("cannot read the trees: \(error)")) }
            let result = PlantingPlanner(regions: rules.regions).plan(area: i, species: species, count: count, at: c,
                                                                      maxDistance: maxDistance, existing: existing, seed: seed)
            return .success(result.reply(area: area, species: species))
        }
    }
}
