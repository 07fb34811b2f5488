// The one error type the library throws for bad input. `code` is stable and
// meant for programs; `message` names the function, the argument and the
// offending sizes or values, and is meant for people.
export class AttentionError extends Error {
  /**
   * @param {string} code  one of AttentionError.codes
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = 'AttentionError';
    this.code = code;
  }
}

AttentionError.codes = Object.freeze({
  SHAPE_MISMATCH: 'SHAPE_MISMATCH', // two arguments' sizes disagree
  INVALID_MATRIX: 'INVALID_MATRIX', // not a matrix: bad rows/cols, data length, ragged nested array
  INVALID_ARGUMENT: 'INVALID_ARGUMENT', // an option outside its domain (bandwidth, heads, kernel, scale)
  INVALID_MASK: 'INVALID_MASK', // unknown mask name, wrong size, validLens out of range, values not 0/1
  NON_FINITE: 'NON_FINITE', // NaN or ±Infinity in an input
  OVERFLOW: 'OVERFLOW', // finite inputs whose result would not fit in float32 (|x| > 3.4e38)
  DISPOSED: 'DISPOSED', // a layer used after dispose(), a KV cache after release()
  OUT_OF_MEMORY: 'OUT_OF_MEMORY', // the request does not fit in the module's memory (thrown as a RangeError)
  INTERNAL: 'INTERNAL', // the core refused arguments the JS layer accepted: a bug, please report it
  UNAVAILABLE: 'UNAVAILABLE', // a function of the training build called on the inference build
});

/** Thrown, before anything is allocated, when a call would not fit in WASM memory. */
export class AttentionRangeError extends RangeError {
  constructor(message) {
    super(message);
    this.name = 'AttentionRangeError';
    this.code = AttentionError.codes.OUT_OF_MEMORY;
  }
}

export const fail = (code, message) => {
  throw new AttentionError(code, message);
};
