// One raw call's memory: its inputs, outputs, scratch and argument block laid
// out in the module's workspace. Slots are byte offsets until call() reserves
// the block; addr() then gives heap addresses. The argument block is written
// by field name from arg-blocks.js, the layout the C++ side is generated from.
import { LAYOUTS } from './arg-blocks.js';
import { AttentionError, fail } from './errors.js';
import { checkFiniteResult } from './overflow.js';
import { Layout } from './workspace.js';

const internal = (fn, message) => fail(AttentionError.codes.INTERNAL, `${fn}: ${message}; please report this`);

// Writes `values` (field name → number, slot or null) as the block `name` at `address`.
function writeBlock(fn, module, name, address, values, resolve) {
  const layout = LAYOUTS[name];
  if (!layout) internal(fn, `no argument block is defined for the raw call ${name}`);
  const view = new DataView(module.HEAPU8.buffer, address, layout.bytes);
  for (const { name: field, type, offset } of layout.fields) {
    if (!Object.hasOwn(values, field)) internal(fn, `the ${name} argument block needs ${field}, which was not given`);
    const value = values[field];
    if (type === 'ptr') view.setUint32(offset, typeof value === 'number' ? value : resolve(value), true);
    else if (typeof value !== 'number' && typeof value !== 'boolean') internal(fn, `${name}.${field} must be a number, got ${typeof value}`);
    else if (type === 'f32') view.setFloat32(offset, value, true);
    else if (type === 'f64') view.setFloat64(offset, value, true);
    else if (type === 'i32') view.setInt32(offset, Number(value), true);
    else view.setUint32(offset, Number(value), true);
  }
  if (Object.keys(values).length !== layout.fields.length) {
    const unknown = Object.keys(values).find((key) => !layout.fields.some((f) => f.name === key));
    internal(fn, `the ${name} argument block has no field ${unknown}`);
  }
  return address;
}

export class Frame {
  /** @param {import('./workspace.js').Workspace} workspace @param {string} fn the public function's name, for messages */
  constructor(workspace, fn) {
    this.workspace = workspace;
    this.module = workspace.module;
    this.fn = fn;
    this.layout = new Layout();
    this.inputs = [];
    this.base = 0;
  }
  /** A slot holding a copy of `data` (Float32Array, Int32Array or Uint8Array); null for no data. */
  input(data) {
    if (!data) return null;
    const slot = { offset: data instanceof Uint8Array ? this.layout.u8(data.length) : this.layout.f32(data.length) };
    this.inputs.push([slot, data]);
    return slot;
  }
  /** A slot of `count` floats for a result or scratch, or null when not wanted. */
  output(count, wanted = true) {
    return wanted ? { offset: this.layout.f32(count) } : null;
  }
  /**
   * A raw size function (e.g. fusedScratchFloats), asked before the frame is
   * laid out: its block is written at the start of the workspace.
   */
  query(name, values) {
    const address = this.workspace.reserve(this.fn, LAYOUTS[name]?.bytes ?? 0);
    return this.module[`_${name}`](writeBlock(this.fn, this.module, name, address, values, () => 0));
  }
  /**
   * Runs the raw call `_name` on this frame: reserves the workspace, copies
   * the inputs in, writes the argument block (slots become addresses, null
   * becomes 0) and checks the status.
   */
  call(name, values) {
    const block = this.layout.u8(LAYOUTS[name]?.bytes ?? 0);
    this.base = this.workspace.reserve(this.fn, this.layout.bytes);
    for (const [slot, data] of this.inputs) this.workspace.write(this.addr(slot), data);
    const address = writeBlock(this.fn, this.module, name, this.addr({ offset: block }), values, (slot) => this.addr(slot));
    const status = this.module[`_${name}`](address);
    if (status !== 0) internal(this.fn, `the core rejected arguments the JS layer accepted (status ${status})`);
  }
  addr(slot) {
    return slot ? this.base + slot.offset : 0;
  }
  /** A fresh copy of a result matrix, checked to be finite. */
  matrix(slot, rows, cols) {
    if (!slot) return null;
    const m = this.workspace.readMatrix(this.addr(slot), rows, cols);
    checkFiniteResult(this.fn, m.data);
    return m;
  }
  /** The slot `first` floats into a float slot: one head's block of a head-major buffer. */
  part(slot, first) {
    return slot && { offset: slot.offset + first * 4 };
  }
}
