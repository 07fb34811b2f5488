// The settings table (web/src/config.js) against what uses it: each panel's code reads no attribute
// of its own that the table does not name (its element observes the table's attributes, so one read
// but not listed would never re-render), the plain rows are read by settingValue as the table says,
// and docs/embedding.md's attribute table names every panel setting with its panel and default.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { CONFIG_ATTRIBUTES, CONFIG_FIELDS, LOOK_FIELDS, PANEL_SETTINGS, VIEW_FIELDS, panelAttributes, panelSetting, settingValue, usedBy } from '../../web/src/config.js';
import { PANELS } from '../../web/src/panels.js';
import { numberSetting } from '../../web/src/components/decoding/settings.js';
import { BOUNDS, COMPARES, HEADS, SCORINGS, TRAIN_TASKS } from '../../web/src/components/train/settings.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const src = join(root, 'web', 'src');
// Attributes of the shadow DOM's own nodes a panel reads, not settings.
const DOM = ['lang', 'aria-label', 'role', 'tabindex', 'width', 'height'];
const SHARED = [...CONFIG_ATTRIBUTES, ...LOOK_FIELDS.map((f) => f.attribute), 'step', 'head', 'kernel', 'bandwidth', 'hidden'];
// Code shared by several panels reads the settings of the ones that give them: the trained grammar
// view reads `layer` only for a panel with a layer picker (not the steps panel).
const SHARED_CODE = { 'steps/trained-grammar.js': ['layer'] };

/** The files a module imports statically (relative imports), itself included. */
function moduleGraph(entry) {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^'"]*?from '(\.\.?\/[^']+\.js)';/gm)) visit(resolve(dirname(file), m[1]));
  };
  visit(entry);
  return [...seen];
}

describe('the settings table and the panels', () => {
  it.each(PANELS.map((p) => [p.id, p]))("%s reads only attributes the table gives it", (id, { module }) => {
    const own = moduleGraph(join(src, module)).filter((f) => f.includes(`${join(src, 'components')}/`));
    const sharedRead = (f) => SHARED_CODE[f.slice(join(src, 'components').length + 1)] ?? [];
    const read = new Set(own.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/(?:get|has)Attribute\('([a-z-]+)'\)/g)].map((m) => m[1]).filter((a) => !sharedRead(f).includes(a))));
    const known = new Set([...SHARED, ...DOM, ...panelAttributes(id)]);
    expect([...read].filter((a) => !known.has(a))).toEqual([]);
  });

  it('gives each panel setting a type, and a default, bounds or choices that agree', () => {
    for (const row of PANEL_SETTINGS) {
      expect(['integer', 'number', 'choice', 'text', 'list', 'flag'], row.property).toContain(row.type);
      expect(PANELS.some((p) => p.id === row.panel), row.property).toBe(true);
      if (row.default === null) expect(row.rule, `${row.property}: a default that depends says on what`).toBeTruthy();
      if (row.type === 'choice' && row.default !== null) expect(row.choices, row.property).toContain(row.default);
      if ((row.type === 'integer' || row.type === 'number') && row.default !== null) expect(settingValue(row, null), row.property).toBe(row.default);
    }
    expect(new Set(PANEL_SETTINGS.map((s) => s.key)).size).toBe(PANEL_SETTINGS.length);
  });

  it('settingValue: clamped, rounded for an integer, the default when absent or not a number; a choice or the default', () => {
    const window = panelSetting('cost', 'window');
    expect([null, '', '  ', 'x', '0', '7.6', '99'].map((v) => settingValue(window, v))).toEqual([2, 2, 2, 2, 1, 8, 32]);
    expect(settingValue(panelSetting('decoding', 'softcap'), '0.25')).toBe(0.25);
    expect(settingValue(panelSetting('cross', 'scoring'), 'additive')).toBe('additive');
    expect(settingValue(panelSetting('cross', 'scoring'), 'Additive')).toBe('dot');
    expect(settingValue(panelSetting('backward', 'score-scale'), '4')).toBe(4);
  });

  it('runs the rules that need only the value: a power of two, the default outside the bounds, 0 as the default, the nearest factor', () => {
    const value = (id, attribute, given) => settingValue(panelSetting(id, attribute), given);
    expect(['700', '100', '5000', '64', '', 'x', null].map((g) => value('cost', 'max-n', g))).toEqual([512, 128, 4096, 64, 4096, 4096, 4096]);
    expect(['4.5', '6', '-1', '0', '', 'x'].map((g) => value('pooling', 'query', g))).toEqual([4.5, 2.5, 2.5, 0, 2.5, 2.5]);
    expect(['0', '-3', '100', '12', '', 'abc'].map((g) => value('compare', 'hidden-size', g))).toEqual([8, 1, 64, 12, 8, 8]);
    expect(['3', '0.3', '128', '1000', '0', '-2', '', 'x'].map((g) => value('backward', 'score-scale', g))).toEqual([4, 0.25, 128, 128, 1, 1, 1, 1]);
    for (const row of PANEL_SETTINGS) {
      if (row.nearest) expect(row.choices.every((c) => typeof c === 'number' && c > 0), row.property).toBe(true);
      if (row.snap) expect(['integer', 'number'], row.property).toContain(row.type);
    }
  });

  it('the panels read their rows: decoding its numbers, train its choices and bounds', () => {
    for (const row of PANEL_SETTINGS.filter((s) => s.panel === 'decoding' && s.type !== 'list')) expect(numberSetting(row.attribute, `${row.max * 2}`), row.attribute).toBe(row.max);
    expect(TRAIN_TASKS).toBe(panelSetting('train', 'task').choices);
    expect([SCORINGS, HEADS, COMPARES]).toEqual([panelSetting('train', 'scoring').choices, panelSetting('train', 'train-heads').choices, panelSetting('train', 'compare').choices]);
    expect(BOUNDS.dModel).toEqual([8, 128]);
  });

  it('the view attributes go to the panels the table names', () => {
    expect(panelAttributes('steps')).toEqual(expect.arrayContaining(['step', 'head', 'weights']));
    expect(panelAttributes('backward')).toEqual(expect.arrayContaining(['head', 'step', 'score-scale', 'weights', 'layer']));
    expect(panelAttributes('pooling')).toEqual(expect.arrayContaining(['kernel', 'bandwidth', 'query']));
    for (const f of VIEW_FIELDS.filter((v) => v.panel)) for (const id of [f.panel, ...(f.alsoPanels ?? [])]) expect(panelAttributes(id), f.attribute).toContain(f.attribute);
  });
});

