// A lost session: the board answers 401 (its token changed, the cookie expired or is not this
// board's). Retrying cannot help, so nothing is asked again; the page says that access ended
// and how to get a new link.
import { emit } from "./bus.js";

let lost = false;

export function sessionLost() {
  return lost;
}

/** Called by whatever got a 401: once, a notice over the page, and the "session" news. */
export function loseSession() {
  if (lost) return;
  lost = true;
  let box = document.getElementById("session-lost");
  if (!box) {
    box = document.createElement("section");
    box.id = "session-lost";
    box.setAttribute("role", "alert");
    const title = document.createElement("h2");
    title.textContent = "Access to the board ended";
    const why = document.createElement("p");
    why.textContent = "The board no longer accepts this phone's key: its token changed, or the key kept here expired. Nothing more is sent.";
    const how = document.createElement("p");
    how.append("To get a new link, run ");
    const code = document.createElement("code");
    code.textContent = "sudo treeline web";
    how.append(code, " on the board and open the address it prints, or scan its QR code.");
    box.append(title, why, how);
    document.body.prepend(box);
  }
  box.hidden = false;
  emit("session", "lost");
}
