// Generated English and Chinese sentences for the reader models, and their train / dev / test splits.
//
// Why: the models learn from real text (Moby-Dick, State of the Union speeches, classical Chinese
// poetry), which rarely holds the phenomena the attention lessons show, and holds almost no modern
// Chinese (它 occurs 195 times in 6.46 M characters of the poetry). These sentences supply them:
//   pronoun     pairs that differ in one adjective, which alone decides the pronoun's referent:
//               "The animal didn't cross the street because it was too tired." / "… too wide."
//               "动物没有过马路，因为它太累了。" / "…因为它太宽了。" (sentences-en.mjs, sentences-zh.mjs)
//   agreement   across a clause: "The keys to the cabinet are on the table."; in Chinese the classifier
//               chosen by a head noun across a 的-clause: "那只追过两个孩子的小猫很累。"
//   filler      simple modern sentences from the same words: "这条河很深。" "The dogs were tired, so they lay down."
// The goal they serve: in the encoder, one head chosen on dev puts more of the pronoun's weight on the
// referent than on the other noun in both halves of ≥ 90 % of the test pairs, in each language, where
// a fifth of the test pairs' noun × adjective combinations never occur in training
// (sentences-splits.mjs says how they are held out). The famous pair of each language is test pair 000.
//
// Everything is deterministic in (language, seed, pairs): dev and test are fixed lists; train is a
// stream of `count` sentences drawn from everything dev and test do not hold.
//   node scripts/reader/sentences.mjs [--seed=1] [--pairs=250] [--count=100000] [--agreement=250] [--out=build/reader]
// writes generated-{en,zh}-{train,dev,test}.jsonl and prints the counts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { drawer, marked, mixedHash, shuffle } from './sentences-compose.mjs';
import { english } from './sentences-en.mjs';
import { buildSplits, comboKey, contentKey } from './sentences-splits.mjs';
import { chinese } from './sentences-zh.mjs';

export const LANGUAGES = Object.freeze({ en: english, zh: chinese });
export const SPLITS = Object.freeze(['train', 'dev', 'test']);
/** Defaults: pairs per dev and test split, training sentences, dev/test agreement sentences, the training mix. */
export const DEFAULTS = Object.freeze({ seed: 1, pairs: 250, count: 100_000, agreement: 250, mix: Object.freeze({ pronoun: 0.5, agreement: 0.2, filler: 0.3 }) });

function languageOf(language, where) {
  const lang = LANGUAGES[language];
  if (!lang) throw new RangeError(`${where}: language is ${JSON.stringify(language)}; expected one of ${Object.keys(LANGUAGES).join(', ')}`);
  return lang;
}

function checkSplit(split, allowed, where) {
  if (!allowed.includes(split)) throw new RangeError(`${where}: split is ${JSON.stringify(split)}; expected one of ${allowed.join(', ')}`);
}

const cache = new Map();
function splitsOf(lang, seed, pairs, where) {
  if (!Number.isInteger(pairs) || pairs < 10 || pairs % 10) throw new RangeError(`${where}: pairs is ${pairs}; expected a positive multiple of 10`);
  const key = `${lang.language}|${seed}|${pairs}`;
  if (!cache.has(key)) cache.set(key, buildSplits(lang, seed, pairs));
  return cache.get(key);
}

/** A pronoun sentence as a record (see pronounPairs). */
function pronounItem(lang, skeleton, form, adjective, style, extra) {
  const { text, spans } = lang.pronounText(skeleton, form, adjective, style);
  const ofAgent = lang.agentAdjectives(skeleton.frame, skeleton.agent).includes(adjective);
  return {
    kind: 'pronoun', language: lang.language, ...extra, text,
    pronoun: marked(text, spans.pronoun),
    candidates: [{ noun: skeleton.agent.id, role: 'agent', ...marked(text, spans.agent) }, { noun: skeleton.object, role: 'object', ...marked(text, spans.object) }],
    referent: ofAgent ? 0 : 1,
    adjective: { of: ofAgent ? 'agent' : 'object', ...marked(text, spans.adjective) },
    frame: skeleton.frame.id, form, words: { nouns: [skeleton.agent.id, skeleton.object], adjectives: [adjective] },
  };
}

