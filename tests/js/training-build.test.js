// The two flavours of the library: the inference build init() loads and the training build
// 'attention-lab/training' loads (the same core plus backward passes and trainable models). The
// inference build names the training build where a reader reaches for training.
import { describe, expect, it } from 'vitest';

import { AttentionError, init } from '../../dist/node.js';
import { init as initTraining } from '../../dist/training-node.js';
import { DETERMINISTIC_BUILDS } from './helpers.js';

describe.each(DETERMINISTIC_BUILDS)('$name builds', ({ simd }) => {
  it('the inference build says which flavour it is and explains what only the training build has', async () => {
    const lab = await init({ simd });
    expect(lab.training).toBe(false);
    for (const name of ['attentionBackward', 'createTransformer', 'loadTransformer', 'learningRateAt', 'loadTrained', 'mlmBatch', 'loadReader']) {
      let error;
      try {
        lab[name]();
      } catch (e) {
        error = e;
      }
      expect(error, name).toBeInstanceOf(AttentionError);
      expect(error.code).toBe('UNAVAILABLE');
      expect(error.message).toMatch(new RegExp(`^${name}: .*attention-lab/training`));
    }
    expect(() => lab.tasks).toThrow(/^tasks: .*attention-lab\/training/);
    expect(Object.keys({ ...lab })).not.toContain('tasks'); // a spread of lab does not trip over it
    // The inference build still works after those errors.
    expect(Array.from(lab.softmax([[0, 0]]).data)).toEqual([0.5, 0.5]);
  });

  it('the training build is a superset: the same inference results, bit for bit', async () => {
    const [lab, trainer] = await Promise.all([init({ simd }), initTraining({ simd })]);
    expect(trainer.training).toBe(true);
    expect(trainer.simd).toBe(simd);
    const X = [[0.5, -1.25, 2], [1, 0.75, -0.5], [-2, 0.25, 1.5]];
    const W = [[0.1, 0.2], [-0.3, 0.4], [0.5, -0.6]];
    const args = [X, { Wq: W, Wk: W, Wv: W, mask: 'causal' }];
    const a = lab.selfAttention(...args);
    const b = trainer.selfAttention(...args);
    expect(Array.from(b.output.data)).toEqual(Array.from(a.output.data));
    expect(Array.from(b.weights.data)).toEqual(Array.from(a.weights.data));
  });
});
