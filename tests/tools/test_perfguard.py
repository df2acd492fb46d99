#!/usr/bin/env python3
"""bench/perfguard.py, the regression guard of bench/compare: recording a
machine's target rows, a loss above 10% reported, a gain or a small loss
not, another machine's figures never used, a --quick run neither compared
nor recorded, and the text around the recorded section kept, its '###'
notes not taken for machines."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import perfguard  # noqa: E402


def report(ratios, cpu="Test CPU", quick=False):
    return {"cpu": cpu, "caches": "L1d 48K, L3 32768K", "cpus_allowed": [0, 1], "quick": quick,
            "repeat": 1 if quick else 3,
            "targets": [{"what": w, "op": op, "measured": r, "rdmach": r, "best_peer": 1.0, "unit": "us"}
                        for w, (op, r) in ratios.items()]}


def run(rep, path, record=False):
    lines = []
    res = perfguard.guard(rep, path, record, lines.append)
    return res


def main():
    fails = []
    def check(cond, what):
        if not cond:
            fails.append(what)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "PERFORMANCE.md")
        with open(path, "w") as f:
            f.write("# Performance\n\nhand-written text\n\n### A note of its own\n\n"
                    "| target | rdmach | best peer | unit | rdmach/best |\n|---|---|---|---|---|\n"
                    "| noted | 1 | 2 | us | 0.50 |\n")
        base = {"8 B latency": ("<=", 0.70), "1 MiB bandwidth": (">=", 3.0)}
        r = run(report(base), path, record=True)
        check(r["compared"] == 0 and not r["losses"], "nothing recorded yet: nothing compared")
        text = open(path).read()
        check("hand-written text" in text, "the text before the section is kept")
        check("| 8 B latency |" in text and "Test CPU" in text, "the rows are recorded under the machine")
        check(text.count("### A note of its own") == 1 and text.index("### A note of its own") <
              text.index(perfguard.HEAD), "a note's ### section was taken for a machine")
        check(list(perfguard.parse(text)) == ["Test CPU (L1d 48K, L3 32768K), 2 cpus"],
              f"machines parsed: {list(perfguard.parse(text))}")
        # a section after the recorded one stays after it, once
        with open(path, "a") as f:
            f.write("\n## Later\n\n### Another note\n\nlater text\n")
        run(report(base), path, record=True)
        text = open(path).read()
        check(text.count("### Another note") == 1 and text.index("## Later") > text.index(perfguard.HEAD)
              and text.count("| 8 B latency |") == 1, "the section after the recorded one moved or doubled")
        # 5% worse latency, better bandwidth: no loss
        r = run(report({"8 B latency": ("<=", 0.735), "1 MiB bandwidth": (">=", 3.5)}), path)
        check(r["compared"] == 2 and not r["losses"], f"small loss or gain reported: {r}")
        # 20% worse latency, bandwidth 3.0 -> 2.5 (20% worse): both lost
        r = run(report({"8 B latency": ("<=", 0.84), "1 MiB bandwidth": (">=", 2.5)}), path)
        check(sorted(x["what"] for x in r["losses"]) == ["1 MiB bandwidth", "8 B latency"],
              f"losses not reported: {r}")
        # another machine: nothing compared
        r = run(report({"8 B latency": ("<=", 5.0)}, cpu="Other CPU"), path)
        check(r["compared"] == 0 and not r["losses"], "another machine's figures were used")
        # --quick: neither compared nor recorded
        r = run(report({"8 B latency": ("<=", 5.0)}, quick=True), path, record=True)
        check(r["compared"] == 0 and not r["losses"], "a quick run was compared")
        check("| 8 B latency | 0.7 |" in open(path).read(), "a quick run was recorded")
    for f in fails:
        print("test_perfguard: FAIL:", f)
    print("test_perfguard:", "PASS" if not fails else f"{len(fails)} failure(s)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
