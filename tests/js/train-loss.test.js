// What <attention-train> says about its loss, its rows and its options, checked against the code
// that does it: the grammar loss floor against the task's generator, the optimiser and schedule
// the loss note names against the library's defaults, "unscaled" against the attention it changes,
// the row labels of the attention grid against the tokens the model wrote, and "(decoder only)"
// against each task's kind.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { GRAMMAR_LOSS_FLOOR, TASK_FACTS, TRAIN_TASKS } from '../../web/src/components/train/settings.js';
import { attentionOf } from '../../web/src/components/train/trainer.js';
import train from '../../web/src/strings/train.js';
import { loadTrainingLab } from './helpers.js';

let lab;
beforeAll(async () => {
  lab = await loadTrainingLab(true);
});

const LANGUAGES = ['en', 'zh-CN'];

describe('the grammar loss floor', () => {
  // The batches draw a language, then a template, then one sentence of that pool of the train
  // split, each uniformly: a sentence's probability is 1/4 · 1/|pool|, and the entropy of the whole
  // sentence (the sum of its next-word entropies) is log 4 + the mean of log |pool| over the pools.
  function floorOf(grammar) {
    const pools = new Map();
    for (const s of grammar.sentences) {
      if (s.split !== 'train') continue;
      const key = `${s.language}/${s.template}`;
      if (!pools.has(key)) pools.set(key, []);
      pools.get(key).push(s);
    }
    expect(pools.size).toBe(4);
    const mean = (f) => [...pools.values()].reduce((sum, pool) => sum + f(pool), 0) / pools.size;
    const nats = Math.log(pools.size) + mean((pool) => Math.log(pool.length));
    // Target tokens: every word, then the end token.
    const tokens = mean((pool) => pool.reduce((sum, s) => sum + s.ids.length + 1, 0) / pool.length);
    return { nats, tokens, floor: nats / tokens };
  }

  it('the panel’s numbers are the generator’s (nats per sentence, tokens per sentence, their ratio)', () => {
    const f = floorOf(lab.tasks.grammar);
    expect(GRAMMAR_LOSS_FLOOR.nats).toBeCloseTo(f.nats, 2);
    expect(GRAMMAR_LOSS_FLOOR.tokens).toBeCloseTo(f.tokens, 1);
    expect(GRAMMAR_LOSS_FLOOR.floor).toBeCloseTo(f.floor, 2);
  });

  it('a long batch of the training split has no lower loss than the floor when scored by the sentence probabilities', () => {
    // The floor is a property of the data, not of a model: the mean of −log P(sentence) per token over
    // a large batch, P from the sampling above, lands on it.
    const grammar = lab.tasks.grammar;
    const size = new Map();
    for (const s of grammar.sentences) if (s.split === 'train') size.set(`${s.language}/${s.template}`, (size.get(`${s.language}/${s.template}`) ?? 0) + 1);
    const byText = new Map(grammar.sentences.filter((s) => s.split === 'train').map((s) => [s.ids.join(','), s]));
    const b = grammar.batch({ seed: 3, size: 4000, split: 'train' });
    let nats = 0;
    let tokens = 0;
    b.examples.forEach((e) => {
      const s = byText.get(Array.from(grammar.encode(e.source)).join(','));
      nats += Math.log(4 * size.get(`${s.language}/${s.template}`));
      tokens += s.ids.length + 1;
    });
    expect(nats / tokens).toBeCloseTo(GRAMMAR_LOSS_FLOOR.floor, 1);
  });

  it.each(LANGUAGES)('%s: the explanation takes its numbers from the panel, not written in', (lang) => {
    const text = train[lang]['train.lossFloor.grammar'];
    for (const name of ['{floor}', '{nats}', '{tokens}']) expect(text).toContain(name);
    expect(text).not.toMatch(/0[.,]6\d/);
  });
});

