// The dev and test pronoun pairs and the combinations held out of training (scripts/reader/sentences.mjs).
//
// A combination is a noun with an adjective said of it: the agent with an agent adjective (dog +
// tired), the object with an object adjective (street + wide). A pair has two, one per half.
// Chosen up front, for each of dev and test: `HELD_OUT` agent combinations and `HELD_OUT` object
// combinations, the two splits' sets disjoint, no two of one set sharing a noun, and each noun and
// each adjective keeping at least one combination for training. No training sentence of any kind
// holds a held-out combination's noun and adjective together. Then each split's pairs are drawn so
// that exactly a fifth of their combinations are held out, counted either way:
//   - over the 2 × pairs halves: one pair in ten has both combinations held out, one in ten only the
//     agent's, one in ten only the object's (0.1·2 + 0.1 + 0.1 = 0.4 = a fifth of 2 per pair);
//   - over the distinct combinations: every held-out one is used, and the seen ones used are exactly
//     4 × HELD_OUT of each side, every one of them keeping at least one sentence for training.
// A half's content is its skeleton (frame, number, agent, object) and adjective, whatever its word
// order or determiners: no content is in two splits, and none repeats within dev or test.
import { drawer, shuffle } from './sentences-compose.mjs';

/** Held-out combinations per side (agent, object) and per split. */
export const HELD_OUT = 8;
const ATTEMPTS = 200;

export const comboKey = (noun, adjective) => `${noun}+${adjective}`;
const skeletonKey = (s) => `${s.frame.id}|${s.number}|${s.agent.id}|${s.object}`;
/** The content of a half: the skeleton and the adjective, whatever the form. */
export const contentKey = (skeleton, adjective) => `${skeletonKey(skeleton)}|${adjective}`;

/** Every pair a language can make: a skeleton, a form, one adjective of each class. */
function candidates(lang) {
  const list = [];
  for (const s of lang.skeletons()) {
    for (const a of lang.agentAdjectives(s.frame, s.agent)) {
      for (const o of lang.objectAdjectives(s.frame, s.object)) {
        for (const form of lang.forms) {
          list.push({
            ...s, form, agentAdjective: a, objectAdjective: o, agentCombo: comboKey(s.agent.id, a), objectCombo: comboKey(s.object, o),
            halves: [contentKey(s, a), contentKey(s, o)],
          });
        }
      }
    }
  }
  return list;
}

/** The distinct combinations of one side: [{ key, noun, adjective }]. */
function combosOf(cands, side) {
  const map = new Map();
  for (const c of cands) {
    const [noun, adjective] = side === 'agent' ? [c.agent.id, c.agentAdjective] : [c.object, c.objectAdjective];
    map.set(comboKey(noun, adjective), { key: comboKey(noun, adjective), noun, adjective });
  }
  return [...map.values()];
}

const countBy = (list, field) => list.reduce((m, c) => m.set(c[field], (m.get(c[field]) ?? 0) + 1), new Map());

/** [test, dev] sets of `h` combinations each (see the header), or null. `fits(combo, which)` filters. */
function holdOut(combos, h, keep, draw, fits = () => true) {
  const nounLeft = countBy(combos, 'noun');
  const adjectiveLeft = countBy(combos, 'adjective');
  const sets = [[], []];
  for (const which of [0, 1]) {
    for (const c of shuffle([...combos], draw)) {
      if (sets[which].length === h) break;
      if (keep.has(c.key) || sets[0].includes(c) || sets[1].includes(c)) continue;
      if (nounLeft.get(c.noun) < 2 || adjectiveLeft.get(c.adjective) < 2) continue;
      if (sets[which].some((d) => d.noun === c.noun) || !fits(c, which)) continue;
      sets[which].push(c);
      nounLeft.set(c.noun, nounLeft.get(c.noun) - 1);
      adjectiveLeft.set(c.adjective, adjectiveLeft.get(c.adjective) - 1);
    }
    if (sets[which].length < h) return null;
  }
  return sets.map((set) => new Set(set.map((c) => c.key)));
}

/**
 * Adds `want` pairs of `pool` to `chosen` (an array, updated), each half's content new to `used`,
 * first those that cover combinations still in `uncovered`, none taking a seen combination's last
 * training content (`left`: combination → contents not yet in dev or test). False when there were too few.
 */
function addPairs(pool, want, { chosen, used, uncovered, left, allHeld }, draw, tag) {
  const order = shuffle([...pool], draw);
  let added = 0;
  const take = (c) => {
    chosen.push({ ...c, ...tag });
    c.halves.forEach((k) => used.add(k));
    for (const combo of [c.agentCombo, c.objectCombo]) {
      uncovered.delete(combo);
      left.set(combo, left.get(combo) - 1);
    }
    added++;
  };
  const spare = (combo) => allHeld.has(combo) || left.get(combo) > 1;
  const fresh = (c) => !c.halves.some((k) => used.has(k)) && spare(c.agentCombo) && spare(c.objectCombo);
  for (const score of [2, 1, 0]) {
    for (const c of order) {
      if (added === want) return true;
      if (+uncovered.has(c.agentCombo) + +uncovered.has(c.objectCombo) === score && fresh(c)) take(c);
    }
  }
  return added === want;
}