describe("docs/embedding.md's attribute table follows the settings table", () => {
  const rows = [...readFileSync(join(root, 'docs', 'embedding.md'), 'utf8').matchAll(/^\| ((?:`[a-z-]+`(?:, )?)+) \| ([^|]+) \| (.+) \|$/gm)].map(([, names, elements, values]) => ({
    names: [...names.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]),
    elements: elements.split(',').map((e) => e.trim()),
    values,
  }));

  it.each(PANEL_SETTINGS.map((s) => [`${s.panel} ${s.attribute}`, s]))('%s: a row naming its panel and default', (_, row) => {
    const doc = rows.find((r) => r.names.includes(row.attribute) && r.elements.includes(row.panel));
    expect(doc, `no row for ${row.attribute} on ${row.panel}`).toBeTruthy();
    if (row.type === 'flag') expect(doc.values).toContain('(absent)');
    else if (row.default !== null) expect(doc.values).toContain(`\`${row.default}\``);
  });

  // The elements column says "all", "all but a, b", "same as `mask`" or lists the panels (and the explorer).
  const panelsOf = (elements, rowsByName) => {
    const all = PANELS.map((p) => p.id);
    if (elements[0] === 'all') return all;
    if (elements[0].startsWith('all but ')) return all.filter((id) => ![elements[0].slice(8), ...elements.slice(1)].includes(id));
    const same = elements[0].match(/^same as `([a-z-]+)`$/);
    if (same) return panelsOf(rowsByName(same[1]).elements, rowsByName);
    return elements.filter((e) => e !== 'explorer');
  };

  it.each(CONFIG_FIELDS.map((f) => [f.attribute, f]))('%s: the panels of its row are its usedBy', (attribute, field) => {
    const byName = (name) => rows.find((r) => r.names.includes(name));
    expect(panelsOf(byName(attribute).elements, byName).sort()).toEqual([...usedBy(field)].sort());
  });
});
