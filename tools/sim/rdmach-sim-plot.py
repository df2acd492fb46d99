#!/usr/bin/env python3
"""Plot an rdmach-sim CSV (rdmach-sim ... --csv FILE): time per call against ranks, one line per
algorithm, one panel per message size; written to FILE with .png for .csv."""
import csv, os, sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit("%s: no rows" % path)
    sizes = sorted({int(r["bytes"]) for r in rows})
    fig, axes = plt.subplots(1, len(sizes), figsize=(5 * len(sizes), 4.5), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        algos = {}
        for r in rows:
            if int(r["bytes"]) == size:
                algos.setdefault(r["algo"], []).append((int(r["ranks"]), float(r["per_iter_us"])))
        for algo, pts in sorted(algos.items()):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=algo)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("ranks")
        ax.set_ylabel("time per call (us)")
        ax.set_title("%s, %d B" % (rows[0]["coll"], size))
        ax.legend(fontsize="small")
    fig.tight_layout()
    out = os.path.splitext(path)[0] + ".png"
    fig.savefig(out, dpi=100)
    print("plot: %s" % out)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: rdmach-sim-plot.py FILE.csv")
    main(sys.argv[1])
