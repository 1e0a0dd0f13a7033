// The Albums view: distance and capture allowed/locked per album, its captures, Capture (only
// inside) with a note and/or a photo from the camera; "Add album here".
// Rows are kept per id and updated in place, so a note being typed survives every refresh.
import { command } from "./api.js";
import { act } from "./queue.js";
import { on } from "./bus.js";
import { arrange, busy, byId, el, setText, showMessage } from "./dom.js";
import { clock, metres } from "./format.js";
import { goButton } from "./go.js";
import { refreshRegions, regionById, whereText } from "./regions.js";
import { regionTarget } from "./target.js";

// Photos the server kept (POST /api/captures) are named <time>-<hash>-<random>.<ext> and served
// back from /api/photos/ by exactly that name; a capture's file from elsewhere (a phone's path)
// cannot be shown.
const SERVED_PHOTO = /^\d{8}T\d{6}Z-[0-9a-f]{16}-[0-9a-f]{1,8}\.(jpg|png|webp|heic|avif|gif)$/;

const rows = new Map(); // id → {li, …}
let albums = [];
let captures = [];

export function setupAlbums() {
  setupGallery();
  on("regions", (answer) => {
    albums = answer.regions.filter((r) => r.kind === "album");
    render();
  });
  on("tab", (name) => name === "albums" && refreshCaptures());
  setInterval(() => albums.forEach((a) => rows.has(a.id) && updateDistance(rows.get(a.id), a)), 1000);
  byId("album-form").addEventListener("submit", (e) => {
    e.preventDefault();
    busy(byId("album-add"), addAlbum);
  });
}

export async function refreshCaptures() {
  try {
    captures = (await command({ cmd: "captures" })).captures || [];
    render();
  } catch (e) {
    message(`Captures: ${e.message}`, "error");
  }
}

function message(text, kind) {
  showMessage(byId("albums-message"), text, kind);
}

function render() {
  const seen = new Set();
  // The server's order, never re-sorted: moving a row would take the focus from its note.
  const nodes = albums.map((a) => {
    seen.add(a.id);
    const row = rows.get(a.id) || createRow(a.id);
    update(row, a);
    return row.li;
  });
  for (const id of rows.keys()) if (!seen.has(id)) rows.delete(id);
  arrange(byId("albums-list"), nodes);
  byId("albums-empty").hidden = albums.length > 0;
}

function createRow(id) {
  const row = {
    name: el("span", { class: "name" }),
    status: el("span", { class: "badge" }),
    facts: el("span", { class: "facts" }),
    shots: el("div", { class: "captures" }),
    note: el("input", { type: "text", class: "capture-note", placeholder: "Note (optional)", maxlength: "200", "aria-label": "Note" }),
    file: el("input", { type: "file", class: "capture-file", accept: "image/*", capture: "environment", "aria-label": "Photo" }),
    button: el("button", { type: "button", class: "capture", text: "Capture", disabled: true }),
    locked: el("p", { class: "capture-locked muted", text: "Capture is offered inside the album: walk into it." }),
  };
  // Capture, its note and its photo only inside the album, where the board takes them.
  row.form = el("div", { class: "capture-form", hidden: true }, row.note, row.file, row.button);
  row.go = goButton(() => regionTarget(regionById(id) || { id, name: id, kind: "album" }));
  row.li = el("li", { class: "card", dataset: { id } },
    el("div", { class: "card-head" }, row.name, row.status),
    row.facts, el("div", { class: "actions go-row" }, row.go), row.shots, row.locked, row.form);
  row.button.addEventListener("click", () => busy(row.button, () => capture(id, row)).then(() => {
    row.button.disabled = row.li.dataset.inside !== "true"; // busy() re-enabled it
  }));
  rows.set(id, row);
  return row;
}

function update(row, a) {
  setText(row.name, a.name);
  const inside = String(Boolean(a.inside));
  if (row.li.dataset.inside !== inside) row.li.dataset.inside = inside;
  if (!row.button.classList.contains("busy")) row.button.disabled = !a.inside;
  if (!row.button.classList.contains("busy")) {
    row.form.hidden = !a.inside;
    row.locked.hidden = Boolean(a.inside);
  }
  setText(row.status, a.inside ? "capture allowed" : "locked");
  row.status.className = `badge ${a.inside ? "allowed" : "locked"}`;
  updateDistance(row, a);
  showCaptures(row, captures.filter((c) => c.album === a.id));
}

function updateDistance(row, a) {
  setText(row.facts, `${a.id} · radius ${metres(a.radius_m)} · ${whereText(a)}`);
}

