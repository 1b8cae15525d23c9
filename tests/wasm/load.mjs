// Loads the exact module the site ships (static/wasm/attn_core.js, an ES module built for the
// web) in Node. Passing the .wasm bytes avoids the loader's fetch() of a file path, which Node's
// fetch cannot do (see TOOLCHAIN.md).
import { readFile } from 'node:fs/promises';
import createAttnCore from '../../static/wasm/attn_core.js';

export async function loadCore() {
  const wasmBinary = await readFile(new URL('../../static/wasm/attn_core.wasm', import.meta.url));
  return createAttnCore({ wasmBinary });
}