/**
 * The pronoun pairs of dev or test: [{ id, language, split, famous, unseen: { agent, object },
 * halves: [agent half, object half] }]. A half is { kind: 'pronoun', language, split, pair, text,
 * pronoun: { text, span }, candidates: [{ noun, role: 'agent' | 'object', text, span }] (the agent
 * first), referent (0 or 1: the index in candidates), adjective: { of, text, span }, frame, form,
 * words }. Spans are [start, end) string indices. Unseen marks a combination never in training.
 * @param {{ language: 'en' | 'zh', split: 'dev' | 'test', seed?: number, pairs?: number }} options
 */
export function pronounPairs({ language, split, seed = DEFAULTS.seed, pairs = DEFAULTS.pairs }) {
  const lang = languageOf(language, 'pronounPairs');
  checkSplit(split, ['dev', 'test'], 'pronounPairs (train is a stream of single sentences: use sentences())');
  return splitsOf(lang, seed, pairs, 'pronounPairs')[split].pairs.map((c, i) => {
    const id = `${language}-${split}-${String(i).padStart(3, '0')}`;
    const style = c.famous ? 0 : mixedHash(id) % lang.styles;
    const half = (adjective, role) => pronounItem(lang, c, c.form, adjective, style, { split, pair: id, unseen: c.unseen[role], famous: c.famous });
    return { id, language, split, famous: c.famous, unseen: c.unseen, halves: [half(c.agentAdjective, 'agent'), half(c.objectAdjective, 'object')] };
  });
}

/**
 * The combinations held out of training for a split's pairs: { agent: ['dog+tired', …], object: ['street+wide', …] }.
 * @param {{ language: 'en' | 'zh', split: 'dev' | 'test', seed?: number, pairs?: number }} options
 */
export function heldOutCombinations({ language, split, seed = DEFAULTS.seed, pairs = DEFAULTS.pairs }) {
  const lang = languageOf(language, 'heldOutCombinations');
  checkSplit(split, ['dev', 'test'], 'heldOutCombinations');
  const { agent, object } = splitsOf(lang, seed, pairs, 'heldOutCombinations').heldOut[split];
  return { agent: [...agent].sort(), object: [...object].sort() };
}

/** The split of an agreement sentence, from its key (head, attractor, verb): one key in ten each for dev and test. */
function agreementSplit(key, seed) {
  const h = mixedHash(`${seed}|${key}`) % 10;
  return h === 0 ? 'dev' : h === 1 ? 'test' : 'train';
}

/** True when `words` put a held-out combination's noun and adjective in one sentence. */
const holdsHeldOut = (words, held) => words.nouns.some((n) => words.adjectives.some((a) => held.has(comboKey(n, a))));

/** Training's pronoun sentences: every half whose content dev and test do not hold and that holds no held-out combination. */
function trainingHalves(lang, splits) {
  const halves = [];
  for (const s of lang.skeletons()) {
    const adjectives = [...lang.agentAdjectives(s.frame, s.agent), ...lang.objectAdjectives(s.frame, s.object)];
    for (const adjective of adjectives) {
      if (splits.reserved.has(contentKey(s, adjective))) continue;
      if (holdsHeldOut({ nouns: [s.agent.id, s.object], adjectives: [adjective] }, splits.allHeld)) continue;
      const role = lang.agentAdjectives(s.frame, s.agent).includes(adjective) ? 'agent' : 'object';
      const combo = comboKey(role === 'agent' ? s.agent.id : s.object, adjective);
      for (const form of lang.forms) halves.push({ skeleton: s, form, adjective, role, combo });
    }
  }
  return halves;
}

/** The order training draws one role's pronoun halves in: one half of every combination first, then all, reshuffled each pass. */
function* halfOrder(halves, draw) {
  const first = new Map();
  for (const h of shuffle([...halves], draw)) if (!first.has(h.combo)) first.set(h.combo, h);
  yield* first.values();
  for (;;) yield* shuffle([...halves], draw);
}

/**
 * The training stream. Its pronoun sentences alternate between the agent and the object as the
 * referent: a skeleton takes about four times as many agent adjectives as object adjectives, and
 * drawn in that proportion "it" would mean the agent 85 % of the time whatever the adjective.
 */
function* trainStream(lang, splits, { seed, count, mix }) {
  const draw = drawer(`reader-train|${lang.language}|${seed}`);
  const all = trainingHalves(lang, splits);
  const halves = ['agent', 'object'].map((role) => halfOrder(all.filter((h) => h.role === role), draw));
  let pronouns = 0;
  for (let i = 0; i < count; i++) {
    const r = draw.next();
    if (r < mix.pronoun) {
      const h = halves[pronouns++ % 2].next().value;
      yield pronounItem(lang, h.skeleton, h.form, h.adjective, draw.int(lang.styles), { split: 'train', pair: null, unseen: false, famous: false });
      continue;
    }
    const make = r < mix.pronoun + mix.agreement ? (d) => trainAgreement(lang, d, seed) : lang.filler;
    let item;
    do item = make(draw);
    while (!item || holdsHeldOut(item.words, splits.allHeld));
    yield { ...item, split: 'train' };
  }
}

