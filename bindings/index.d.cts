// Types of the CommonJS entry (dist/index.cjs): require() gives init() only; it loads the ES module on first use.
import type { AttentionLab, InitOptions } from './index.js' with { 'resolution-mode': 'import' };
export type * from './index.js' with { 'resolution-mode': 'import' };
/** Load the library: instantiate the FMA, SIMD or scalar WebAssembly build. */
export declare function init(options?: InitOptions): Promise<AttentionLab>;
