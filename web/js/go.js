// "Go there": a button that makes a region or a point the target and shows the map, where the
// guidance bar leads to it (guide.js) and the map draws the way (map.js).
import { emit } from "./bus.js";
import { el } from "./dom.js";
import { showTab } from "./tabs.js";
import { setTarget } from "./target.js";

export function goTo(target) {
  setTarget(target);
  emit("go", target);
  showTab("map");
}

/** A "Go there" button; `target()` gives the target when it is tapped. */
export function goButton(target, label = "Go there") {
  return el("button", { type: "button", class: "go secondary", text: label, onclick: () => goTo(target()) });
}
