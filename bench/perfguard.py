"""The regression guard of bench/compare: the figures of every target row,
kept per machine in docs/PERFORMANCE.md, and the check of a new run
against the figures of the machine it runs on.

A machine is its CPU model, its caches and the number of cpus usable (the
line `machine:` of a run); its section in the file is

    ### <cpu> (<caches>), <n> cpus
    recorded <date> by `bench/compare --record`

    | target | rdmach | best peer | unit | rdmach/best |
    |---|---|---|---|---|
    | 8 B latency | 0.258 | 0.356 | us | 0.72 |

The guard compares ratios (rdmach / best peer of the same run, best of at
least 3 runs: a --quick run is not compared nor recorded), not
absolute figures: the peers run interleaved with rdmach, so load on the
machine moves both. A target row whose ratio is more than 10% worse than
the recorded one is reported as a loss; --record replaces this machine's
rows with the run's (rows the run did not measure are kept).
"""
import datetime
import os
import re
from typing import Callable, Dict, List, Optional, Tuple

LOSS = 0.10
HEAD = "## Recorded figures"


def machine_key(report: Dict) -> str:
    return f"{report['cpu']} ({report['caches']}), {len(report['cpus_allowed'])} cpus"


def split(text: str) -> Tuple[str, str, str]:
    """The text before HEAD, the recorded section (HEAD up to the next
    '## ' heading, without it) and the rest: the file's other '### '
    sections are notes, not machines."""
    if HEAD not in text:
        return text, "", ""
    before, rest = text.split(HEAD, 1)
    m = re.search(r"^## ", rest, re.M)
    return (before, HEAD + rest, "") if not m else (before, HEAD + rest[:m.start()], rest[m.start():])


def parse(text: str) -> Dict[str, Dict[str, Dict]]:
    """The recorded section's machines:
    {machine: {target: {'rdmach', 'best_peer', 'unit', 'ratio'}, '': {'recorded': ...}}}"""
    out: Dict[str, Dict[str, Dict]] = {}
    cur: Optional[Dict[str, Dict]] = None
    for line in split(text)[1].splitlines():
        m = re.match(r"^### (.+)$", line)
        if m:
            cur = out.setdefault(m.group(1).strip(), {})
            continue
        if cur is None:
            continue
        m = re.match(r"^recorded (\S+)", line)
        if m:
            cur[""] = {"recorded": m.group(1)}
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 5 or cells[0] in ("target", "---") or cells[0].startswith("-"):
            continue
        try:
            cur[cells[0]] = {"rdmach": float(cells[1]), "best_peer": float(cells[2]),
                             "unit": cells[3], "ratio": float(cells[4])}
        except ValueError:
            continue
    return out


def render(machines: Dict[str, Dict[str, Dict]]) -> List[str]:
    lines: List[str] = []
    for key in sorted(machines):
        rows = machines[key]
        lines += [f"### {key}", f"recorded {rows.get('', {}).get('recorded', 'unknown')} "
                  "by `bench/compare --record`", "",
                  "| target | rdmach | best peer | unit | rdmach/best |", "|---|---|---|---|---|"]
        for what, r in rows.items():
            if what:
                lines.append(f"| {what} | {r['rdmach']:.4g} | {r['best_peer']:.4g} | {r['unit']} | "
                             f"{r['ratio']:.2f} |")
        lines.append("")
    return lines


def write(path: str, text: str, machines: Dict[str, Dict[str, Dict]]) -> None:
    """Replace the recorded section (or add it at the end) with the rendered
    sections; the text around it stays."""
    before, _, after = split(text)
    keep = before.rstrip("\n")
    body = [HEAD, "", "Written by `bench/compare --record`; read by every `bench/compare` run "
            "(perfguard.py).", ""] + render(machines)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write((keep + "\n\n" if keep else "") + "\n".join(body) + ("\n" + after if after else ""))
    os.replace(tmp, path)


def guard(report: Dict, path: str, record: bool, log: Callable[[str], None]) -> Dict:
    """Print the comparison of this run's target ratios with the recorded
    ones of this machine (and record them if asked). Returns the JSON part."""
    key = machine_key(report)
    try:
        with open(path) as f:
            text = f.read()
    except OSError:
        text = ""
    machines = parse(text)
    mine = machines.get(key, {})
    result: Dict = {"file": path, "machine": key, "recorded": mine.get("", {}).get("recorded"),
                    "losses": [], "compared": 0}
    shown = os.path.relpath(path)
    out = [f"Regression guard ({path if shown.startswith('..') else shown}; machine {key})"]
    if not mine:
        out.append("  no figures recorded for this machine: nothing to compare "
                   "(bench/compare --record adds them)")
    quick = report.get("quick") or report.get("repeat", 3) < 3
    if mine and quick:
        # a figure of one run against a best of three says more about the
        # load than about the change
        out.append("  not compared: this run keeps fewer than 3 runs per figure (--quick or --repeat); "
                   "the recorded figures are best of 3")
        mine_cmp = {}
    else:
        mine_cmp = mine
    for t in report["targets"]:
        old = mine_cmp.get(t["what"])
        if not old or t["measured"] is None or not old["ratio"]:
            continue
        result["compared"] += 1
        worse = (t["measured"] / old["ratio"] - 1.0 if t["op"] == "<=" else
                 old["ratio"] / t["measured"] - 1.0 if t["measured"] else float("inf"))
        if worse > LOSS:
            result["losses"].append({"what": t["what"], "recorded": old["ratio"],
                                     "measured": t["measured"], "loss": worse})
            out.append(f"  LOSS {t['what']}: rdmach/best {t['measured']:.2f}, recorded "
                       f"{old['ratio']:.2f} ({worse * 100:.0f}% worse)")
    if mine_cmp:
        out.append(f"  {result['compared']} target rows compared with the figures recorded "
                   f"{result['recorded']}: " +
                   (f"{len(result['losses'])} lost more than {LOSS * 100:.0f}%"
                    if result["losses"] else f"none lost more than {LOSS * 100:.0f}%"))
    if record and quick:
        out.append("  not recorded: the recorded figures are best of 3 runs (run without --quick, --repeat 3 or more)")
    elif record:
        rows = dict(mine)
        rows[""] = {"recorded": datetime.date.today().isoformat()}
        for t in report["targets"]:
            if t["measured"] is not None and t.get("rdmach") is not None and t.get("best_peer"):
                rows[t["what"]] = {"rdmach": t["rdmach"], "best_peer": t["best_peer"],
                                   "unit": t["unit"], "ratio": t["measured"]}
        machines[key] = rows
        write(path, text, machines)
        out.append(f"  recorded this run's {len(rows) - 1} target rows as this machine's")
    print("\n".join(out), flush=True)
    return result
