// scripts/reader/sentences.mjs: the generated pronoun pairs, agreement and filler sentences and their
// splits. Same seed, same sentences; dev and test hold `pairs` pairs each, disjoint from each other and
// from training (as strings and as contents); every test noun and adjective is in training while exactly
// a fifth of the test combinations never are; spans cover what they name; a pair's halves differ in the
// adjective alone and have opposite referents; both famous pairs are test pair 000; Chinese has no ASCII
// letters; English agreement holds.
import { describe, expect, test } from 'vitest';

import * as EN from '../../scripts/reader/lexicon-en.mjs';
import * as ZH from '../../scripts/reader/lexicon-zh.mjs';
import { DEFAULTS, heldOutCombinations, pronounPairs, sentences } from '../../scripts/reader/sentences.mjs';

const LANGUAGES = ['en', 'zh'];
const PAIRS = DEFAULTS.pairs;
const collect = (options) => [...sentences(options)];
const data = Object.fromEntries(LANGUAGES.map((language) => [language, {
  train: collect({ language, split: 'train' }),
  dev: collect({ language, split: 'dev' }),
  test: collect({ language, split: 'test' }),
  pairs: { dev: pronounPairs({ language, split: 'dev' }), test: pronounPairs({ language, split: 'test' }) },
}]));

/** A pronoun record's content: frame, the two nouns as written, the adjective (no word order, no determiners). */
const content = (item) => `${item.frame}|${item.candidates[0].text}|${item.candidates[1].text}|${item.adjective.text}`;
/** The combination a pronoun record says: the referent's noun and the adjective. */
const combination = (item) => `${item.candidates[item.referent].noun}+${item.adjective.text}`;
const pairCombinations = (pair) => pair.halves.map(combination);

/** Every written form of each noun id, from the lexicons themselves. */
const FORMS = {
  en: new Map([...EN.AGENTS.map((a) => [a.id, [a.sg, a.pl]]), ...Object.entries(EN.OBJECTS).map(([sg, pl]) => [sg, [sg, pl]])]),
  zh: new Map([...ZH.AGENTS.map((a) => [a.id, [a.zh]]), ...Object.entries(ZH.OBJECTS).map(([id, o]) => [id, [o.zh]])]),
};
/** A test of whether `text` holds a noun (any form) and an adjective, as words (English) or characters (Chinese). */
function surface(language, text) {
  if (language === 'zh') return (noun, adjective) => FORMS.zh.get(noun).some((f) => text.includes(f)) && text.includes(adjective);
  const words = new Set(text.toLowerCase().match(/[a-z]+/g));
  return (noun, adjective) => FORMS.en.get(noun).some((f) => words.has(f)) && words.has(adjective);
}
/** The first few records failing `ok` (a check over 100,000 records, one expect). */
const failing = (items, ok) => items.filter((s) => !ok(s)).slice(0, 5).map((s) => s.text);

describe('determinism', () => {
  test.each(LANGUAGES)('%s: the same seed gives the same sentences; another seed other ones', (language) => {
    const again = collect({ language, split: 'train', count: 3000 });
    expect(again).toEqual(data[language].train.slice(0, 3000));
    expect(collect({ language, split: 'test' })).toEqual(data[language].test);
    const other = collect({ language, split: 'test', seed: 2 });
    expect(other.map((s) => s.text)).not.toEqual(data[language].test.map((s) => s.text));
    expect(collect({ language, split: 'train', seed: 2, count: 3000 }).map((s) => s.text)).not.toEqual(again.map((s) => s.text));
  });
});

