// The English sentences: pronoun pairs in two word orders, agreement across a clause, fillers.
//   pronoun     "The dog didn't cross the street because it was too tired." / "… too wide."
//               "Because it was too tired, the dog didn't cross the street." (the pronoun first)
//   agreement   "The keys to the cabinet are on the table." "The dog that chased the cats was tired."
//               "The cats that the dog chased were tired.": the verb agrees with the head noun, not
//               with the nearer noun of the phrase or clause between them
//   filler      "The street is very busy." "The dogs were tired, so they lay down."
//               "The bridge was too icy, so the horse didn't cross it."
import {
  AGENTS, CONSEQUENCES, FAMOUS, FRAMES, NOT_OF_PEOPLE, OBJECTS, PEOPLE, PEOPLE_ADJECTIVES, PP_ATTRACTORS, PP_HEADS,
  PP_PREDICATES, RC_ADJECTIVES, RC_NOUNS, RC_VERBS,
} from './lexicon-en.mjs';
import { compose, marked } from './sentences-compose.mjs';

const noun = (entry, number) => (number === 'pl' ? entry.pl : entry.sg);
const objectForm = (id, number) => (number === 'pl' ? OBJECTS[id] : id);
const be = (number, past = true) => (past ? (number === 'pl' ? 'were' : 'was') : number === 'pl' ? 'are' : 'is');
const capital = (s) => s[0].toUpperCase() + s.slice(1);

/** The agents of a frame in one number: singular animals ("it"); in the plural, people too. */
function agentsOf(frame, number) {
  return AGENTS.filter((a) => (number === 'pl' || !a.person) && (frame.agents === 'all' ? true : a.pet));
}

function agentAdjectives(frame, agent) {
  return frame.agentAdjectives.filter((adj) => !(agent.person && NOT_OF_PEOPLE.includes(adj)));
}

function* skeletons() {
  for (const frame of FRAMES) {
    for (const number of ['sg', 'pl']) {
      const objects = number === 'sg' ? Object.keys(frame.objects) : frame.plural;
      for (const agent of agentsOf(frame, number)) for (const object of objects) yield { frame, number, agent, object };
    }
  }
}

/** One half of a pronoun pair; `form` puts the because-clause after or before the main clause. */
function pronounText({ frame, number, agent, object }, form, adjective) {
  const pronoun = number === 'pl' ? 'they' : 'it';
  const because = ['pronoun', pronoun];
  const tail = ` ${be(number)} too `;
  const main = [['agent', noun(agent, number)], ` ${frame.verb} the `, ['object', objectForm(object, number)]];
  return compose(form === 'after'
    ? ['The ', ...main, ' because ', because, tail, ['adjective', adjective], '.']
    : ['Because ', because, tail, ['adjective', adjective], ', the ', ...main, '.']);
}

function agreementItem(kind, key, parts, words, numbers) {
  const { text, spans } = compose(parts);
  return {
    kind: 'agreement', language: 'en', text, frame: kind, key,
    head: marked(text, spans.head), target: marked(text, spans.target), attractor: marked(text, spans.attractor),
    ...numbers, words,
  };
}

/** "The keys to the cabinet are on the table." or a relative clause, subject or object gap. */
function agreement(draw) {
  const [number, attractorNumber] = [draw.pick(['sg', 'pl']), draw.pick(['sg', 'pl'])];
  const numbers = { number, attractorNumber };
  if (draw.chance(0.4)) {
    const head = draw.pick(PP_HEADS);
    const attractor = draw.pick(head.attractors);
    const verb = be(number, draw.chance(0.5));
    const parts = ['The ', ['head', noun(head, number)], ` ${head.prep} the `, ['attractor', attractorNumber === 'pl' ? PP_ATTRACTORS[attractor] : attractor],
      ' ', ['target', verb], ` ${draw.pick(PP_PREDICATES)}.`];
    return agreementItem('pp', `pp|${head.sg}|${attractor}`, parts, { nouns: [head.sg, attractor], adjectives: [] }, numbers);
  }
  const head = draw.pick(RC_NOUNS);
  const other = draw.pick(RC_NOUNS.filter((n) => n !== head));
  const [verb, adjective] = [draw.pick(RC_VERBS), draw.pick(RC_ADJECTIVES)];
  const gap = draw.pick(['subject', 'object']);
  const inner = gap === 'subject' ? [` that ${verb} the `, ['attractor', noun(other, attractorNumber)]] : [' that the ', ['attractor', noun(other, attractorNumber)], ` ${verb}`];
  const parts = ['The ', ['head', noun(head, number)], ...inner, ' ', ['target', be(number)], ` ${adjective}.`];
  return agreementItem(`rc-${gap}`, `rc|${head.id}|${other.id}|${verb}`, parts, { nouns: [head.id, other.id], adjectives: [adjective] }, numbers);
}

