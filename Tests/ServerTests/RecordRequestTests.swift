import Geo
import Server
import Store
import Testing
import Regions
import Protocol

// The commands that change regions and records (Command+Records.swift, Command.swift): what a
// client may send, and what it is told when a request is refused.

private func rrParse(_ line: String) throws -> Command { try Command.parse(Array(line.utf8)) }

/// The message of the refusal, nil when the line parses.
private func rrRefusal(_ line: String) -> String? {
    do {
        _ = try Command.parse(Array(line.utf8))
        return nil
    } catch {
        return error.message
    }
}

private let rrIntervalMessage = "\"interval_days\" must be a whole number of days from 1 to 365 (a cactus wants about 40)"
private let rrTimeMessage = "must be an ISO 8601 time such as 2026-05-01T08:00:00Z, or a date such as 2026-05-01"

@Suite struct RecordRequestAddRegion {
    @Test func shortFormsTakeTheKindsDefaults() throws {
        let plant = try rrParse(#"{"cmd":"add_region","kind":"plant","name":"Basil","interval_days":3}"#)
        #expect(plant == .addRegion(.short(ShortRegion(kind: .plant, name: "Basil", intervalDays: 3))))
        let album = try rrParse(#"{"cmd":"add_region","kind":"album","name":"Beach"}"#)
        #expect(album == .addRegion(.short(ShortRegion(kind: .album, name: "Beach"))))
        // Placed at the last fix: a plant 30 m across, an album 150 m; never watered.
        let c = Coordinate(latitude: 40.1, longitude: -8.24)
        guard case let .addRegion(.short(p)) = plant, case let .addRegion(.short(a)) = album else {
            Issue.record("not short forms")
            return
        }
        #expect(p.region(id: "plant-1", at: c) == Region(id: "plant-1", kind: .plant, name: "Basil", shape: .circle(center: c, radius: 30), intervalDays: 3))
        #expect(a.region(id: "album-1", at: c) == Region(id: "album-1", kind: .album, name: "Beach", shape: .circle(center: c, radius: 150)))
    }

    @Test func theShortFormWithEveryValue() throws {
        let line = #"{"cmd":"add_region","kind":"plant","id":"basil-2","name":"Basil","interval_days":365,"last_watered":"2026-05-01T08:00:00Z","radius_m":2.5,"at":[40.1,-8.24],"note":"by the door"}"#
        let t = UTCTime(year: 2026, month: 5, day: 1, nanosOfDay: 8 * 3_600_000_000_000)!
        #expect(try rrParse(line) == .addRegion(.short(ShortRegion(kind: .plant, id: "basil-2", name: "Basil", intervalDays: 365, lastWatered: t,
                                                                     radius: 2.5, at: Coordinate(latitude: 40.1, longitude: -8.24), note: "by the door"))))
        #expect(try rrParse(#"{"cmd":"add_region","kind":"plant","name":"Cactus","interval_days":1,"last_watered":null}"#)
            == .addRegion(.short(ShortRegion(kind: .plant, name: "Cactus", intervalDays: 1))))
    }

    @Test func aFeatureIsCheckedAsARegionsFilesAre() throws {
        let line = #"{"cmd":"add_region","feature":{"type":"Feature","geometry":{"type":"Point","coordinates":[-8.24,40.1]},"properties":{"id":"oak-2","kind":"plant","name":"Oak","interval_days":7,"radius_m":12}}}"#
        #expect(try rrParse(line) == .addRegion(.feature(Region(id: "oak-2", kind: .plant, name: "Oak",
                                                                 shape: .circle(center: Coordinate(latitude: 40.1, longitude: -8.24), radius: 12),
                                                                 intervalDays: 7))))
    }

    @Test func aFeatureWithoutAnIDLeavesItToTheDaemon() throws {
        let line = #"{"cmd":"add_region","feature":{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[-9.14,38.70],[-9.13,38.70],[-9.13,38.71],[-9.14,38.71],[-9.14,38.70]]]},"properties":{"kind":"reforestation","name":"Slope","species":["Quercus robur"],"project":"spring"}}}"#
        guard case let .addRegion(.feature(r)) = try rrParse(line) else {
            Issue.record("not a feature")
            return
        }
        #expect(r.id == "" && r.name == "Slope" && r.kind == .reforestation)
        #expect(r.species == ["Quercus robur"] && r.project == "spring")
        guard case let .polygons(parts) = r.shape else {
            Issue.record("not a polygon")
            return
        }
        #expect(parts.count == 1 && parts[0].count == 1 && parts[0][0].count == 4, "one open ring of 4 corners")
    }

    @Test func refusalsNameTheKeyAndWhatIsExpected() {
        #expect(rrRefusal(#"{"cmd":"add_region","name":"Basil","interval_days":3}"#)
            == "missing \"kind\": \"plant\" or \"album\" (or send a GeoJSON Feature as \"feature\")")
        #expect(rrRefusal(#"{"cmd":"add_region","kind":"tree","name":"Basil"}"#) == "\"kind\" must be \"plant\" or \"album\"")
        #expect(rrRefusal(#"{"cmd":"add_region","kind":"reforestation","name":"Slope"}"#)
            == "a reforestation area is a polygon with its species: send it as a GeoJSON Feature, {\"cmd\":\"add_region\",\"feature\":{…}}")
        #expect(rrRefusal(#"{"cmd":"add_region","kind":"plant","interval_days":3}"#) == "missing \"name\": what to call the plant")
        #expect(rrRefusal(#"{"cmd":"add_region","kind":"plant","name":"Basil"}"#)
            == "missing \"interval_days\": a plant is watered every 1 to 365 days")
        for days in ["0", "366", "2.5", "\"3\""] {
            #expect(rrRefusal(#"{"cmd":"add_region","kind":"plant","name":"Basil","interval_days":\#(days)}"#) == rrIntervalMessage, "interval_days \(days)")
        }
        #expect(rrRefusal(#"{"cmd":"add_region","kind":"album","name":"Beach","radius_m":0}"#)
            == "\"radius_m\" must be a number of metres from 1 to 1000000")
        #expect(rrRefusal(#"{"cmd":"add_region","kind":"album","name":"Beach","radius_m":1000001}"#)
            == "\"radius_m\" must be a number of metres from 1 to 1000000")
        #expect(rrRefusal(#"{"cmd":"add_region","kind":"album","name":"Beach","interval_days":3}"#)
            == "\"interval_days\" is for plants; an album takes name, radius_m, at, note")
        #expect(rrRefusal(#"{"cmd":"add_region","kind":"plant","name":"Basil","interval_days":3,"colour":"green"}"#)
            == "unknown key \"colour\" for cmd 'add_region': it takes ago_s, at, feature, id, interval_days, kind, last_watered, name, note, radius_m, species")
        #expect(rrRefusal(#"{"cmd":"add_region","kind":"album","name":"Beach","at":[40.1,200]}"#)
            == "\"at\" must be [latitude, longitude] in decimal degrees")
        #expect(rrRefusal(#"{"cmd":"add_region","kind":"album","name":"Beach","at":[-91,8]}"#)
            == "\"at\" must be [latitude, longitude] in decimal degrees")
        #expect(rrRefusal(#"{"cmd":"add_region","kind":"plant","name":"Basil","interval_days":3,"last_watered":"yesterday"}"#)
            == "\"last_watered\" " + rrTimeMessage)
        #expect(rrRefusal(#"{"cmd":"add_region","kind":"album","id":"beach/north","name":"Beach"}"#)
            == "\"id\" 'beach/north' must be at most 128 letters, digits, '-', '_', '.' or ':' (it names the region in topics and URLs)")
    }

    @Test func aFeatureThatIsNotARegionSaysWhy() {
        // A bow tie: the edge from position 1 crosses the edge from position 3.
        let bowtie = #"{"cmd":"add_region","feature":{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[-9.14,38.70],[-9.13,38.71],[-9.13,38.70],[-9.14,38.71],[-9.14,38.70]]]},"properties":{"id":"bow","kind":"album"}}}"#
        #expect(rrRefusal(bowtie) == "the feature is not a region: outer ring crosses itself (edge from position 1 meets edge from position 3)")
        let plant = #"{"cmd":"add_region","feature":{"type":"Feature","geometry":{"type":"Point","coordinates":[-8.24,40.1]},"properties":{"id":"p","kind":"plant","interval_days":0,"radius_m":0}}}"#
        let m = rrRefusal(plant)
        #expect(m?.hasPrefix("the feature is not a region: ") == true)
        #expect(m?.contains("interval_days must be a whole number of days from 1 to 365, not 0") == true)
        #expect(m?.contains("radius_m must be from 1 to 1000000 metres, not 0") == true, "every problem, not just the first")
        // The feature form takes nothing beside it.
        #expect(rrRefusal(#"{"cmd":"add_region","name":"x","feature":{"type":"Feature","geometry":{"type":"Point","coordinates":[-8.24,40.1]},"properties":{"kind":"album"}}}"#)
            == "unknown key \"name\" for cmd 'add_region': it takes feature")
    }
}