/** `size` combinations of `combos` not in `exclude`, those of `must` first, each passing `fits`. */
function chooseSeen(combos, size, exclude, must, draw, fits = () => true) {
  const chosen = combos.filter((c) => must.has(c.key));
  for (const c of shuffle(combos.filter((c) => !exclude.has(c.key) && !must.has(c.key)), draw)) {
    if (chosen.length === size) break;
    if (fits(c)) chosen.push(c);
  }
  return chosen.length === size ? new Set(chosen.map((c) => c.key)) : null;
}

/** One split's pairs; `reserved` maps a content to the split that holds it (updated). */
function splitPairs({ cands, agentCombos, objectCombos, heldAgent, heldObject, allHeld, famous, pairs, reserved, left, split, draw, fitsObjects }) {
  const free = (c) => c.halves.every((k) => !reserved.has(k));
  const must = { agent: new Set(famous ? [famous.agentCombo] : []), object: new Set(famous ? [famous.objectCombo] : []) };
  const seenObject = chooseSeen(objectCombos, 4 * HELD_OUT, allHeld, must.object, draw);
  if (!seenObject) return null;
  const seenAgent = chooseSeen(agentCombos, 4 * HELD_OUT, allHeld, must.agent, draw, (c) => fitsObjects(c.key, seenObject));
  if (!seenAgent) return null;
  const uncovered = new Set([...heldAgent, ...heldObject, ...seenAgent, ...seenObject]);
  const chosen = [];
  const used = new Set();
  const state = { chosen, used, uncovered, left, allHeld };
  if (famous) {
    chosen.push({ ...famous, unseen: { agent: false, object: false }, famous: true });
    famous.halves.forEach((k) => used.add(k));
    for (const combo of [famous.agentCombo, famous.objectCombo]) {
      uncovered.delete(combo);
      left.set(combo, left.get(combo) - 1);
    }
  }
  const tenth = pairs / 10;
  const plan = [
    [heldAgent, heldObject, tenth, { agent: true, object: true }],
    [heldAgent, seenObject, tenth, { agent: true, object: false }],
    [seenAgent, heldObject, tenth, { agent: false, object: true }],
    [seenAgent, seenObject, pairs - 3 * tenth - chosen.length, { agent: false, object: false }],
  ];
  for (const [agents, objects, want, unseen] of plan) {
    const pool = cands.filter((c) => agents.has(c.agentCombo) && objects.has(c.objectCombo) && free(c));
    if (!addPairs(pool, want, state, draw, { unseen, famous: false })) return null;
  }
  if (uncovered.size) return null;
  for (const c of chosen) c.halves.forEach((k) => reserved.set(k, split));
  return { pairs: chosen, seen: { agent: seenAgent, object: seenObject } };
}

/**
 * The splits of one language: { heldOut: { dev, test } (each { agent, object }: Sets of combination
 * keys), allHeld (their union), dev, test (each { pairs, seen }), reserved: Map content → split, attempt }.
 * Deterministic in (language, seed, pairs); `pairs` is a multiple of 10.
 */
export function buildSplits(lang, seed, pairs) {
  const cands = candidates(lang);
  const agentCombos = combosOf(cands, 'agent');
  const objectCombos = combosOf(cands, 'object');
  const F = lang.famous;
  const famous = cands.find((c) => c.frame.id === F.frame && c.number === 'sg' && c.agent.id === F.agent && c.object === F.object &&
    c.agentAdjective === F.agentAdjective && c.objectAdjective === F.objectAdjective && c.form === lang.forms[0]);
  const keep = new Set([famous.agentCombo, famous.objectCombo]);
  // which agent combinations share a pair with which object combinations
  const partners = new Map();
  for (const c of cands) (partners.get(c.agentCombo) ?? partners.set(c.agentCombo, new Set()).get(c.agentCombo)).add(c.objectCombo);
  const fitsObjects = (agentKey, objectSet) => [...partners.get(agentKey)].some((k) => objectSet.has(k));
  // how many contents say each combination (the referent and the adjective)
  const contents = new Map();
  for (const c of cands) [[c.halves[0], c.agentCombo], [c.halves[1], c.objectCombo]].forEach(([k, combo]) => contents.set(k, combo));
  const perCombo = countBy([...contents.values()].map((combo) => ({ combo })), 'combo');

  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const draw = drawer(`reader-sentences|${lang.language}|${seed}|${attempt}`);
    const heldObject = holdOut(objectCombos, HELD_OUT, keep, draw);
    if (!heldObject) continue;
    const heldAgent = holdOut(agentCombos, HELD_OUT, keep, draw, (c, which) => fitsObjects(c.key, heldObject[which]));
    if (!heldAgent) continue;
    const allHeld = new Set([...heldObject[0], ...heldObject[1], ...heldAgent[0], ...heldAgent[1]]);
    const reserved = new Map();
    const common = { cands, agentCombos, objectCombos, allHeld, pairs, reserved, left: new Map(perCombo), draw, fitsObjects };
    const test = splitPairs({ ...common, heldAgent: heldAgent[0], heldObject: heldObject[0], famous, split: 'test' });
    if (!test) continue;
    const dev = splitPairs({ ...common, heldAgent: heldAgent[1], heldObject: heldObject[1], famous: null, split: 'dev' });
    if (!dev) continue;
    const heldOut = { test: { agent: heldAgent[0], object: heldObject[0] }, dev: { agent: heldAgent[1], object: heldObject[1] } };
    return { heldOut, allHeld, test, dev, reserved, attempt };
  }
  throw new Error(`buildSplits: no split of ${pairs} pairs found for '${lang.language}' with seed ${seed} in ${ATTEMPTS} attempts`);
}
