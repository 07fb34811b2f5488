// One reusable block of WASM memory per module. A call lays out its inputs,
// outputs and scratch in it (a Layout), reserves it (growing the block only
// when a call needs more than any call before), copies inputs in once and
// copies results out. Nothing is allocated per call once the block is big
// enough, and nothing is left behind when a call throws.
import { AttentionRangeError } from './errors.js';

const ALIGN = 16;

/** Offsets of named regions inside one block, each 16-byte aligned. */
export class Layout {
  constructor() {
    this.bytes = 0;
  }
  /** Reserve `count` float32 (or int32) slots; returns the byte offset. */
  f32(count) {
    return this.take(count * 4);
  }
  /** Reserve `count` bytes; returns the byte offset. */
  u8(count) {
    return this.take(count);
  }
  take(bytes) {
    const offset = this.bytes;
    this.bytes += Math.ceil(bytes / ALIGN) * ALIGN;
    return offset;
  }
}

export class Workspace {
  /** @param {object} module the Emscripten module; @param {number} limit bytes the module may grow to */
  constructor(module, limit) {
    this.module = module;
    this.limit = limit;
    this.address = 0;
    this.capacity = 0;
  }

  /** Returns the base address of at least `bytes` bytes; throws a RangeError before allocating when it cannot fit. */
  reserve(fn, bytes) {
    if (bytes <= this.capacity) return this.address;
    const headroom = this.limit - 4 * 1024 * 1024; // the stack and the module's own data
    if (!Number.isFinite(bytes) || bytes > headroom)
      throw new AttentionRangeError(
        `${fn}: this call needs ${bytes} bytes of WASM memory but the module is limited to ${this.limit} bytes (${formatBytes(this.limit)}); use smaller inputs`,
      );
    let size = Math.min(Math.max(bytes, this.capacity * 2, 64 * 1024), headroom);
    this.release();
    let address = this.module._malloc(size);
    if (!address && size > bytes) address = this.module._malloc((size = bytes));
    if (!address)
      throw new AttentionRangeError(
        `${fn}: could not allocate ${bytes} bytes of WASM memory (the module is limited to ${this.limit} bytes, ${formatBytes(this.limit)}); use smaller inputs`,
      );
    this.address = address;
    this.capacity = size;
    return this.address;
  }

  /** A separate long-lived block (e.g. a layer's packed weights); the caller frees it with module._free. */
  allocateBlock(fn, bytes) {
    const address = bytes <= this.limit ? this.module._malloc(Math.max(bytes, 16)) : 0;
    if (!address)
      throw new AttentionRangeError(
        `${fn}: could not allocate ${bytes} bytes of WASM memory (the module is limited to ${this.limit} bytes, ${formatBytes(this.limit)})`,
      );
    return address;
  }

  release() {
    if (this.address) this.module._free(this.address);
    this.address = 0;
    this.capacity = 0;
  }

  /** Copy a Float32Array / Int32Array / Uint8Array into the heap at a byte address. */
  write(address, data) {
    if (data instanceof Float32Array) this.module.HEAPF32.set(data, address >> 2);
    else if (data instanceof Int32Array) this.module.HEAP32.set(data, address >> 2);
    else this.module.HEAPU8.set(data, address);
  }

  /** A fresh Float32Array copy of `count` floats at a byte address. */
  read(address, count) {
    const start = address >> 2;
    return this.module.HEAPF32.slice(start, start + count);
  }

  /** A fresh matrix { rows, cols, data } copied out of the heap. */
  readMatrix(address, rows, cols) {
    return { rows, cols, data: this.read(address, rows * cols) };
  }
}

export function formatBytes(bytes) {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(bytes % 1024 ** 3 ? 1 : 0)} GiB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024).toFixed(1)} KiB`;
}