describe.each(LANGUAGES)('%s splits', (language) => {
  const d = data[language];
  const trainPronouns = d.train.filter((s) => s.kind === 'pronoun');

  test(`dev and test hold ${PAIRS} (≥ 200) pairs each, every half once; train holds the count asked for, in the mix asked for`, () => {
    expect(PAIRS).toBeGreaterThanOrEqual(200);
    for (const split of ['dev', 'test']) {
      expect(d.pairs[split]).toHaveLength(PAIRS);
      const texts = d.pairs[split].flatMap((p) => p.halves.map((h) => h.text));
      expect(new Set(texts).size).toBe(2 * PAIRS);
      expect(new Set(d.pairs[split].flatMap((p) => p.halves.map(content))).size).toBe(2 * PAIRS);
      expect(d[split].filter((s) => s.kind === 'pronoun').map((s) => s.text)).toEqual(texts);
    }
    expect(d.train).toHaveLength(DEFAULTS.count);
    // half the training pronoun sentences point at the agent, half at the object
    expect(Math.abs(trainPronouns.filter((s) => s.referent === 0).length * 2 - trainPronouns.length)).toBeLessThanOrEqual(1);
    for (const [kind, share] of Object.entries(DEFAULTS.mix))
      expect(d.train.filter((s) => s.kind === kind).length / DEFAULTS.count).toBeCloseTo(share, 1);
  });

  test('dev, test and train share no sentence, and no pronoun content in any word order or with any determiner', () => {
    const texts = Object.fromEntries(['train', 'dev', 'test'].map((split) => [split, new Set(d[split].map((s) => s.text))]));
    const contents = Object.fromEntries(['train', 'dev', 'test'].map((split) => [split, new Set(d[split].filter((s) => s.kind === 'pronoun').map(content))]));
    for (const [a, b] of [['train', 'dev'], ['train', 'test'], ['dev', 'test']]) {
      expect([...texts[a]].filter((t) => texts[b].has(t)), `${a} ∩ ${b}`).toEqual([]);
      expect([...contents[a]].filter((t) => contents[b].has(t)), `${a} ∩ ${b}`).toEqual([]);
    }
  });

  test('every noun and adjective of the dev and test pairs occurs in training pronoun sentences, in the same role', () => {
    const seen = new Set(trainPronouns.flatMap((s) => [`agent:${s.candidates[0].text}`, `object:${s.candidates[1].text}`, `adj:${s.adjective.text}`]));
    for (const split of ['dev', 'test']) {
      for (const half of d.pairs[split].flatMap((p) => p.halves)) {
        expect(seen.has(`agent:${half.candidates[0].text}`), half.text).toBe(true);
        expect(seen.has(`object:${half.candidates[1].text}`), half.text).toBe(true);
        expect(seen.has(`adj:${half.adjective.text}`), half.text).toBe(true);
      }
    }
  });

  test.each(['dev', 'test'])('%s: exactly a fifth of the combinations never occur in training, counted over halves and over distinct combinations', (split) => {
    const trainCombinations = new Set(trainPronouns.map(combination));
    const pairs = d.pairs[split];
    const all = pairs.flatMap(pairCombinations);
    const unseen = all.filter((c) => !trainCombinations.has(c));
    expect(unseen.length).toBe(all.length / 5);
    const distinct = new Set(all);
    const distinctUnseen = [...distinct].filter((c) => !trainCombinations.has(c));
    expect(distinctUnseen.length * 5).toBe(distinct.size);
    // the records say which, and the held-out list is exactly those
    const marked = pairs.flatMap((p) => p.halves.filter((h) => h.unseen).map(combination));
    expect(marked.sort()).toEqual(unseen.sort());
    const held = heldOutCombinations({ language, split });
    expect([...held.agent, ...held.object].sort()).toEqual(distinctUnseen.sort());
  });

  test('no training sentence of any kind holds a held-out combination’s noun and adjective, by its words or by its text', () => {
    const held = ['dev', 'test'].flatMap((split) => Object.values(heldOutCombinations({ language, split })).flat()).map((k) => k.split('+'));
    expect(held).toHaveLength(4 * 8);
    const clean = (s) => {
      const holds = surface(language, s.text);
      return !held.some(([noun, adjective]) => (s.words.nouns.includes(noun) && s.words.adjectives.includes(adjective)) || holds(noun, adjective));
    };
    expect(failing(d.train, clean)).toEqual([]);
    // the check can see one: a dev or test half holding a held-out combination
    expect(failing([...d.dev, ...d.test], clean).length).toBeGreaterThan(0);
  });
});

