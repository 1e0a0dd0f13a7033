// DOM helpers: elements built with textContent only (names come from users and files).

/** el("li", {class: "x", dataset: {id: "a"}}, "text", child…) */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

export function byId(id) {
  return document.getElementById(id);
}

/** Sets text only when it changed: cheap to call every second. */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** Shows a message in a view's message element; kind: "ok", "error" or "info". */
export function showMessage(node, text, kind = "info") {
  node.textContent = text;
  node.className = `message ${kind}`;
  node.hidden = !text;
  // The button pressed may be far below the message: bring it into sight.
  if (text) node.scrollIntoView({ block: "nearest" });
}

/** Runs an async action with its button disabled meanwhile (no double taps). */
export async function busy(button, action) {
  button.disabled = true;
  button.classList.add("busy");
  try {
    return await action();
  } finally {
    button.classList.remove("busy");
    button.disabled = false;
  }
}

/** Puts the list's children in the order of `nodes`, moving only the ones out of place. */
export function arrange(list, nodes) {
  nodes.forEach((node, i) => {
    if (list.children[i] !== node) list.insertBefore(node, list.children[i] || null);
  });
  while (list.children.length > nodes.length) list.lastElementChild.remove();
}
