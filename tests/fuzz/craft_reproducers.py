#!/usr/bin/env python3
# Writes the hand-made reproducers in tests/fuzz/regressions/*/projection-overflow-*:
#   python3 tests/fuzz/craft_reproducers.py self_attention > FILE   (or multi_head)
# X = [[2], [1]], W_Q = [[FLT_MAX]], W_K = [[0]], W_V (and W_O) = [[1]], no mask, no trace:
# Q = [inf, FLT_MAX], every score of query 0 is inf * 0 = NaN, and its row silently
# becomes all-zero weights and a zero output (the true weights are [0.5, 0.5]).
import struct, sys
# FuzzedDataProvider consumes integers from the end of the input: build the
# consumption sequence, then reverse it.
seq = []
def byte(b): seq.append(b)
def r1(v, lo): byte(v - lo)                      # 1-byte ranges: value = lo + b % (range+1)
def int16(v): r = v + 32768; byte(r >> 8); byte(r & 255)
def u32(v): [byte((v >> s) & 255) for s in (24, 16, 8, 0)]
def mode(m): byte(m)                             # values(): 0 moderate, 1 small_int, 2 extreme
def moderate(x): int16(int(x * 256))
def small(x): byte(x + 4)
def edge(i): u32((i << 2) | 1)                    # kEdges[i]; 4 = FLT_MAX
def build(kind):
    if kind == 'self_attention':
        for d in (2, 1, 1, 1): r1(d, 0)           # n, d_model, dk, dv
        r1(0, 0)                                  # broken = 0
        mode(0); moderate(2); moderate(1)         # X = [[2], [1]]
        mode(2); edge(4)                          # W_Q = [[FLT_MAX]]
        mode(1); small(0)                         # W_K = [[0]]
        mode(1); small(1)                         # W_V = [[1]]
        r1(0, 0)                                  # mask: none
        for _ in range(4): byte(0)                # no trace
    if kind == 'multi_head':
        for d in (2, 1, 1, 1, 1, 1): r1(d, 0)     # n, d_model, heads, dk, dv, d_out
        r1(0, 0)
        mode(0); moderate(2); moderate(1)
        mode(2); edge(4)                          # W_Q
        mode(1); small(0)                         # W_K
        mode(1); small(1)                         # W_V
        mode(1); small(1)                         # W_O
        r1(0, 0)
        for _ in range(3): byte(0)
    return bytes(reversed(seq))
sys.stdout.buffer.write(build(sys.argv[1]))
