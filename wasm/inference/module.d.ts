// The inference module (static/wasm/attn_inference.{js,wasm}): everything Part 4 draws: KV-cache
// schemes, decode-time algorithms and the paged KV-cache simulation. tests/wasm/api.test.mjs fails
// if a name bound in wasm/inference/ or wasm/common/ is missing from these declarations.
import type { ModuleOptions, RandomApi } from '../common/types';
import type { DecodeApi } from './decode';
import type { KvSchemesApi } from './kvschemes';
import type { PagedApi } from './paged';

export interface AttnInference extends RandomApi, KvSchemesApi, DecodeApi, PagedApi {}

declare function createAttnModule(options?: ModuleOptions): Promise<AttnInference>;
export default createAttnModule;
