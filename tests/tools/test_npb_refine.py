#!/usr/bin/env python3
"""bench/npb's times from 'Mop/s total': NPB prints 'Time in seconds' to 0.01 s, so the
driver takes each run's time as the case's work W over its Mop/s, W the median of
seconds x Mop/s over the case's verified runs. Expected values worked out by hand below."""
import os
import sys
from importlib.machinery import SourceFileLoader

HERE = os.path.dirname(os.path.abspath(__file__))
npb = SourceFileLoader("npb", os.path.join(HERE, "..", "..", "bench", "npb")).load_module()


def main():
    fails = []

    def check(cond, what):
        if not cond:
            fails.append(what)

    R = npb.Run
    runs = {
        # MG class A, 4 ranks: W from 0.30 x 12900 = 3870, 0.31 x 12500 = 3875 and
        # 0.30 x 12950 = 3885 -> median 3875; the failed run counts for nothing.
        ("mg", "A", 4, "rdmach"): [R(seconds=0.30, mops=12900.0),
                                   R(seconds=0.30, mops=12950.0),
                                   R(seconds=0.29, mops=99999.0, error="exit 1")],
        ("mg", "A", 4, "mpich"): [R(seconds=0.31, mops=12500.0)],
        # another case keeps its own W: 2.00 x 100 = 200
        ("cg", "A", 4, "mpich"): [R(seconds=2.00, mops=100.0)],
        # no Mop/s printed: the printed time stays the figure
        ("is", "A", 4, "rdmach"): [R(seconds=0.25, mops=None)],
    }
    npb.refine_times(runs)
    rd, mp = runs[("mg", "A", 4, "rdmach")], runs[("mg", "A", 4, "mpich")]
    check(abs(rd[0].precise - 3875 / 12900) < 1e-12, f"rdmach run 1: {rd[0].precise}")
    check(abs(rd[1].precise - 3875 / 12950) < 1e-12, f"rdmach run 2: {rd[1].precise}")
    check(rd[2].precise is None, "a failed run was refined")
    check(abs(mp[0].precise - 3875 / 12500) < 1e-12, f"mpich: {mp[0].precise}")
    # the best rdmach run is the one with the most Mop/s; its ratio to MPICH is 12500/12950
    ratio = npb.best_time(rd) / npb.best_time(mp)
    check(abs(ratio - 12500 / 12950) < 1e-12, f"ratio {ratio}, want {12500 / 12950}")
    check(abs(runs[("cg", "A", 4, "mpich")][0].precise - 2.0) < 1e-12, "cg's own W")
    check(npb.best_time(runs[("is", "A", 4, "rdmach")]) == 0.25, "no Mop/s: printed time")
    for f in fails:
        print("FAIL:", f)
    print("npb refine:", "ok" if not fails else f"{len(fails)} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
