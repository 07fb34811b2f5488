// Types of the CommonJS training entry (dist/training.cjs): require() gives init() only; it loads the ES module on first use.
import type { InitOptions } from './index.js' with { 'resolution-mode': 'import' };
import type { TrainingLab } from './training.js' with { 'resolution-mode': 'import' };
export type * from './training.js' with { 'resolution-mode': 'import' };
/** Load the training engine: instantiate its SIMD or scalar WebAssembly build. */
export declare function init(options?: InitOptions): Promise<TrainingLab>;