@Suite struct RecordRequestChanges {
    @Test func updateRegionNeedsSomethingToChange() {
        #expect(rrRefusal(#"{"cmd":"update_region","region":"basil"}"#)
            == "nothing to change: give one or more of name, radius_m, interval_days, species, last_watered, note")
        #expect(rrRefusal(#"{"cmd":"update_region","radius_m":10}"#)
            == "missing \"region\": the region's id (treeline state --regions lists them)")
        #expect(rrRefusal(#"{"cmd":"update_region","region":"basil","radius_m":-3}"#)
            == "\"radius_m\" must be a number of metres from 1 to 1000000")
        #expect(rrRefusal(#"{"cmd":"update_region","region":"basil","interval_days":366}"#) == rrIntervalMessage)
        #expect(rrRefusal(#"{"cmd":"update_region","region":"area","species":[]}"#) == "\"species\" must be a non-empty list of species names (an area's), or one name (a plant's)")
        #expect(rrRefusal(#"{"cmd":"update_region","region":"basil","kind":"album"}"#)?
            .hasPrefix("unknown key \"kind\" for cmd 'update_region': it takes interval_days, last_watered, name, note, radius_m, region, species") == true)
    }

    @Test func updateRegionValues() throws {
        #expect(try rrParse(#"{"cmd":"update_region","region":"basil","radius_m":12.5}"#) == .updateRegion(id: "basil", RegionUpdate(radius: 12.5)))
        // null: never watered (due now), which is not "no change".
        let cleared = try rrParse(#"{"cmd":"update_region","region":"basil","last_watered":null}"#)
        #expect(cleared == .updateRegion(id: "basil", RegionUpdate(lastWatered: .some(nil))))
        #expect(cleared != .updateRegion(id: "basil", RegionUpdate()))
        let t = UTCTime(year: 2026, month: 5, day: 1)!
        #expect(try rrParse(#"{"cmd":"update_region","region":"basil","last_watered":"2026-05-01","note":null}"#)
            == .updateRegion(id: "basil", RegionUpdate(lastWatered: .some(t), note: .some(nil))))
        #expect(try rrParse(#"{"cmd":"update_region","region":"basil","species":"Ocimum basilicum"}"#)
            == .updateRegion(id: "basil", RegionUpdate(species: ["Ocimum basilicum"])))
        #expect(try rrParse(#"{"cmd":"update_region","region":"area","species":["Quercus robur","Arbutus unedo"],"name":"Slope"}"#)
            == .updateRegion(id: "area", RegionUpdate(name: "Slope", species: ["Quercus robur", "Arbutus unedo"])))
    }

    @Test func anUpdateAppliesOnlyToTheKindsItFits() throws {
        let c = Coordinate(latitude: 40.1, longitude: -8.24)
        let t = UTCTime(year: 2026, month: 5, day: 1)!
        let plant = Region(id: "basil", kind: .plant, name: "Basil", shape: .circle(center: c, radius: 30), intervalDays: 3, lastWatered: t)
        let cleared = try RegionUpdate(radius: 10, lastWatered: .some(nil)).applied(to: plant).get()
        #expect(cleared.shape == .circle(center: c, radius: 10) && cleared.lastWatered == nil && cleared.intervalDays == 3)
        // A plant's species is one name; an area's a list.
        #expect(try RegionUpdate(species: ["Ocimum basilicum"]).applied(to: plant).get().species == ["Ocimum basilicum"])
        #expect(try RegionUpdate(species: []).applied(to: RegionUpdate(species: ["Ocimum basilicum"]).applied(to: plant).get()).get().species == [],
                "null: the species no longer said")
        #expect(try rrParse(#"{"cmd":"update_region","region":"basil","species":null}"#) == .updateRegion(id: "basil", RegionUpdate(species: [])))
        #expect(RegionUpdate(species: ["Ocimum basilicum", "Olea europaea"]).applied(to: plant)
            == .failure(CommandError("'basil' is a plant: its \"species\" is one name, not a list of 2")))
        let album = Region(id: "beach", kind: .album, name: "Beach", shape: .circle(center: c, radius: 150))
        #expect(RegionUpdate(intervalDays: 4).applied(to: album)
            == .failure(CommandError("\"interval_days\" applies to plants only; 'beach' is an album")))
        let area = Region(id: "slope", kind: .reforestation, name: "Slope", shape: .polygons([[[c, c, c]]]), species: ["Quercus robur"])
        #expect(RegionUpdate(radius: 10).applied(to: area)
            == .failure(CommandError("'slope' is a polygon: \"radius_m\" applies to circles (points with a radius) only")))
    }

    @Test func removeRegion() throws {
        #expect(try rrParse(#"{"cmd":"remove_region","region":"basil"}"#) == .removeRegion(id: "basil"))
        #expect(rrRefusal(#"{"cmd":"remove_region"}"#) == "missing \"region\": the region's id (treeline state --regions lists them)")
        #expect(rrRefusal(#"{"cmd":"remove_region","region":""}"#) == "\"region\" must be a non-empty string")
    }

    @Test func regionsGeometryIsABoolean() throws {
        #expect(try rrParse(#"{"cmd":"regions","geometry":true}"#) == .regions(geometry: true))
        #expect(try rrParse(#"{"cmd":"regions","geometry":false}"#) == .regions(geometry: false))
        #expect(rrRefusal(#"{"cmd":"regions","geometry":"yes"}"#) == "\"geometry\" must be true or false")
        #expect(rrRefusal(#"{"cmd":"regions","geometry":1}"#) == "\"geometry\" must be true or false")
    }
}

