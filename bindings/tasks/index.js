// The training tasks, pure JavaScript (no WebAssembly): lab.tasks is this object.
// Each task generates its examples from a seed and carries its tokenizer, batches, goal and defaults.
import { dates } from './dates.js';
import { grammar } from './grammar.js';
import { repeat } from './repeat.js';
import { reverse } from './reverse.js';

/** Every task by name: dates and reverse (encoder–decoder), grammar and repeat (decoder-only). */
export const TASKS = Object.freeze({ dates, reverse, grammar, repeat });

export { dates, grammar, repeat, reverse };
