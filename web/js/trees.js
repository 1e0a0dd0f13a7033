// The recorded trees (TREES), drawn by the map; asked at start and after Plant here / Undo
// (the journal has no tree events).
import { command } from "./api.js";
import { emit } from "./bus.js";

export async function refreshTrees() {
  emit("trees", await command({ cmd: "trees" }));
}
