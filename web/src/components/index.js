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
import { EXPLORER_TAG, PANELS } from '../panels.js';
import { addStrings } from '../i18n.js';

export { AttentionBackward, AttentionCompare, AttentionCost, AttentionCross, AttentionDecoding, AttentionExplorer, AttentionHeads, AttentionPooling, AttentionPositions, AttentionScaling, AttentionSteps, AttentionTrain, AttentionTransformer };
export { getLab } from '../lab.js';

// Every panel's strings (this module holds every panel; a panel's own entry point adds only its
// tables); the lesson's prose is the demo page's own (main.js).
const STRINGS = import.meta.glob(['../strings/*.js', '!../strings/lesson.js'], { eager: true, import: 'default' });
addStrings(Object.fromEntries(Object.entries(STRINGS).map(([file, table]) => [file.match(/([\w-]+)\.js$/)[1], table])));

// Each element by its tag (tests/js/element-docs.test.js checks this against the registry).
const ELEMENTS = new Map([AttentionBackward, AttentionCompare, AttentionCost, AttentionCross, AttentionDecoding, AttentionExplorer, AttentionHeads, AttentionPooling, AttentionPositions, AttentionScaling, AttentionSteps, AttentionTrain, AttentionTransformer].map((element) => [element.tag, element]));

/** Register every element under its default tag, in the registry's order (safe to call twice). */
export function defineAll() {
  for (const { tag } of [...PANELS, { tag: EXPLORER_TAG }]) ELEMENTS.get(tag).define();
}

defineAll();
