// Registers every attention-lab element. `import 'attention-lab/components'`
// or load dist/components.js with one <script type="module">.
import { AttentionBackward } from './backward/attention-backward.js';
import { AttentionCompare } from './attention-compare.js';
import { AttentionCost } from './cost/attention-cost.js';
import { AttentionCross } from './cross/attention-cross.js';
import { AttentionDecoding } from './decoding/attention-decoding.js';
import { AttentionExplorer } from './attention-explorer.js';
import { AttentionHeads } from './attention-heads.js';
import { AttentionPooling } from './pooling/attention-pooling.js';
import { AttentionPositions } from './positions/attention-positions.js';
import { AttentionScaling } from './attention-scaling.js';
import { AttentionSteps } from './steps/attention-steps.js';
import { AttentionTrain } from './train/attention-train.js';
import { AttentionTransformer } from './transformer/attention-transformer.js';

export { AttentionBackward, AttentionCompare, AttentionCost, AttentionCross, AttentionDecoding, AttentionExplorer, AttentionHeads, AttentionPooling, AttentionPositions, AttentionScaling, AttentionSteps, AttentionTrain, AttentionTransformer };
export { getLab } from '../lab.js';

/** Register every element under its default tag (safe to call twice). */
export function defineAll() {
  for (const element of [AttentionSteps, AttentionCompare, AttentionScaling, AttentionPooling, AttentionHeads, AttentionCross, AttentionPositions, AttentionCost, AttentionTransformer, AttentionDecoding, AttentionTrain, AttentionBackward, AttentionExplorer]) element.define();
}

defineAll();
