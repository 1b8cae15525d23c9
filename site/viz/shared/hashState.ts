// Figure state in the URL hash (#step=2&seed=7), so a link reproduces what the reader saw.
// Values are kept as strings here; the figure validates them (the core rejects a bad seed with a
// message the page shows). A figure restarts from the hash when it changes (mount.tsx).
//
// Embedded, the figure also tells its host page each state it writes, as a message
// { type: 'viz:state', hash: 'step=2&seed=7' }: the viz shortcode's script carries it into the
// "New tab" link and the post's own URL (#fig-<name>:step=2&seed=7), which opens the post there.
import { figureEffect } from './figureScope';

export function readHash(): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(window.location.hash.slice(1)));
}

/** The number under `key` as typed (not clamped: the core says what is allowed), or `fallback`. */
export const hashNumber = (hash: Record<string, string>, key: string, fallback: number): number =>
  (hash[key] === undefined ? fallback : Number(hash[key]));

function writeHash(values: Record<string, string | number>): void {
  const params = new URLSearchParams(Object.entries(values).map(([k, v]) => [k, String(v)]));
  // replaceState: stepping through a figure should not fill the browser history.
  const hash = params.toString();
  if (hash === window.location.hash.slice(1)) return;
  history.replaceState(null, '', '#' + hash);
  if (window.parent !== window) window.parent.postMessage({ type: 'viz:state', hash }, '*');
}

// How long the hash lags the figure. history.replaceState costs milliseconds in Chromium and is
// throttled when called often, so it stays off the interaction path: the hash is written once the
// figure has been still for this long, not on every step of a sweep or frame of playback, and
// then in the browser's next idle period, so that a write due while the reader is already on the
// next interaction waits for it to be drawn.
const HASH_DELAY_MS = 150;
const IDLE_TIMEOUT_MS = 500;

// Runs `f` when the main thread is idle (at the latest after IDLE_TIMEOUT_MS); returns a canceller.
// Browsers without requestIdleCallback (Safari) run it as the next task.
function whenIdle(f: () => void): () => void {
  if (window.requestIdleCallback) {
    const id = window.requestIdleCallback(f, { timeout: IDLE_TIMEOUT_MS });
    return () => window.cancelIdleCallback(id);
  }
  const id = window.setTimeout(f, 0);
  return () => window.clearTimeout(id);
}

/** Keeps the hash equal to `read()` (an effect over the signals it reads), HASH_DELAY_MS behind. */
export function syncHash(read: () => Record<string, string | number>): void {
  // The cleanup cancels a pending write when the values change again and when the figure restarts.
  figureEffect(() => {
    const values = read();
    let cancelIdle = () => {};
    const pending = window.setTimeout(() => { cancelIdle = whenIdle(() => writeHash(values)); }, HASH_DELAY_MS);
    return () => { window.clearTimeout(pending); cancelIdle(); };
  });
}
