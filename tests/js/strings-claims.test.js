// The wording of the training, cross-attention, heads, Transformer, cost, page and related string
// tables: the Chinese terms of Dive into Deep Learning's Chinese edition (d2l-zh), one name for the
// training build, no English "Worker" in the Chinese interface, and no claim that every number on
// the page is the library's when the page computes a few itself.
import { describe, expect, it } from 'vitest';
import app from '../../web/src/strings/app.js';
import compare from '../../web/src/strings/compare.js';
import cost from '../../web/src/strings/cost.js';
import cross from '../../web/src/strings/cross.js';
import errors from '../../web/src/strings/errors.js';
import explorer from '../../web/src/strings/explorer.js';
import heads from '../../web/src/strings/heads.js';
import heatmap from '../../web/src/strings/heatmap.js';
import scaling from '../../web/src/strings/scaling.js';
import train from '../../web/src/strings/train.js';
import transformer from '../../web/src/strings/transformer.js';

const TABLES = { app, compare, cost, cross, errors, explorer, heads, heatmap, scaling, train, transformer };

/** [wrong, right]: a Chinese wording and the d2l-zh term (or the page's one name) that replaces it. */
const ZH_TERMS = [
  [/层归一化/, '层规范化'],
  [/前置归一化|前规范化/, '前置层规范化'],
  [/后置归一化|后规范化/, '后置层规范化'],
  [/训练构建|训练版的库/, '训练版本'],
  [/上下文向量/, '上下文变量'],
  [/截断的分数/, '软截断'],
  [/Worker/i, '后台线程'],
];

describe('Chinese terms', () => {
  for (const [name, table] of Object.entries(TABLES))
    it(`${name}: d2l-zh's terms, one name for the training build, no “Worker”`, () => {
      for (const [key, text] of Object.entries(table['zh-CN']))
        for (const [wrong, right] of ZH_TERMS) expect(text, `${key}: ${String(wrong)} → ${right}`).not.toMatch(wrong);
    });
});

describe('what the page says it computes', () => {
  it('no table claims every number is the library’s', () => {
    for (const [name, table] of Object.entries(TABLES)) {
      for (const [key, text] of Object.entries(table.en)) expect(text, `${name} ${key}`).not.toMatch(/\bevery number\b|\ball (the )?numbers\b/i);
      for (const [key, text] of Object.entries(table['zh-CN'])) expect(text, `${name} ${key}`).not.toMatch(/每个数字|所有数字|每一个数/);
    }
  });

  it('the footer names what the page computes from the library’s inputs and outputs', () => {
    expect(app.en['app.footer']).toMatch(/from the library’s inputs and outputs/);
    for (const what of ['layer norms', 'biases', 'ReLU', 'mean and variance', 'dO', 'LSH buckets']) expect(app.en['app.footer']).toContain(what);
    expect(app['zh-CN']['app.footer']).toMatch(/根据库的输入和输出/);
    for (const what of ['层规范化', '偏置', 'ReLU', '均值和方差', 'dO', 'LSH']) expect(app['zh-CN']['app.footer']).toContain(what);
  });
});
