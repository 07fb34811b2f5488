// The block's flow for the shared stepper (stepper.js): one tab per step with
// its shape, coloured by sublayer, arrows between, and the sublayers' legend.
import { el } from '../../dom.js';
import { STEPS } from './block-model.js';

/** What Stepper.tablist builds for trace `c`: the steps, top to bottom. */
export function flowTabs(t, c) {
  const { n } = c.model;
  const { dModel } = c.model.config;
  const shape = (key) => `${n}×${key === 'hidden' ? c.ffn.dFf : dModel}`;
  return {
    label: t('transformer.list'),
    className: 'flow',
    tabs: STEPS.map((s, k) => ({
      key: s.key,
      className: `sub${s.sub}`,
      content: [el('span', { text: `${k + 1}. ${t(`transformer.tab.${s.key === 'X' && c.positional ? 'XP' : s.key}`)}` }), ' ', el('span', { class: 'tab-shape', text: shape(s.key) })],
    })),
    between: () => el('span', { class: 'arrow', 'aria-hidden': 'true', text: '↓' }),
  };
}

/** Which colour is which sublayer. */
export function sublayerLegend(t) {
  const key = (k) => el('span', {}, el('span', { class: `key${k}` }), t(`transformer.sub${k}`));
  return el('div', { class: 'sublayers' }, key(1), key(2));
}
