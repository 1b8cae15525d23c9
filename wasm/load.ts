// The one way a page gets the core: loads its part's module from /wasm/ once per page and caches
// it. Modules are not bundled into the visualizations, so the part's figures share one download
// and one compile (below; wasm/CMakeLists.txt explains the split into parts).
import type { AttnClassic } from './classic/module';
import type { AttnFlash } from './flash/module';
import type { AttnInference } from './inference/module';
import type { ModuleOptions } from './common/types';

export type * from './common/presets';
export type * from './common/types';
export type * from './flash/attention';
export type * from './flash/cost';
export type * from './flash/gpu';
export type * from './flash/io';
export type * from './inference/decode';
export type * from './inference/kvschemes';
export type * from './inference/paged';
export type * from './inference/roofline';
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
export const moduleUrl = (name: ModuleName, ext: 'js' | 'wasm') => new URL(`../../wasm/attn_${name}.${ext}`, document.baseURI).href;

type Factory = (options?: ModuleOptions) => Promise<unknown>;

// A post embeds several figures of one part, each in its own same-origin frame. Left to itself each
// frame would download and compile the part's .wasm (five times on the FlashAttention post), so
// the compiled WebAssembly.Module is held by the topmost window of this origin and every frame
// instantiates its own instance from it (a Module is shareable between same-origin windows; an
// instance and its memory stay per frame). The compile runs in that window's realm, with its
// fetch, so it survives the frame that asked for it first. A standalone page is its own top; a
// figure framed by another site cannot reach that site's window and compiles for itself.
type CompiledModules = Map<string, Promise<WebAssembly.Module>>;
const SHARED_KEY = '__attnCompiledWasm';

/** The topmost window of this origin above this one (this window when the parent is another site). */
export function sharingWindow(): Window {
  let host: Window = window;
  try {
    // Walk up while the parent is this origin (reading its origin throws across origins).
    while (host.parent !== host && host.parent.location.origin === window.location.origin) host = host.parent;
  } catch {
    // The parent belongs to another site: share within the frames below it.
  }
  return host;
}

/** The compiled module at `url`, compiled once for every frame of this origin on the page. */
export function compiledModule(url: string): Promise<WebAssembly.Module> {
  const host = sharingWindow() as Window & { [SHARED_KEY]?: CompiledModules; WebAssembly: typeof WebAssembly };
  const modules = (host[SHARED_KEY] ??= new Map());
  let module = modules.get(url);
  if (!module) {
    module = host.WebAssembly.compileStreaming(host.fetch(url, { credentials: 'same-origin' }));
    // A failed compile is not kept, so a later figure (or a reload of this one) tries again.
    module.catch(() => modules.delete(url));
    modules.set(url, module);
  }
  return module;
}

export function loadModule<N extends ModuleName>(name: N): Promise<Modules[N]> {
  let module = loaded.get(name);
  if (!module) {
    const wasm = compiledModule(moduleUrl(name, 'wasm'));
    // Emscripten's ready promise waits for `receive` forever if instantiation fails, so a failure
    // rejects the outer promise instead (the page then says the figure could not start).
    module = new Promise((resolve, reject) => {
      import(/* @vite-ignore */ moduleUrl(name, 'js')).then((m: { default: Factory }) => m.default({
        instantiateWasm: (imports, receive) => {
          wasm.then((compiled) => WebAssembly.instantiate(compiled, imports).then((instance) => receive(instance, compiled)))
            .catch(reject);
          return {};
        },
      })).then(resolve, reject);
    });
    loaded.set(name, module);
  }
  return module as Promise<Modules[N]>;
}
