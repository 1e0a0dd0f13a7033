// The page's own store in IndexedDB ("treeline"): the actions waiting for the board ("queue",
// by key, in the order they were made) and the last answers of reads ("answers", by request),
// kept so that the page works when the board is out of reach. Each call opens one transaction.
const NAME = "treeline";
const VERSION = 1;
let opening = null;

function open() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      const request = indexedDB.open(NAME, VERSION);
      request.onupgradeneeded = () => {
        const db = request.result;
        if (!db.objectStoreNames.contains("queue")) db.createObjectStore("queue", { keyPath: "key" });
        if (!db.objectStoreNames.contains("answers")) db.createObjectStore("answers", { keyPath: "request" });
      };
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    opening.catch(() => { opening = null; });
  }
  return opening;
}

/** Runs `work(store)` in a transaction on `store`; its result once the transaction is done. */
async function run(store, mode, work) {
  const db = await open();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(store, mode);
    let result;
    const request = work(tx.objectStore(store));
    if (request) request.onsuccess = () => { result = request.result; };
    tx.oncomplete = () => resolve(result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error || new Error("IndexedDB transaction aborted"));
  });
}

export function put(store, value) {
  return run(store, "readwrite", (s) => s.put(value));
}

export function get(store, key) {
  return run(store, "readonly", (s) => s.get(key));
}

export function remove(store, key) {
  return run(store, "readwrite", (s) => s.delete(key));
}

export function all(store) {
  return run(store, "readonly", (s) => s.getAll());
}
