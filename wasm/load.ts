// The one way a page gets the core: loads the shared module from /wasm/ once per page and caches
// it. The module is not bundled into each visualization, so the browser downloads and caches it
// once for the whole site.
import type createAttnCore from './attn_core';
import type { AttnCore } from './attn_core';

export type * from './attn_core';
export type * from './cost';
export type * from './decode';
export type * from './gpu';
export type * from './io';
export type * from './kvschemes';
export type * from './paged';

let core: Promise<AttnCore> | undefined;

// Resolved against the document, not this script: visualizations live at
// /visualizations/<name>/ and the module at /wasm/, on the site that serves the page (also when
// the page is embedded in another site's iframe).
const moduleUrl = () => new URL('../../wasm/attn_core.js', document.baseURI).href;

export function loadCore(): Promise<AttnCore> {
  core ??= import(/* @vite-ignore */ moduleUrl()).then((m: { default: typeof createAttnCore }) => m.default());
  return core;
}
