// Figure state in the URL hash (#step=2&seed=7), so a link reproduces what the reader saw.
// Values are kept as strings here; the figure validates them (the core rejects a bad seed with a
// message the page shows).
export function readHash(): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(window.location.hash.slice(1)));
}

export function writeHash(values: Record<string, string | number>): void {
  const params = new URLSearchParams(Object.entries(values).map(([k, v]) => [k, String(v)]));
  // replaceState: stepping through a figure should not fill the browser history.
  history.replaceState(null, '', '#' + params.toString());
}
