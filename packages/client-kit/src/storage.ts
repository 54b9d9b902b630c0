/** Where the kit keeps things between visits: an interface any platform backs. */

/**
 * Where a client persists its cache, its cursors and its queued writes. `localStorage` fits as it
 * is, and so does React Native's `AsyncStorage` (each method may answer a promise).
 */
export interface KeyValueStorage {
  getItem(key: string): string | null | Promise<string | null>;
  setItem(key: string, value: string): void | Promise<void>;
  removeItem(key: string): void | Promise<void>;
}

/** A storage that forgets on reload: tests, and pages where storage is off. */
export function memoryStorage(): KeyValueStorage {
  const items = new Map<string, string>();
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => {
      items.set(key, value);
    },
    removeItem: (key) => {
      items.delete(key);
    },
  };
}
