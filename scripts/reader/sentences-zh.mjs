// The Chinese sentences, modern Mandarin: pronoun pairs, classifier agreement across a 的-clause, fillers.
//   pronoun     "动物没有过马路，因为它太累了。" / "…因为它太宽了。"; also "…，是因为它太累了。", and
//               with 那 and a classifier before either noun: "那只小狗没有跳过那道栅栏，因为它太高了。"
//               (no pronoun-first order: "因为它太累了，所以小狗没有过马路。" is not natural Mandarin,
//               where a pronoun rarely comes before its noun in one sentence)
//   agreement   Mandarin verbs do not agree with anything. The dependency that does reach across a
//               clause is the classifier: in "那只追过两个孩子的小猫很累。" 只 is chosen by 小猫, the head
//               noun at the end of the clause, while the clause's own noun 孩子 takes 个, the way "the
//               keys to the cabinet are" skips "cabinet". The demonstrative-classifier-first order (那只
//               [追过孩子]的小猫) is ordinary spoken Mandarin beside the clause-first one ([追过孩子的]那只小猫).
//               Also "那本放在桌子上的书是我的。" (本 ← 书, not 张 ← 桌子).
//   filler      "这条河很深。" "小狗太累了，它想休息。" "那个山洞太黑了，小狗不敢进去。" "那个女孩很饿，她想吃东西。"
import {
  AGENTS, CLASSIFIER_COUNTS, CLASSIFIER_NOUNS, CLASSIFIER_PREDICATES, CLASSIFIER_VERBS, CONSEQUENCES, FAMOUS, FRAMES, OBJECTS,
  PEOPLE, PEOPLE_ADJECTIVES, SURFACES, THING_PREDICATES, THINGS,
} from './lexicon-zh.mjs';
import { compose, marked } from './sentences-compose.mjs';

const agentsOf = (frame) => AGENTS.filter((a) => frame.agents === 'all' || a.pet);

function* skeletons() {
  for (const frame of FRAMES) for (const agent of agentsOf(frame)) for (const object of Object.keys(frame.objects)) yield { frame, number: 'sg', agent, object };
}

/**
 * One half of a pronoun pair. `form` is 因为 or 是因为; `style` (0–3) puts 那 and the classifier
 * before the agent (bit 0) and the object (bit 1): style 0 is the bare "动物没有过马路".
 */
function pronounText({ frame, agent, object }, form, adjective, style = 0) {
  const o = OBJECTS[object];
  return compose([
    style & 1 ? `那${agent.cl}` : '', ['agent', agent.zh], frame.verb, style & 2 ? `那${o.cl}` : '', ['object', o.zh],
    `，${form}`, ['pronoun', '它'], '太', ['adjective', adjective], '了。',
  ]);
}

/** "那只追过两个孩子的小猫很累。" or "那本放在桌子上的书是我的。" */
function agreement(draw) {
  if (draw.chance(0.25)) {
    const [thing, surface] = [draw.pick(THINGS), draw.pick(SURFACES)];
    const { text, spans } = compose(['那', ['target', thing.cl], '放在', ['attractor', surface.zh], '上的', ['head', thing.zh], draw.pick(THING_PREDICATES), '。']);
    return {
      kind: 'agreement', language: 'zh', text, frame: 'location', key: `loc|${thing.zh}|${surface.zh}`,
      head: marked(text, spans.head), target: marked(text, spans.target), attractor: marked(text, spans.attractor),
      classifier: thing.cl, attractorClassifier: surface.cl, words: { nouns: [thing.zh, surface.zh], adjectives: [] },
    };
  }
  const head = draw.pick(CLASSIFIER_NOUNS);
  const other = draw.pick(CLASSIFIER_NOUNS.filter((n) => n !== head));
  const [verb, count, predicate] = [draw.pick(CLASSIFIER_VERBS), draw.pick(CLASSIFIER_COUNTS), draw.pick(CLASSIFIER_PREDICATES)];
  const { text, spans } = compose(['那', ['target', head.cl], verb, count, ['attractorClassifier', other.cl], ['attractor', other.zh], '的', ['head', head.zh], predicate, '。']);
  const adjective = predicate.startsWith('很') ? predicate.slice(1) : null;
  return {
    kind: 'agreement', language: 'zh', text, frame: 'relative', key: `rc|${head.id}|${other.id}|${verb}`,
    head: marked(text, spans.head), target: marked(text, spans.target), attractor: marked(text, spans.attractor),
    classifier: head.cl, attractorClassifier: other.cl, words: { nouns: [head.id, other.id], adjectives: adjective ? [adjective] : [] },
  };
}

const allAgentAdjectives = (agent) => [...new Set(FRAMES.filter((f) => agentsOf(f).includes(agent)).flatMap((f) => f.agentAdjectives))];
const determiner = (draw, cl) => draw.pick(['', `那${cl}`, `这${cl}`]);
const degree = (draw, adjective) => (draw.chance(0.5) ? `很${adjective}` : `太${adjective}了`);

/** Simple descriptive sentences from the same words (never a pronoun with two candidates). */
function filler(draw) {
  const frame = draw.pick(FRAMES);
  const type = draw.int(5);
  const agent = draw.pick(agentsOf(frame));
  const object = draw.pick(Object.keys(frame.objects));
  const o = OBJECTS[object];
  if (type === 0) {
    if (draw.chance(0.5)) {
      const adjective = draw.pick(allAgentAdjectives(agent));
      return fill(`${determiner(draw, agent.cl)}${agent.zh}${draw.pick(['很', '非常'])}${adjective}。`, [agent.id], [adjective]);
    }
    const adjective = draw.pick(frame.objects[object]);
    return fill(`${determiner(draw, o.cl)}${o.zh}${draw.pick(['很', '非常'])}${adjective}。`, [object], [adjective]);
  }
  if (type === 1) return fill(`${determiner(draw, agent.cl)}${agent.zh}${frame.past}${determiner(draw, o.cl)}${o.zh}。`, [agent.id, object], []);
  if (type === 2) {
    const adjective = draw.pick([...allAgentAdjectives(agent), '饿', '开心']);
    return fill(`${determiner(draw, agent.cl)}${agent.zh}${degree(draw, adjective)}，它${CONSEQUENCES[adjective]}。`, [agent.id], [adjective]);
  }
  if (type === 3) {
    const adjective = draw.pick(frame.objects[object]);
    return fill(`${determiner(draw, o.cl)}${o.zh}太${adjective}了，${agent.zh}${frame.back}。`, [agent.id, object], [adjective]);
  }
  const person = draw.pick(PEOPLE);
  const adjective = draw.pick(Object.keys(PEOPLE_ADJECTIVES));
  return fill(`${person.det}${person.zh}很${adjective}，${person.pronoun}${PEOPLE_ADJECTIVES[adjective]}。`, [person.id], [adjective]);
}

const fill = (text, nouns, adjectives) => ({ kind: 'filler', language: 'zh', text, words: { nouns, adjectives } });

/** The Chinese side of the generator (the interface of sentences-en.mjs's `english`). */
export const chinese = Object.freeze({
  language: 'zh', famous: FAMOUS, forms: ['因为', '是因为'], styles: 4,
  frames: FRAMES, skeletons, agentAdjectives: (frame) => frame.agentAdjectives, objectAdjectives: (frame, object) => frame.objects[object],
  pronounText, agreement, filler,
});
