#!/usr/bin/env python3
"""Plots of an rdmach-noise run from the CSV files in DIR (rdmach-noise --csv DIR):
  quanta_by_node.png   per-node distributions of quantum times (as the ASCI Q figures: one
                       box per node, ranks of the node pooled), and per rank below
  detours.png          detours over time (start vs length, one colour per rank)
  spectrum.png         the detour train's periodogram per rank (to 20 kHz)
"""
import csv, glob, os, re, sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt


def read(path):
    with open(path) as f:
        r = csv.reader(f)
        head = next(r)
        return head, [[float(x) for x in row] for row in r if row]


def by_rank(d, what):
    out = {}
    for p in glob.glob(os.path.join(d, what + "_rank*.csv")):
        out[int(re.search(r"rank(\d+)\.csv$", p).group(1))] = read(p)
    return dict(sorted(out.items()))


def main(d):
    with open(os.path.join(d, "summary.csv")) as f:
        summary = list(csv.DictReader(f))
    host = {int(s["rank"]): s["host"] for s in summary}
    quanta = by_rank(d, "quanta")
    unit = quanta[min(quanta)][0][2] if quanta else "time_ns"

    nodes = {}
    for rank, (_, rows) in quanta.items():
        nodes.setdefault(host[rank], []).extend(r[2] / 1e3 for r in rows)
    fig, ax = plt.subplots(2, 1, figsize=(max(6, len(quanta) * 0.5), 8))
    ax[0].boxplot(list(nodes.values()), labels=list(nodes.keys()), whis=(1, 99), showfliers=True)
    ax[0].set_ylabel("quantum %s (us)" % unit.split("_")[0])
    ax[0].set_title("per node")
    ax[1].boxplot([[r[2] / 1e3 for r in rows] for _, rows in quanta.values()],
                  labels=[str(k) for k in quanta], whis=(1, 99))
    ax[1].set_xlabel("rank")
    ax[1].set_ylabel("quantum %s (us)" % unit.split("_")[0])
    for a in ax:
        a.tick_params(axis="x", labelrotation=45)
        a.set_yscale("log")   # a detour can be a thousand quanta long
    fig.tight_layout()
    fig.savefig(os.path.join(d, "quanta_by_node.png"), dpi=100)

    fig, ax = plt.subplots(figsize=(9, 5))
    for rank, (_, rows) in by_rank(d, "detours").items():
        if rows:
            ax.scatter([r[0] / 1e9 for r in rows], [r[1] / 1e3 for r in rows], s=4, label="rank %d" % rank)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("detour length (us)")
    ax.set_yscale("log")
    ax.legend(markerscale=3, fontsize="small")
    fig.tight_layout()
    fig.savefig(os.path.join(d, "detours.png"), dpi=100)

    fig, ax = plt.subplots(figsize=(9, 5))
    for rank, (_, rows) in by_rank(d, "spectrum").items():
        if rows:
            ax.plot([r[0] for r in rows], [r[1] for r in rows], lw=0.6, label="rank %d" % rank)
    ax.set_xlabel("frequency (Hz)")
    ax.set_ylabel("power (peak = 1)")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(os.path.join(d, "spectrum.png"), dpi=100)
    print("plots: %s/quanta_by_node.png, detours.png, spectrum.png" % d)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: rdmach-noise-plot.py DIR")
    main(sys.argv[1])
