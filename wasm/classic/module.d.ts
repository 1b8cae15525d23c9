// The classic module (static/wasm/attn_classic.{js,wasm}): everything Parts 1 and 2 draw.
// tests/wasm/api.test.mjs fails if a name bound in wasm/classic/ or wasm/common/ is missing from
// these declarations.
import type { ModuleOptions, RandomApi } from '../common/types';
import type { ApproxApi } from './approx';
import type { ClassicApi } from './classic';
import type { SparseApi } from './sparse';
import type { TranslationApi } from './translation';

export interface AttnClassic extends RandomApi, ClassicApi, SparseApi, ApproxApi, TranslationApi {}

declare function createAttnModule(options?: ModuleOptions): Promise<AttnClassic>;
export default createAttnModule;