function showCaptures(row, list) {
  const key = list.map((c) => c.id).join(",");
  if (row.shots.dataset.key === key) return;
  row.shots.dataset.key = key;
  if (!list.length) {
    row.shots.replaceChildren(el("span", { class: "muted", text: "no captures yet" }));
    return;
  }
  const photos = list.filter((c) => photoName(c));
  const recent = list.slice(-3).reverse();
  const parts = [
    el("span", { text: `${list.length} capture${list.length === 1 ? "" : "s"}${photos.length ? `, ${photos.length} with a photo` : ""}` }),
  ];
  // The last photos as thumbnails (tap: full size); the notes of the last captures.
  if (photos.length) {
    parts.push(el("ul", { class: "thumbs" }, ...photos.slice(-4).reverse().map((c) => el("li", {}, thumbButton(c, photos)))));
    parts.push(el("button", { type: "button", class: "secondary gallery-open", text: `All ${photos.length} photo${photos.length === 1 ? "" : "s"}`,
      onclick: () => openGallery(row.name.textContent, photos) }));
  }
  parts.push(el("ul", { class: "capture-list" }, ...recent.map(captureItem)));
  row.shots.replaceChildren(...parts);
}

/** The name the board gave a capture's photo (served at /api/photos/NAME), or null. */
function photoName(c) {
  const name = c.file ? c.file.split("/").pop() : "";
  return SERVED_PHOTO.test(name) ? name : null;
}

function photoURL(c) {
  return `/api/photos/${encodeURIComponent(photoName(c))}`;
}

function photoLabel(c) {
  return `Photo of capture #${c.id}, ${clock(c.time)}${c.note ? `: ${c.note}` : ""}`;
}

function thumbButton(c, all) {
  return el("button", { type: "button", class: "thumb-button", "aria-label": `${photoLabel(c)}: full size`,
    onclick: () => openGallery(null, all, c) },
  el("img", { class: "thumb", src: photoURL(c), alt: "", loading: "lazy", width: "64", height: "64" }));
}

function captureItem(c) {
  const name = c.file ? c.file.split("/").pop() : "";
  const served = Boolean(photoName(c));
  return el("li", {}, `#${c.id} ${clock(c.time)}${c.note ? ` “${c.note}”` : ""}${served ? " · photo" : c.file ? ` · ${name}` : ""}`);
}

/** The album's photos in a dialog: a grid; a tap shows one full size. */
function openGallery(title, photos, first) {
  const dialog = byId("gallery");
  if (title) setText(byId("gallery-title"), `Photos: ${title}`);
  const grid = byId("gallery-grid");
  grid.replaceChildren(...photos.slice().reverse().map((c) => el("li", {},
    el("button", { type: "button", "aria-label": `${photoLabel(c)}: full size`, onclick: () => showFull(c) },
      el("img", { src: photoURL(c), alt: "", loading: "lazy" }),
      el("span", { class: "caption", text: `#${c.id} ${clock(c.time)}` })))));
  byId("gallery-figure").hidden = true;
  grid.hidden = false;
  if (!dialog.open) dialog.showModal();
  if (first) showFull(first);
}

function showFull(c) {
  const img = byId("gallery-full");
  img.src = photoURL(c);
  img.alt = photoLabel(c);
  setText(byId("gallery-caption"), photoLabel(c));
  byId("gallery-grid").hidden = true;
  byId("gallery-figure").hidden = false;
  byId("gallery-back").focus();
}

function setupGallery() {
  const dialog = byId("gallery");
  byId("gallery-close").addEventListener("click", () => dialog.close());
  byId("gallery-back").addEventListener("click", () => {
    byId("gallery-figure").hidden = true;
    byId("gallery-grid").hidden = false;
  });
}

async function capture(id, row) {
  const note = row.note.value.trim();
  const file = row.file.files[0];
  try {
    const label = `Capture in ${(regionById(id) || {}).name || id}${file ? " with a photo" : ""}`;
    const done = await act(file ? { label, photo: { album: id, note, file } } : { label, cmd: { cmd: "capture", album: id, note: note || undefined } });
    if (done.queued) {
      row.note.value = "";
      row.file.value = "";
      return message("The board is out of reach: the capture waits at the top of the page, and is recorded where the board was when you took it.", "info");
    }
    const answer = done.answer;
    if (answer.recorded === false) {
      message(answer.reason || "not recorded", "error");
      return;
    }
    const c = answer.capture || {};
    message(`Capture #${c.id} recorded in ${id}${file ? " with the photo" : ""}.`, "ok");
    row.note.value = "";
    row.file.value = "";
    await refreshCaptures();
  } catch (e) {
    message(e.message, "error");
  }
}

async function addAlbum() {
  const name = byId("album-name").value.trim();
  const radius = Number(byId("album-radius").value);
  if (!name) return message("Give the album a name.", "error");
  if (!(radius > 0)) return message("The radius is a number of metres above 0.", "error");
  try {
    const e = await command({ cmd: "add_region", kind: "album", name, radius_m: radius });
    message(`Added album ${name} as ${e.region} here, ${metres(radius)} around (seq ${e.seq}).`, "ok");
    byId("album-name").value = "";
    await refreshRegions();
  } catch (e) {
    message(e.message, "error");
  }
}
