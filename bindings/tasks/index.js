// The training tasks, pure JavaScript (no WebAssembly): lab.tasks is TASKS. Each task generates its
// examples from a seed and carries its tokenizer, batches, goal and defaults. A task is built the
// first time it is read (dates reads its alphabet off every written form), so init() pays nothing
// for the tasks a program never uses; after that it is the same frozen object every time.
import { createDates } from './dates.js';
import { createGrammar } from './grammar.js';
import { createRepeat } from './repeat.js';
import { createReverse } from './reverse.js';

const FACTORIES = { dates: createDates, reverse: createReverse, grammar: createGrammar, repeat: createRepeat };
const built = new Map();

/** Every task by name: dates and reverse (encoder–decoder), grammar and repeat (decoder-only). */
export const TASKS = Object.freeze(
  Object.defineProperties(
    {},
    Object.fromEntries(
      Object.entries(FACTORIES).map(([name, create]) => [
        name,
        {
          enumerable: true,
          get() {
            if (!built.has(name)) built.set(name, create());
            return built.get(name);
          },
        },
      ]),
    ),
  ),
);
