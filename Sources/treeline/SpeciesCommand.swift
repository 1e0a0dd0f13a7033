import ArgumentParser
import Geo
import Loading
import Rules
import JSON
import Regions

extension Treeline {
    struct SpeciesCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "species",
            abstract: "Search the species catalog: spacing, heights, and which reforestation areas allow each species.",
            discussion: """
            QUERY is matched against Latin and common names, ignoring case, accents and extra \\
            spaces; a name that starts with it or contains it matches, and so does one a small typo \\
            away (one letter for queries up to 5 letters, two beyond). Best matches first. Without \\
            QUERY, every species. With --regions (or --config, for its regions:) each species \\
            also lists the reforestation areas whose species it is.

            Examples:
              treeline species oak
              treeline species "quercus robr" --regions Data/regions.geojson
              treeline species --json
            """
        )

        @Argument(help: "Part of a Latin or common name (none: every species).")
        var query: String?

        @Option(help: "The species catalog (default: the config's species: with --config; else Data/species.json here, else /usr/local/share/treeline or /usr/share/treeline).")
        var catalog: String?

        @Option(help: "A regions file, for the areas that allow each species; repeat for several.")
        var regions: [String] = []

        @Option(help: "The CRS of the regions' coordinates when a file does not say (e.g. EPSG:3763).")
        var crs: String?

        @Option(help: "A config file (YAML, as the daemon's): its species: and regions:.")
        var config: String?

        @Flag(help: "One JSON object per line instead of text.")
        var json = false

        func run() throws {
            let settings = try config.map(Loader.config)
            let catalog = try Loader.catalog(given: self.catalog, config: settings)
            let paths = regions.isEmpty ? settings?.regions ?? [] : regions
            let areas: RegionSet? = paths.isEmpty ? nil : try Loader.regions(paths, crs: crs)
            let found = catalog.search(query ?? "")
            guard !found.isEmpty else { throw UserError("no species in the catalog matches \"\(TextExcerpt.short(query ?? ""))\"") }
            let out = ByteWriter(fd: 1)
            defer { out.flush() }
            for (species, match) in found {
                let allowing = areas.map { catalog.areas(allowing: species, in: $0) }
                let line = json ? Self.json(species, match: match, areas: allowing) : Self.text(species, areas: allowing)
                out.write { $0.append(contentsOf: line.utf8); $0.append(0x0A) }
            }
        }

        static func text(_ s: Species, areas: [String]?) -> String {
            let n = Wording.number
            var line = "\(s.latin) (\(s.common)): spacing \(n(s.spacing)) m, \(Int(s.plantsPerHectare.rounded())) a hectare; height \(n(s.minHeight))–\(n(s.maxHeight)) m"
            if let areas { line += areas.isEmpty ? "; allowed in no area" : "; allowed in \(areas.joined(separator: ", "))" }
            return line
        }

        static func json(_ s: Species, match: SpeciesCatalog.Match, areas: [String]?) -> String {
            var out: [UInt8] = []
            s.appendJSON(match: match, areas: areas, to: &out)
            return String(decoding: out, as: UTF8.self)
        }
    }
}