function trainAgreement(lang, draw, seed) {
  const item = lang.agreement(draw);
  return agreementSplit(item.key, seed) === 'train' ? item : null;
}

/** `count` distinct agreement sentences of dev or test. */
function heldAgreement(lang, split, seed, count) {
  const draw = drawer(`reader-agreement|${lang.language}|${seed}|${split}`);
  const seen = new Set();
  const items = [];
  for (let tries = 0; items.length < count; tries++) {
    if (tries > 1000 * count) throw new Error(`sentences: only ${items.length} ${split} agreement sentences of ${count} found`);
    const item = lang.agreement(draw);
    if (agreementSplit(item.key, seed) !== split || seen.has(item.text)) continue;
    seen.add(item.text);
    items.push({ ...item, split });
  }
  return items;
}

/**
 * The sentences of one language and split, one record each (kind 'pronoun', 'agreement' or 'filler';
 * pronounPairs describes a pronoun record; an agreement record has head, target (the agreeing word:
 * the verb, or the Chinese classifier) and attractor, each { text, span }).
 * dev and test: both halves of every pair, then `agreement` agreement sentences (no fillers).
 * train: a stream of `count` sentences, `mix` of each kind, none holding a held-out combination or
 * a dev or test sentence's content; its pronoun sentences alternate between agent and object
 * referents, and the first ones cover every training combination once.
 * @param {{ language: 'en' | 'zh', split: 'train' | 'dev' | 'test', seed?: number, pairs?: number, count?: number,
 *   agreement?: number, mix?: { pronoun: number, agreement: number, filler: number } }} options
 */
export function* sentences({ language, split, seed = DEFAULTS.seed, pairs = DEFAULTS.pairs, count = DEFAULTS.count, agreement = DEFAULTS.agreement, mix = DEFAULTS.mix }) {
  const lang = languageOf(language, 'sentences');
  checkSplit(split, SPLITS, 'sentences');
  const splits = splitsOf(lang, seed, pairs, 'sentences');
  if (split === 'train') {
    yield* trainStream(lang, splits, { seed, count, mix });
    return;
  }
  for (const pair of pronounPairs({ language, split, seed, pairs })) yield* pair.halves;
  yield* heldAgreement(lang, split, seed, agreement);
}

/** Writes build/reader/generated-{en,zh}-{train,dev,test}.jsonl; returns { file: { kind: n } }. */
export function writeAll({ out = 'build/reader', ...options } = {}) {
  mkdirSync(out, { recursive: true });
  const counts = {};
  for (const language of Object.keys(LANGUAGES)) {
    for (const split of SPLITS) {
      const file = `generated-${language}-${split}.jsonl`;
      const lines = [];
      const kinds = {};
      for (const item of sentences({ language, split, ...options })) {
        lines.push(JSON.stringify(item));
        kinds[item.kind] = (kinds[item.kind] ?? 0) + 1;
      }
      writeFileSync(resolve(out, file), `${lines.join('\n')}\n`);
      counts[file] = kinds;
    }
  }
  return counts;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const options = {};
  for (const arg of process.argv.slice(2)) {
    const [, name, value] = arg.match(/^--(\w+)=(.*)$/) ?? [];
    if (!name || !['seed', 'pairs', 'count', 'agreement', 'out'].includes(name)) throw new Error(`sentences.mjs: unknown argument ${arg}`);
    options[name] = name === 'out' ? value : Number(value);
  }
  const started = performance.now();
  const counts = writeAll(options);
  for (const [file, kinds] of Object.entries(counts)) console.log(`${file.padEnd(28)} ${JSON.stringify(kinds)}`);
  for (const language of Object.keys(LANGUAGES)) {
    for (const split of ['dev', 'test']) {
      const list = pronounPairs({ language, split, seed: options.seed, pairs: options.pairs });
      const unseen = list.reduce((n, p) => n + p.unseen.agent + p.unseen.object, 0);
      console.log(`${language} ${split}: ${list.length} pairs, ${unseen} of ${2 * list.length} combinations never in training`);
    }
  }
  console.log(`${((performance.now() - started) / 1000).toFixed(1)} s`);
}
