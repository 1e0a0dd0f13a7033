// The sun theme: black on white, AAA contrast (7:1 and more) for the main text, for a screen
// read in full sunlight. A toggle in the header (or the AR bar), remembered in localStorage.
const KEY = "treeline.theme";

export function loadTheme() {
  let t = "normal";
  try {
    t = localStorage.getItem(KEY) === "sun" ? "sun" : "normal";
  } catch {
    // private mode: the normal theme
  }
  applyTheme(t);
}

function applyTheme(t) {
  document.documentElement.dataset.theme = t;
  const button = document.getElementById("theme-toggle");
  if (button) button.setAttribute("aria-pressed", String(t === "sun"));
  const meta = document.querySelector('meta[name="theme-color"]');
  if (meta) meta.content = t === "sun" ? "#000000" : "#1f6b32";
}

export function setupThemeToggle() {
  loadTheme();
  const button = document.getElementById("theme-toggle");
  if (!button) return;
  button.addEventListener("click", () => {
    const t = document.documentElement.dataset.theme === "sun" ? "normal" : "sun";
    try {
      localStorage.setItem(KEY, t);
    } catch {
      // kept for this page only
    }
    applyTheme(t);
  });
}