describe.each(LANGUAGES)('%s records', (language) => {
  const d = data[language];
  const pronouns = [...d.train, ...d.dev, ...d.test].filter((s) => s.kind === 'pronoun');
  const pronounWords = language === 'en' ? ['it', 'they'] : ['它'];

  test('every span covers the text it names: the pronoun, the two nouns as the lexicon writes them, the adjective', () => {
    const at = (text, span) => text.slice(span[0], span[1]);
    const covers = (s, part) => at(s.text, part.span) === part.text;
    // the pronoun comes right before "was/were too" / 太, and the adjective right after
    const between = (s) => (language === 'en' ? (s.pronoun.text === 'it' ? ' was too ' : ' were too ') : '太');
    expect(failing(pronouns, (s) => pronounWords.includes(s.pronoun.text) && covers(s, s.pronoun) && covers(s, s.adjective) &&
      s.candidates.every((c) => covers(s, c) && FORMS[language].get(c.noun).includes(c.text)) &&
      s.words.adjectives.length === 1 && s.words.adjectives[0] === s.adjective.text &&
      s.text.slice(s.pronoun.span[1], s.adjective.span[0]) === between(s))).toEqual([]);
    const agreement = [...d.train, ...d.dev, ...d.test].filter((x) => x.kind === 'agreement');
    expect(failing(agreement, (s) => [s.head, s.target, s.attractor].every((part) => covers(s, part)))).toEqual([]);
  });

  test('a pair’s halves differ only in the adjective, and their referents are the agent and the object', () => {
    for (const pair of [...d.pairs.dev, ...d.pairs.test]) {
      const [a, b] = pair.halves;
      const swapped = a.text.slice(0, a.adjective.span[0]) + b.adjective.text + a.text.slice(a.adjective.span[1]);
      expect(swapped).toBe(b.text);
      expect(a.adjective.text).not.toBe(b.adjective.text);
      expect([a.referent, b.referent]).toEqual([0, 1]);
      expect([a.adjective.of, b.adjective.of]).toEqual(['agent', 'object']);
      expect(a.candidates.map((c) => c.text)).toEqual(b.candidates.map((c) => c.text));
      expect(a.pronoun.text).toBe(b.pronoun.text);
      expect([a.pair, b.pair]).toEqual([pair.id, pair.id]);
    }
  });

  test('a referent is decided by the lexicon: agent adjectives are never object adjectives of the same frame', () => {
    const L = language === 'en' ? EN : ZH;
    for (const frame of L.FRAMES) {
      const objectAdjectives = new Set(Object.values(frame.objects).flat());
      expect(frame.agentAdjectives.filter((a) => objectAdjectives.has(a)), frame.id).toEqual([]);
    }
    const frames = new Map(L.FRAMES.map((f) => [f.id, f]));
    const decided = (s) => (s.referent === 0 ? frames.get(s.frame).agentAdjectives : frames.get(s.frame).objects[s.candidates[1].noun]).includes(s.adjective.text);
    expect(failing(pronouns, decided)).toEqual([]);
  });
});

describe('the famous pairs', () => {
  const FAMOUS = {
    en: ["The animal didn't cross the street because it was too tired.", "The animal didn't cross the street because it was too wide."],
    zh: ['动物没有过马路，因为它太累了。', '动物没有过马路，因为它太宽了。'],
  };
  test.each(LANGUAGES)('%s: test pair 000, referents animal then street, its content never in training or dev', (language) => {
    const [pair] = data[language].pairs.test;
    expect(pair.famous).toBe(true);
    expect(pair.halves.map((h) => h.text)).toEqual(FAMOUS[language]);
    expect(pair.halves.map((h) => h.candidates[h.referent].noun)).toEqual(['animal', language === 'en' ? 'street' : 'road']);
    expect(pair.unseen).toEqual({ agent: false, object: false });
    const famousContents = new Set(pair.halves.map(content));
    expect(failing([...data[language].train, ...data[language].dev].filter((x) => x.kind === 'pronoun'), (s) => !famousContents.has(content(s)))).toEqual([]);
    expect(data[language].pairs.test.filter((p) => p.famous)).toHaveLength(1);
    expect(data[language].pairs.dev.filter((p) => p.famous)).toHaveLength(0);
  });
});

