// A bounded cache of pure results by key, for figures whose readers revisit the same settings
// (dragging a slider back and forth): the core's answer for a configuration never changes. When
// full, the oldest entry goes. A computation that throws caches nothing. `has` says whether a key
// is held (a figure that computes off the main thread asks before it starts a computation).
export function boundedCache<T>(max: number): ((key: string, compute: () => T) => T) & { has: (key: string) => boolean } {
  const entries = new Map<string, T>();
  const lookup = (key: string, compute: () => T) => {
    const hit = entries.get(key);
    if (hit !== undefined) return hit;
    const value = compute();
    if (entries.size >= max) entries.delete(entries.keys().next().value!);
    entries.set(key, value);
    return value;
  };
  return Object.assign(lookup, { has: (key: string) => entries.has(key) });
}