@Suite struct RecordRequestRecords {
    @Test func capture() throws {
        #expect(try rrParse(#"{"cmd":"capture","album":"beach","file":"IMG_1.jpg","note":"fog"}"#)
            == .capture(album: "beach", file: "IMG_1.jpg", note: "fog"))
        #expect(try rrParse(#"{"cmd":"capture","album":"beach"}"#) == .capture(album: "beach", file: nil, note: nil))
        #expect(rrRefusal(#"{"cmd":"capture","file":"IMG_1.jpg"}"#) == "missing \"album\": the album's id (treeline albums lists them)")
        #expect(rrRefusal(#"{"cmd":"capture","album":"beach","note":"\#(String(repeating: "x", count: 4097))"}"#) == "\"note\" is over 4096 bytes")
        #expect(try rrParse(#"{"cmd":"captures"}"#) == .captures(album: nil))
    }

    @Test func removeTreeAndUndo() throws {
        #expect(try rrParse(#"{"cmd":"remove_tree","tree":12}"#) == .removeTree(id: 12))
        #expect(try rrParse(#"{"cmd":"undo_tree"}"#) == .removeTree(id: nil))
        let number = "\"tree\" must be a tree's number, a whole number ≥ 1"
        #expect(rrRefusal(#"{"cmd":"remove_tree","tree":0}"#) == number)
        #expect(rrRefusal(#"{"cmd":"remove_tree","tree":"x"}"#) == number)
        #expect(rrRefusal(#"{"cmd":"remove_tree","tree":1.5}"#) == number)
        #expect(rrRefusal(#"{"cmd":"remove_tree"}"#) == "missing \"tree\": the tree's number (treeline trees lists them)")
        #expect(rrRefusal(#"{"cmd":"undo_tree","tree":3}"#) == "unknown key \"tree\" for cmd 'undo_tree'")
    }

    @Test func track() throws {
        let may1 = UTCTime(year: 2026, month: 5, day: 1)!
        #expect(try rrParse(#"{"cmd":"track"}"#) == .track(since: nil, until: nil))
        #expect(try rrParse(#"{"cmd":"track","since":"2026-05-01"}"#) == .track(since: may1, until: nil))
        #expect(try rrParse(#"{"cmd":"track","since":"2026-05-01T00:00:00Z","until":"2026-05-01T02:00:00+01:00"}"#)
            == .track(since: may1, until: UTCTime(nanoseconds: may1.nanoseconds + 3_600_000_000_000)))
        #expect(try rrParse(#"{"cmd":"track","since":"2026-05-01","until":"2026-05-01"}"#) == .track(since: may1, until: may1), "one instant")
        #expect(rrRefusal(#"{"cmd":"track","since":"2026-05-02","until":"2026-05-01T23:59:59Z"}"#)
            == "\"until\" is before \"since\": nothing could be in between")
        #expect(rrRefusal(#"{"cmd":"track","since":"yesterday"}"#) == "\"since\" " + rrTimeMessage)
        #expect(rrRefusal(#"{"cmd":"track","until":1746086400}"#) == "\"until\" " + rrTimeMessage)
        #expect(rrRefusal(#"{"cmd":"track","since":"2026-13-01"}"#) == "\"since\" " + rrTimeMessage)
    }
}
