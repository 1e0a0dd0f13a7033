// A tiny publish/subscribe hub, so the views do not import each other.
// Topics: "event" (a journal EVENT), "position" (a POSITION), "regions" (a REGIONS answer),
// "trees" (a TREES answer), "stream" (the stream's state), "tab" (a view shown),
// "plan" (a PLAN answer to draw), "focus-plan" (show the plan on the map), "notice" (a
// message of the stream for the user).
const listeners = new Map();

export function on(topic, fn) {
  if (!listeners.has(topic)) listeners.set(topic, []);
  listeners.get(topic).push(fn);
}

export function emit(topic, data) {
  for (const fn of listeners.get(topic) || []) {
    try {
      fn(data);
    } catch (e) {
      // One view's bug must not stop the others from hearing the news.
      console.error(`listener of "${topic}" failed`, e);
    }
  }
}
