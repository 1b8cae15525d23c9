// The inference module (static/wasm/attn_inference.{js,wasm}): everything Part 4 draws: KV-cache
// schemes, decode-time algorithms, the paged KV-cache simulation, the model and GPU presets and the
// decode-step roofline. tests/wasm/api.test.mjs fails if a name bound in wasm/inference/ or
// wasm/common/ is missing from these declarations.
import type { PresetsApi } from '../common/presets';
import type { ModuleOptions, RandomApi } from '../common/types';
import type { DecodeApi } from './decode';
import type { KvSchemesApi } from './kvschemes';
import type { PagedApi } from './paged';
import type { DecodeRooflineApi } from './roofline';

export interface AttnInference extends RandomApi, PresetsApi, KvSchemesApi, DecodeApi, PagedApi, DecodeRooflineApi {}

declare function createAttnModule(options?: ModuleOptions): Promise<AttnInference>;
export default createAttnModule;
