// Loads the exact modules the site ships (static/wasm/attn_<part>.js, ES modules built for the
// web) in Node. Passing the .wasm bytes avoids the loader's fetch() of a file path, which Node's
// fetch cannot do (see TOOLCHAIN.md).
import { readFile } from 'node:fs/promises';

export const MODULES = ['flash', 'inference', 'classic'];

export async function loadModule(name) {
  if (!MODULES.includes(name)) throw new Error(`unknown module ${name}`);
  const { default: create } = await import(`../../static/wasm/attn_${name}.js`);
  const wasmBinary = await readFile(new URL(`../../static/wasm/attn_${name}.wasm`, import.meta.url));
  return create({ wasmBinary });
}
