// Figure state in the URL hash (#step=2&seed=7), so a link reproduces what the reader saw.
// Values are kept as strings here; the figure validates them (the core rejects a bad seed with a
// message the page shows).
import { effect } from '@preact/signals';

export function readHash(): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(window.location.hash.slice(1)));
}

/** The number under `key` as typed (not clamped: the core says what is allowed), or `fallback`. */
export const hashNumber = (hash: Record<string, string>, key: string, fallback: number): number =>
  (hash[key] === undefined ? fallback : Number(hash[key]));

function writeHash(values: Record<string, string | number>): void {
  const params = new URLSearchParams(Object.entries(values).map(([k, v]) => [k, String(v)]));
  // replaceState: stepping through a figure should not fill the browser history.
  history.replaceState(null, '', '#' + params.toString());
}

// How long the hash lags the figure. history.replaceState costs milliseconds in Chromium and is
// throttled when called often, so it stays off the interaction path: the hash is written once the
// figure has been still for this long, not on every step of a sweep or frame of playback.
const HASH_DELAY_MS = 150;

/** Keeps the hash equal to `read()` (an effect over the signals it reads), HASH_DELAY_MS behind. */
export function syncHash(read: () => Record<string, string | number>): void {
  let pending = 0;
  effect(() => {
    const values = read();
    window.clearTimeout(pending);
    pending = window.setTimeout(() => writeHash(values), HASH_DELAY_MS);
  });
}