describe('the loss note', () => {
  it('the schedule it states: linear warm-up to the rate, a cosine to a tenth of it at `steps`, then flat', () => {
    for (const name of TRAIN_TASKS) {
      const training = TASK_FACTS[name].training;
      expect(training, name).toEqual({ ...lab.tasks[name].defaults.training });
      const { learningRate, warmup, steps } = training;
      expect(lab.learningRateAt(1, training)).toBeCloseTo(learningRate / warmup, 12);
      expect(lab.learningRateAt(warmup, training)).toBeCloseTo(learningRate, 12);
      expect(lab.learningRateAt(steps, training)).toBeCloseTo(learningRate / 10, 12);
      expect(lab.learningRateAt(4 * steps, training)).toBeCloseTo(learningRate / 10, 12);
    }
  });

  it('the optimiser’s settings it states are the library’s defaults for the options the trainer leaves out', () => {
    // The trainer passes only learningRate and clipNorm (trainer.js); the rest are trainStep's defaults.
    const trainer = readFileSync(new URL('../../web/src/components/train/trainer.js', import.meta.url), 'utf8');
    expect(trainer).toMatch(/trainStep\(batch, \{ learningRate, clipNorm: this\.#plan\.clipNorm \}\)/);
    const model = readFileSync(new URL('../../bindings/train/transformer-model.js', import.meta.url), 'utf8');
    expect(model).toContain("weightDecay: positive('weightDecay', 0,");
    expect(model).toContain("beta1: positive('beta1', 0.9,");
    expect(model).toContain("beta2: positive('beta2', 0.98,");
    for (const lang of LANGUAGES) {
      const text = train[lang]['train.lossExplain'];
      expect(text).toContain('AdamW');
      expect(text).toContain('β₁ = 0.9');
      expect(text).toContain('β₂ = 0.98');
      for (const name of ['{batch}', '{clip}', '{lr}', '{lrFloor}', '{warmup}', '{steps}']) expect(text, `${lang} ${name}`).toContain(name);
    }
    expect(train.en['train.lossExplain']).toContain('no weight decay');
    expect(train['zh-CN']['train.lossExplain']).toContain('不使用权重衰减');
  });
});

describe('unscaled dot-product', () => {
  it('removes ÷√d_k from the encoder’s and the decoder’s self-attention too, as the option says', () => {
    const task = lab.tasks.reverse;
    const ids = task.encode('abcdef');
    const run = (scaled) => {
      const model = lab.createTransformer({ task, seed: 3, scaled });
      const r = model.generate(ids, { attention: true, maxLength: 3 });
      model.dispose();
      return r.attention;
    };
    const a = run(true);
    const b = run(false);
    const differs = (x, y) => x.flat(3).some((v, k) => Math.abs(v - y.flat(3)[k]) > 1e-6);
    expect(differs(a.encoder, b.encoder)).toBe(true);
    expect(differs(a.decoder, b.decoder)).toBe(true);
    expect(differs(a.cross, b.cross)).toBe(true);
    for (const lang of LANGUAGES) expect(train[lang]['train.scoring.unscaled']).toMatch(/any attention|所有注意力/);
    expect(train.en['train.unscaledNote']).toContain('self-attention');
    expect(train['zh-CN']['train.unscaledNote']).toContain('自注意力');
  });
});

describe('the attention grid’s rows', () => {
  it('a trained encoder–decoder: each row is labelled with the token it wrote, as the cross-attention panel does', async () => {
    const task = lab.tasks.dates;
    const model = await lab.loadTrained('dates');
    const ids = task.encode('December 1, 2026');
    const a = attentionOf(model, ids, task);
    const out = model.generate(ids);
    model.dispose();
    expect(a.output).toBe('2026-12-01');
    expect(a.rowLabels).toEqual(task.tokens(out.tokens));
    expect(a.rowLabels.join('')).toBe('2026-12-01<eos>');
    expect(a.rowLabels).toHaveLength(a.maps[0][0].rows);
    expect(a.colLabels).toEqual(task.tokens(ids));
  });

  it('a trained decoder-only model: rows are labelled by the next token (the input’s, then the output’s), columns by the token read', async () => {
    const task = lab.tasks.repeat;
    const model = await lab.loadTrained('repeat');
    const ids = task.encode('abcdefg|');
    const a = attentionOf(model, ids, task);
    const out = model.generate(ids);
    model.dispose();
    expect(a.output).toBe('abcdefg');
    expect(a.rowLabels).toEqual(task.tokens([...ids, ...out.tokens]));
    expect(a.rowLabels.slice(ids.length)).toEqual(task.tokens(out.tokens));
    expect(a.rowLabels).toHaveLength(a.maps[0][0].rows);
    // The columns are what each position read: <bos>, the input, the output but its last token.
    expect(a.colLabels).toEqual(task.tokens([1, ...ids, ...out.tokens.slice(0, -1)]));
  });

  it.each(LANGUAGES)('%s: the captions say rows are labelled by the token written and read the one before', (lang) => {
    const s = train[lang];
    for (const key of ['train.grid.cross', 'train.grid.self', 'train.headView.cross', 'train.headView.self']) expect(s[key], key).toMatch(lang === 'en' ? /token before it/ : /前(面的|一个)词元/);
    expect(s['train.grid.cross']).toMatch(lang === 'en' ? /the token it wrote/ : /写出的词元/);
  });
});

describe('the task list', () => {
  it.each(LANGUAGES)('%s: “decoder only” on every decoder-only task and on no other', (lang) => {
    const mark = lang === 'en' ? '(decoder only)' : '（仅解码器）';
    for (const name of TRAIN_TASKS) expect(train[lang][`train.task.${name}`].includes(mark), `${name}: ${lab.tasks[name].kind}`).toBe(lab.tasks[name].kind === 'lm');
  });

  it.each(LANGUAGES)('%s: grammar’s exact match is said to count only the decided words', (lang) => {
    expect(lab.tasks.grammar.goal.count).toBe('agreement');
    expect(train[lang]['train.metric.grammar']).toMatch(lang === 'en' ? /counts only the words the grammar decides/ : /只统计由语法决定的词/);
  });
});
