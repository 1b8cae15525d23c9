// The one way a page gets the core: loads its part's module from /wasm/ once per page and caches
// it. Modules are not bundled into the visualizations, so the browser downloads each once and
// reuses it across the part's figures (wasm/CMakeLists.txt explains the split).
import type { AttnClassic } from './classic/module';
import type { AttnFlash } from './flash/module';
import type { AttnInference } from './inference/module';
import type { ModuleOptions } from './common/types';

export type * from './common/types';
export type * from './flash/attention';
export type * from './flash/cost';
export type * from './flash/gpu';
export type * from './flash/io';
export type * from './inference/decode';
export type * from './inference/kvschemes';
export type * from './inference/paged';
export type { AttnClassic, AttnFlash, AttnInference };

export interface Modules {
  flash: AttnFlash;
  inference: AttnInference;
  classic: AttnClassic;
}
export type ModuleName = keyof Modules;

const loaded = new Map<ModuleName, Promise<unknown>>();

// Resolved against the document, not this script: visualizations live at
// /visualizations/<name>/ and the modules at /wasm/, on the site that serves the page (also when
// the page is embedded in another site's iframe).
const moduleUrl = (name: ModuleName) => new URL(`../../wasm/attn_${name}.js`, document.baseURI).href;

type Factory = (options?: ModuleOptions) => Promise<unknown>;

export function loadModule<N extends ModuleName>(name: N): Promise<Modules[N]> {
  let module = loaded.get(name);
  if (!module) {
    module = import(/* @vite-ignore */ moduleUrl(name)).then((m: { default: Factory }) => m.default());
    loaded.set(name, module);
  }
  return module as Promise<Modules[N]>;
}
