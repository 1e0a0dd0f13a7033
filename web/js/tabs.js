// The tab bar: one view shown at a time (class "active"), remembered in the address's #.
import { emit } from "./bus.js";
import { byId } from "./dom.js";

const TABS = ["map", "plants", "albums", "planting", "events"];

export function setupTabs() {
  for (const name of TABS) byId(`tab-${name}`).addEventListener("click", () => showTab(name));
  const fromAddress = location.hash.slice(1);
  showTab(TABS.includes(fromAddress) ? fromAddress : "map");
}

export function showTab(name) {
  for (const t of TABS) {
    const on = t === name;
    byId(`view-${t}`).classList.toggle("active", on);
    byId(`tab-${t}`).classList.toggle("active", on);
    byId(`tab-${t}`).setAttribute("aria-selected", String(on));
  }
  history.replaceState(null, "", name === "map" ? location.pathname : `#${name}`);
  emit("tab", name);
}