describe('surface checks', () => {
  test('Chinese: no ASCII letters or ASCII punctuation; clauses joined by ，, sentences ended by 。; 太 … 了 in every pronoun sentence', () => {
    const all = [...data.zh.train, ...data.zh.dev, ...data.zh.test];
    expect(failing(all, (s) => !/[\x20-\x7e]/.test(s.text) && /^[^。]+。$/.test(s.text))).toEqual([]);
    expect(failing(all.filter((s) => s.kind === 'pronoun'), (s) => /^[^，。]+，(因为|是因为)它太[^，。]+了。$/.test(s.text))).toEqual([]);
  });

  test('English: a capital first, one full stop last; "it … was" with singular nouns, "they … were" with plural ones', () => {
    const singular = new Set([...EN.AGENTS.map((a) => a.sg), ...Object.keys(EN.OBJECTS)]);
    const plural = new Set([...EN.AGENTS.map((a) => a.pl), ...Object.values(EN.OBJECTS)]);
    const all = [...data.en.train, ...data.en.dev, ...data.en.test];
    expect(failing(all, (s) => /^[A-Z][^.]*\.$/.test(s.text))).toEqual([]);
    const agrees = (s) => s.candidates.every((c) => (s.pronoun.text === 'it' ? singular : plural).has(c.text));
    expect(failing(all.filter((s) => s.kind === 'pronoun'), agrees)).toEqual([]);
  });

  test('English agreement: the verb agrees with the head noun (is/was singular, are/were plural), across an attractor', () => {
    const singular = new Set([...EN.RC_NOUNS.map((n) => n.sg), ...EN.PP_HEADS.map((h) => h.sg)]);
    const plural = new Set([...EN.RC_NOUNS.map((n) => n.pl), ...EN.PP_HEADS.map((h) => h.pl)]);
    const items = [...data.en.train, ...data.en.dev, ...data.en.test].filter((s) => s.kind === 'agreement');
    expect(items.length).toBeGreaterThan(1000);
    const agrees = (s) => (plural.has(s.head.text) ? ['are', 'were'] : singular.has(s.head.text) ? ['is', 'was'] : []).includes(s.target.text);
    expect(failing(items, (s) => agrees(s) && s.head.span[1] < s.attractor.span[0] && s.attractor.span[1] < s.target.span[0])).toEqual([]);
    expect(failing(items, (s) => plural.has(s.head.text) === (s.number === 'pl'))).toEqual([]);
    const mismatched = items.filter((s) => s.number !== s.attractorNumber).length;
    expect(mismatched / items.length).toBeGreaterThan(0.4);
  });

  test('English fillers: "is/was" after a singular subject, "are/were" after a plural one', () => {
    const singular = new Set([...EN.AGENTS.map((a) => a.sg), ...Object.keys(EN.OBJECTS), ...EN.PEOPLE.map((p) => p.sg)]);
    const plural = new Set([...EN.AGENTS.map((a) => a.pl), ...Object.values(EN.OBJECTS)]);
    const fillers = data.en.train.filter((x) => x.kind === 'filler' && /^The \w+ (is|was|are|were) /.test(x.text));
    expect(fillers.length).toBeGreaterThan(10_000);
    const agrees = (s) => {
      const [, subject, verb] = s.text.match(/^The (\w+) (is|was|are|were) /);
      return (plural.has(subject) ? ['are', 'were'] : singular.has(subject) ? ['is', 'was'] : []).includes(verb);
    };
    expect(failing(fillers, agrees)).toEqual([]);
  });

  test('Chinese agreement: the classifier after 那 is the head noun’s own, and most attractors take another', () => {
    const classifier = new Map([...ZH.CLASSIFIER_NOUNS, ...ZH.THINGS].map((n) => [n.zh, n.cl]));
    const items = [...data.zh.train, ...data.zh.dev, ...data.zh.test].filter((s) => s.kind === 'agreement');
    const attractorClassifier = new Map([...ZH.CLASSIFIER_NOUNS, ...ZH.SURFACES].map((n) => [n.zh, n.cl]));
    expect(failing(items, (s) => s.text.startsWith(`那${s.target.text}`) && s.target.text === classifier.get(s.head.text) && s.attractor.span[1] <= s.head.span[0])).toEqual([]);
    const differs = items.filter((s) => attractorClassifier.get(s.attractor.text) !== s.target.text).length;
    expect(differs / items.length).toBeGreaterThan(0.6);
  });
});

describe('the interface', () => {
  test('an unknown language, a split pronounPairs does not list, or a pair count not a multiple of 10 is a RangeError naming it', () => {
    expect(() => pronounPairs({ language: 'fr', split: 'test' })).toThrow(RangeError);
    expect(() => pronounPairs({ language: 'fr', split: 'test' })).toThrow(/"fr"/);
    expect(() => pronounPairs({ language: 'en', split: 'train' })).toThrow(/sentences\(\)/);
    expect(() => collect({ language: 'en', split: 'validation' })).toThrow(/"validation"/);
    expect(() => pronounPairs({ language: 'en', split: 'test', pairs: 205 })).toThrow(RangeError);
    expect(() => pronounPairs({ language: 'en', split: 'test', pairs: 205 })).toThrow(/pairs is 205/);
  });

  test('a training stream yields exactly `count` sentences (the command line prints how long 100,000 take)', () => {
    let n = 0;
    for (const _ of sentences({ language: 'zh', split: 'train', seed: 3, count: 5000 })) n++;
    expect(n).toBe(5000);
    expect(DEFAULTS.count).toBe(100_000);
  });
});
