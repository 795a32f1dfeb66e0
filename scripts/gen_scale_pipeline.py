#!/usr/bin/env python3
"""Writes a pipeline text form of N stages, to measure how trapeze scales with
the number of stages (issue 13; bench/scale.sh times it).

  chain: s0 reads the input; every later stage reads the one before it,
         alternately as a 3-point stencil (along x, then along y, with a
         default at the border) and as a point-wise map.
  cycle: the same, but s0 reads the last stage instead of the input, so the
         stages form one cycle of N stages (an error trapeze must report).

Usage: gen_scale_pipeline.py N [--shape chain|cycle] [--rows R] [--cols C] [-o FILE]
"""

import argparse
import sys


def stage_text(index, producer, dim):
    """Stage `index` reading `producer`: a stencil along `dim` (0: x, 1: y) or,
    for every other stage, a point-wise map."""
    head = f"stage s{index}(x, y): float32 on [0, R - 1] x [0, C - 1]\n"
    if index % 2 == 1:
        return head + f"  = {producer}(x, y) * 0.5f + 0.25f\n"
    if dim == 0:
        border, before, after = "x >= 1 && x <= R - 2", "x - 1, y", "x + 1, y"
    else:
        border, before, after = "y >= 1 && y <= C - 2", "x, y - 1", "x, y + 1"
    return (head + f"  case {border}: ({producer}({before}) + {producer}(x, y)"
            f" + {producer}({after})) * 0.25f\n"
            f"  default: {producer}(x, y)\n")


def pipeline_text(stages, shape, rows, cols):
    out = ["# trapeze pipeline text form, version 1\n",
           f"pipeline scale_{shape}_{stages}\n\n",
           f"param C: int64 = {cols}\n", f"param R: int64 = {rows}\n\n"]
    if shape == "chain":
        out.append("input img: float32[R][C]\n\n")
    for i in range(stages):
        if i > 0:
            producer = f"s{i - 1}"
        else:
            producer = "img" if shape == "chain" else f"s{stages - 1}"
        out.append(stage_text(i, producer, (i // 2) % 2) + "\n")
    out.append(f"output s{stages - 1}\n")
    return "".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stages", type=int, help="the number of stages (at least 1)")
    parser.add_argument("--shape", choices=["chain", "cycle"], default="chain")
    parser.add_argument("--rows", type=int, default=64, help="the default of R")
    parser.add_argument("--cols", type=int, default=64, help="the default of C")
    parser.add_argument("-o", "--output", help="the file to write (default: stdout)")
    args = parser.parse_args()
    if args.stages < 1:
        parser.error("the number of stages must be at least 1")
    text = pipeline_text(args.stages, args.shape, args.rows, args.cols)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
