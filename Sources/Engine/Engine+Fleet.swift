import Geo
import Rules
import Server
import Store
import Regions
import Protocol

/// Regions set for a whole fleet: a FeatureCollection (MQTT's retained `treeline/fleet/regions`)
/// merged into the user layer by id. A region of it is added, or updated when it changed; a
/// fleet region missing from a newer version is removed; an id of the base layer or of a region
/// a user added here is left alone (and logged). One transaction, each change with its event.
/// A fleet region is the fleet's: on a board, `update_region` and `remove_region` refuse it.
extension Engine {
    package func mergeFleet(_ regions: [Region]) -> Result<String, CommandError> {
        var changes: [(change: RegionChange, event: JournalEntry, state: RegionState?)] = []
        var added: [Region] = [], updated: [Region] = [], skipped: [String] = []
        let time = eventTime
        var given = Set<String>()
        for r in regions {
            given.insert(r.id)
            // A file's id, one a board used (its own regions, removed ones too), a bad id or a
            // watering in the future: not the fleet's to take.
            if baseFile(of: r.id) != nil || (usedIDs.contains(r.id) && !fleetIDs.contains(r.id))
                || (try? Command.checkID(r.id)) == nil || futureWatering(r.lastWatered) != nil {
                skipped.append(r.id)
                continue
            }
            let feature = r.featureJSON
            guard let back = try? Self.readBack([feature], source: "fleet")[0] else {
                skipped.append(r.id)
                continue
            }
            if let k = user.firstIndex(where: { $0.id == r.id }) {
                guard user[k].featureJSON != feature else { continue }
                let watered = index(of: r.id).map { i -> UTCTime? in monitor.state(of: i).lastWatered } ?? nil
                changes.append((.update(id: r.id, feature: feature), Self.regionEntry("region_updated", back, layer: "user", time: time, lastWatered: .some(watered)), nil))
                updated.append(back)
            } else {
                changes.append((.add(id: r.id, feature: feature), Self.regionEntry("region_added", back, layer: "user", time: time), nil))
                added.append(back)
            }
        }
        let gone = user.filter { fleetIDs.contains($0.id) && !given.contains($0.id) }
        for r in gone {
            let inside = index(of: r.id).map { monitor.inside[$0] }
            changes.append((.remove(id: r.id), JournalEntry.regionRemoved(id: r.id, kind: r.kind.rawValue, layer: "user", inside: inside, time: time), nil))
        }
        if !skipped.isEmpty {
            logger.warning("fleet regions: \(skipped.joined(separator: ", ")) left alone: the id is a regions file's or one added on this board (rename it in the fleet's collection)")
        }
        guard !changes.isEmpty else { return .success("fleet regions: nothing changed") }
        guard flushUnsaved() else { return .failure(Self.databaseFailed) }
        let events: [JournalEvent]
        do { events = try store.apply(changes, fleet: true) } catch {
            logger.error("\(error)")
            return .failure(Self.databaseFailed)
        }
        for r in updated { if let k = user.firstIndex(where: { $0.id == r.id }) { user[k] = r } }
        user.removeAll { r in gone.contains { $0.id == r.id } }
        user += added
        for r in added {
            usedIDs.insert(r.id)
            fleetIDs.insert(r.id)
        }
        for r in gone { fleetIDs.remove(r.id) }
        published(events)
        rebuild(new: added.map(\.id))
        onStatus(statusLine)
        let summary = "fleet regions: \(added.count) added, \(updated.count) updated, \(gone.count) removed"
        logger.notice("\(summary)")
        return .success(summary)
    }
}
