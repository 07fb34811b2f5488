// lab.tasks.grammar: a small word-level language in English and Chinese, every sentence generated
// from two templates (grammar-en.js, grammar-zh.js): subject–verb agreement across a relative clause
// and pronoun reference after two nouns. Decoder-only, next-word prediction.
// What counts as right: the grammar often allows several next words (any noun after "the"), so
// `batch()` scores every next word (count 'every', the training loss), and
// `batch({ count: 'agreement' })` scores only the determined positions (the agreeing verb or 都/很,
// the noun a pronoun refers to): there one word alone is right, and the goal is measured there.
import { AttentionError } from '../errors.js';
import { englishSentences } from './grammar-en.js';
import { allWords } from './grammar-lexicon.js';
import { chineseSentences } from './grammar-zh.js';
import { splitOf } from './seeded.js';
import { defineTask } from './task.js';
import { createVocabulary } from './vocabulary.js';

const LANGUAGES = ['en', 'zh'];
const TEMPLATES = ['agreement', 'reference'];

/** Every sentence of the language with its ids, text and split, and the pools drawn from. */
function language(vocab) {
  const all = [...englishSentences().map((s) => ({ ...s, language: 'en' })), ...chineseSentences().map((s) => ({ ...s, language: 'zh' }))];
  // Every sentence's ids are a view into one array: an array each took 9,216 allocations, and in
  // Chromium the build held the page for about 200 ms.
  const allIds = new Int32Array(all.reduce((n, s) => n + s.words.length, 0));
  let at = 0;
  const sentences = Object.freeze(
    all.map((s) => {
      const ids = allIds.subarray(at, at + s.words.length);
      s.words.forEach((w, k) => (ids[k] = vocab.index.get(w)));
      at += s.words.length;
      const text = vocab.decode(ids);
      return Object.freeze({ ...s, ids, text, split: splitOf(`${s.language}:${text}`) });
    }),
  );
  // the sentences of one split, language and template, each pool drawn with equal chance
  const pools = new Map();
  for (const s of sentences) {
    const key = `${s.split}/${s.language}/${s.template}`;
    if (!pools.has(key)) pools.set(key, []);
    pools.get(key).push(s);
  }
  return { sentences, pools, keys: new Set(sentences.map((s) => s.ids.join(','))) };
}

function extras(options) {
  const { language = 'both', count = 'every' } = options;
  if (!['both', ...LANGUAGES].includes(language)) throw new AttentionError('INVALID_ARGUMENT', `tasks.grammar.batch: language must be 'both', 'en' or 'zh', got ${JSON.stringify(language)}`);
  if (count !== 'every' && count !== 'agreement') throw new AttentionError('INVALID_ARGUMENT', `tasks.grammar.batch: count must be 'every' or 'agreement', got ${JSON.stringify(count)}`);
  return { language, count };
}

/** One sentence: every next word counted, or only the determined ones (input i predicts ids[i]). */
function drawExample(pools, random, split, { language: choice, count }) {
  const lang = choice === 'both' ? random.pick(LANGUAGES) : choice;
  const s = random.pick(pools.get(`${split}/${lang}/${random.pick(TEMPLATES)}`));
  const counted = Array.from({ length: s.ids.length + 1 }, (_, i) => count === 'every' || s.determined.includes(i));
  const target = s.determined.map((i) => s.words[i]).join(' ');
  return { source: s.text, target, ids: s.ids, counted };
}

/** The grammar task (built on first use, as every task: index.js). */
export function createGrammar() {
  const vocab = createVocabulary(allWords(), { level: 'word', owner: 'tasks.grammar' });
  const { sentences, pools, keys } = language(vocab);
  return defineTask({
    name: 'grammar',
    kind: 'lm',
    vocab,
    maxSourceLength: 0,
    maxLength: Math.max(...sentences.map((s) => s.ids.length)) + 1,
    draw: (random, split, options) => drawExample(pools, random, split, options),
    batchExtras: extras,
    // Measured (bench/train.mjs, 2026-11): 99 % of the determined words right at step 900, about 20 s
    // (32 wide, as the other tasks: 97.7–98.8 % from step 1,300 to 1,500, short of the goal).
    defaults: {
      model: { dModel: 64, heads: 4, dFF: 128, encoderLayers: 0, decoderLayers: 2, norm: 'pre', positions: 'sinusoidal' },
      training: { learningRate: 3e-3, warmup: 100, batchSize: 32, steps: 1500, clipNorm: 1 },
    },
    // on batch({ count: 'agreement', split: 'validation' }): every determined word of a sentence right
    goal: { metric: 'exactMatch', value: 0.99, count: 'agreement' },
    examples: ['the cats that the dog chased', 'the dog chased the cats. they ran. who ran? the', '那只狗追的那些猫', '那个男孩遇见了那个女孩。她跑了。谁跑了？'],
    /** True when `input` followed by `output` is a whole sentence of the language. */
    check(input, output) {
      if (typeof input !== 'string' || typeof output !== 'string') return false;
      return keys.has([...vocab.encode(input), ...vocab.encode(output)].join(','));
    },
    extra: {
      /** Every sentence: { language, template, words, determined, text, ids, split } (read-only). */
      sentences,
      splitOf: (language, text) => splitOf(`${language}:${text}`),
    },
  });
}
