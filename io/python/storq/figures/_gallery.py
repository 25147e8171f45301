"""docs/gallery.md, written from the manifest: every figure and generated table grouped per paper,
in the paper's order, each with its caption, what it reproduces, the commands that made its data
and the checks on it; the header states what each mode of jobs/figures.sh cost (budget.json)."""
import json
import os
import re
import time
from pathlib import Path

PAPERS = [
    ("000", "Delay Comparison of Delivery and Coding Policies in Data Clusters", "cluster"),
    ("001", "Steady-State Behavior of Some Load Balancing Mechanisms in Cloud Storage Systems",
     "supermarket"),
    ("002", "FAST CLOUD: Pushing the Envelope on Delay Performance of Cloud Storage with Coding",
     "proxy"),
    ("003", "On the Delay-Storage Trade-off in Content Download from Coded Distributed Storage "
     "Systems", "forkjoin"),
    ("004", "Provably Delay Efficient Data Retrieving in Storage Clouds", "threads"),
]
ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8, "IX": 9, "X": 10}


def order_key(ref):
    """Where REF ("003 Fig. 7", "002 Table I", "000 delay vs file size") sits in its paper:
    figures by number, then tables by number, then results the extraction left unnumbered
    (in the order the figure modules draw them)."""
    m = re.search(r"Figs?\. (\d+)", ref)
    if m:
        return (0, int(m.group(1)))
    m = re.search(r"Table ([IVX]+|\d+)", ref)
    if m:
        t = m.group(1)
        return (1, ROMAN.get(t, int(t) if t.isdigit() else 99))
    return (2, 0)


def record_budget(out, mode, seconds, load0, cpu):
    """Add this run's cost (CPU: storq's and the plotting's) to OUT/budget.json (one entry per
    mode) and return the whole record."""
    path = out / "budget.json"
    budget = json.loads(path.read_text()) if path.exists() else {}
    budget[mode] = {"seconds": seconds, "cpu_seconds": round(cpu, 1),
                    "load_start": round(load0, 2), "load_end": round(os.getloadavg()[0], 2),
                    "cores": os.cpu_count(), "date": time.strftime("%Y-%m-%d")}
    path.write_text(json.dumps(budget, indent=1) + "\n")
    return budget


def _budget_lines(budget):
    lines = []
    for mode, limit in (("full", "20 minutes"), ("quick", "300 s"), ("ci", "")):
        b = budget.get(mode)
        if b:
            lines.append(f"- `jobs/figures.sh{'' if mode == 'full' else ' --' + mode}`: {b['seconds']:.0f} s "
                         f"({b['cpu_seconds']:.0f} s of CPU) on {b['cores']} cores, load average "
                         f"{b['load_start']:.1f} at the start and {b['load_end']:.1f} at the end, "
                         f"{b['date']}" + (f"; budget {limit}" if limit else ""))
    return lines


def write(manifest, budget, out, root):
    """Write the gallery: docs/gallery.md when OUT is docs/figures, else OUT/gallery.md."""
    out, root = Path(out).resolve(), Path(root).resolve()
    in_docs = out == root / "docs" / "figures"
    if in_docs and manifest["mode"] != "full":
        return  # docs/gallery.md shows full mode; a shorter mode only records its budget
    path = root / "docs" / "gallery.md" if in_docs else out / "gallery.md"
    link = "figures/" if in_docs else ""
    text = [
        "# Gallery: the five papers' results, reproduced",
        "",
        "Written by `jobs/figures.sh` (see [python.md](python.md)) from the figures it draws: do not edit",
        "by hand. It runs the sweep files of `jobs/sweeps/` with the run lengths of its mode, draws each",
        "figure as PNG and SVG, and writes each table as markdown and CSV, into `docs/figures/`: simulation",
        "with 95% confidence intervals beside the theory storq computes (`storq theory`). The manifest",
        "(`docs/figures/manifest.json`) holds every entry's plotted data, what it reproduces (`paper_ref`)",
        "and the checks made on it; the script exits 1 when a check fails. Each entry gives the exact",
        "storq commands that made its data (from the repository root; `-o` names the file under",
        "`build/figures/MODE/`). The numbers in the captions are computed from the plotted data.",
        "",
        f"These are from {manifest['mode']} mode. What each mode cost, from an empty `build/figures/`:",
        "",
        *_budget_lines(budget),
        "",
    ]
    entries = manifest["figures"]
    for pid, title, model in PAPERS:
        mine = [(i, e) for i, e in enumerate(entries)
                if (e["paper_ref"][0][:3] if e.get("paper_ref") else "") == pid]
        if not mine:
            continue
        mine.sort(key=lambda ie: (order_key(ie[1]["paper_ref"][0]), ie[0]))
        text += [f"## Paper {pid}: {title} (`{model}`)", ""]
        for _, e in mine:
            text += [f"### {e['title']}", ""]
            if e.get("kind") == "table":
                text += [(out / f"{e['stem']}.md").read_text().rstrip(), "",
                         f"([{e['stem']}.csv]({link}{e['stem']}.csv), full precision)", ""]
            else:
                text += [f"![{e['stem']}]({link}{e['stem']}.png)", ""]
            if e.get("caption"):
                text += [e["caption"], ""]
            text += ["Reproduces: " + "; ".join(e["paper_ref"]) + ".", ""]
            text += ["```sh", *e["commands"], "```", ""]
            text += ["Checks on the data: " + "; ".join(c["what"] for c in e["checks"]) + ".", ""]
    unplaced = [e["stem"] for e in entries if not e.get("paper_ref")]
    if unplaced:
        text += ["## Not yet placed in a paper", "", *[f"- {s}" for s in unplaced], ""]
    path.write_text("\n".join(text))
    print(f"figures: wrote {path}", flush=True)
