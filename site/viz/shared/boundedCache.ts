// A bounded cache of pure results by key, for figures whose readers revisit the same settings
// (dragging a slider back and forth): the core's answer for a configuration never changes. When
// full, the oldest entry goes. A computation that throws caches nothing.
export function boundedCache<T>(max: number): (key: string, compute: () => T) => T {
  const entries = new Map<string, T>();
  return (key, compute) => {
    const hit = entries.get(key);
    if (hit !== undefined) return hit;
    const value = compute();
    if (entries.size >= max) entries.delete(entries.keys().next().value!);
    entries.set(key, value);
    return value;
  };
}
