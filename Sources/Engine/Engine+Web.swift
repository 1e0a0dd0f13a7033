import Geo
import Rules
import Server
import Web
import Protocol

/// What HTTP adds to the socket's protocol: layers as GeoJSON files.
extension Engine: WebDelegate {
    package nonisolated func geoJSON(_ layer: GeoJSONLayer) async -> Result<[UInt8]?, CommandError> {
        switch layer {
        case .regions:
            return .success(await snapshot().regions.featureCollection())
        case .trees:
            do { return .success(PlantedTree.featureCollection(try store.trees(area: nil, project: nil))) } catch {
                return .failure(CommandError("cannot read the trees: \(error)"))
            }
        case .track:
            do {
                let points = try store.track(from: nil, through: nil)
                return .success(points.isEmpty ? nil : TrackWriter.geoJSON(points, name: "treeline track"))
            } catch {
                return .failure(CommandError("cannot read the track: \(error)"))
            }
        }
    }

    package func regionsChangeCount() -> Int { regionsVersion }
}