/** Every adjective said of an agent in some frame (for fillers). */
function allAgentAdjectives(agent) {
  const set = new Set(FRAMES.flatMap((f) => agentAdjectives(f, agent)));
  return [...set];
}

/** Simple descriptive sentences from the same words (never a pronoun with two candidates). */
function filler(draw) {
  const frame = draw.pick(FRAMES);
  const type = draw.int(5);
  if (type === 0) {
    const number = draw.pick(['sg', 'pl']);
    const adverb = draw.pick(['', 'very ']);
    if (draw.chance(0.5)) {
      const agent = draw.pick(AGENTS);
      const adjective = draw.pick(allAgentAdjectives(agent));
      return fill(`The ${noun(agent, number)} ${be(number, draw.chance(0.5))} ${adverb}${adjective}.`, [agent.id], [adjective]);
    }
    const object = draw.pick(Object.keys(frame.objects));
    const adjective = draw.pick(frame.objects[object]);
    return fill(`The ${objectForm(object, number)} ${be(number, draw.chance(0.5))} ${adverb}${adjective}.`, [object], [adjective]);
  }
  if (type === 1) {
    const number = draw.pick(['sg', 'pl']);
    const agent = draw.pick(AGENTS.filter((a) => frame.agents === 'all' || a.pet));
    const object = draw.pick(Object.keys(frame.objects));
    return fill(`The ${noun(agent, number)} ${frame.past} the ${objectForm(object, number)}.`, [agent.id, object], []);
  }
  if (type === 2) {
    const number = draw.pick(['sg', 'pl']);
    const agent = draw.pick(agentsOf(frame, number));
    const adjective = draw.pick([...allAgentAdjectives(agent), 'hungry', 'happy'].filter((a) => CONSEQUENCES[a]));
    const pronoun = number === 'pl' ? 'they' : 'it';
    return fill(`The ${noun(agent, number)} ${be(number)} ${adjective}, so ${pronoun} ${CONSEQUENCES[adjective]}.`, [agent.id], [adjective]);
  }
  if (type === 3) {
    const object = draw.pick(Object.keys(frame.objects));
    const adjective = draw.pick(frame.objects[object]);
    const agent = draw.pick(agentsOf(frame, 'sg'));
    return fill(`The ${object} was too ${adjective}, so the ${agent.sg} ${frame.back}.`, [agent.id, object], [adjective]);
  }
  const person = draw.pick(PEOPLE);
  const adjective = draw.pick(PEOPLE_ADJECTIVES);
  return fill(`The ${person.sg} was ${adjective}, so ${person.pronoun} ${CONSEQUENCES[adjective]}.`, [person.id], [adjective]);
}

const fill = (text, nouns, adjectives) => ({ kind: 'filler', language: 'en', text: capital(text), words: { nouns, adjectives } });

/** The English side of the generator (the interface sentences.mjs reads; sentences-zh.mjs has the same). */
export const english = Object.freeze({
  language: 'en', famous: FAMOUS, forms: ['after', 'before'], styles: 1,
  frames: FRAMES, skeletons, agentAdjectives, objectAdjectives: (frame, object) => frame.objects[object],
  pronounText, agreement, filler,
});
