// The Chinese sentences of the grammar task. Verbs do not agree in Chinese, so agreement here is
// carried by 都 ("all"), which a plural subject takes and a singular one cannot:
//   agreement  "那只狗追的那些猫都很累。" (the cats the dog chased are all tired) but "那些狗追的那只猫很累。":
//              the word after the head noun (都 or 很) follows the head's determiner across the clause
//   reference  "那只狗追了那些猫。它们跑了。谁跑了？那些猫。" (它/它们 by number, 他/她 by gender):
//              the answer's determiner and noun are determined
import { ADJECTIVES, INTRANSITIVE, PHRASES, TRANSITIVE, contrastingPairs, product } from './grammar-lexicon.js';

const determiner = (x) => (x.plural ? '那些' : x.noun.animal ? '那只' : '那个');
const pronoun = (x) => (x.noun.animal ? (x.plural ? '它们' : '它') : x.noun.gender === 'm' ? '他' : '她');

function agreement() {
  const heads = product(PHRASES, PHRASES, TRANSITIVE, ADJECTIVES).filter(([head, inner]) => head.noun !== inner.noun);
  return heads.map(([head, inner, verb, adjective]) => ({
    template: 'agreement',
    words: [determiner(inner), inner.noun.zh, verb.zh, '的', determiner(head), head.noun.zh, ...(head.plural ? ['都', '很'] : ['很']), adjective.zh, '。'],
    determined: [6],
  }));
}

function reference() {
  return product(contrastingPairs(), TRANSITIVE, [0, 1], INTRANSITIVE).map(([[a, b], verb, which, act]) => {
    const r = which === 0 ? a : b;
    const words = [determiner(a), a.noun.zh, verb.zh, '了', determiner(b), b.noun.zh, '。', pronoun(r), act.zh, '了', '。', '谁', act.zh, '了', '？', determiner(r), r.noun.zh, '。'];
    return { template: 'reference', words, determined: [15, 16] };
  });
}

/** Every Chinese sentence: [{ template, words, determined (indices into words) }]. */
export const chineseSentences = () => [...agreement(), ...reference()];
