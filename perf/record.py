#!/usr/bin/env python3
"""Produce a dated benchmark record: perf/results/DATE.md (+ DATE.json, DATE.png).

    python3 perf/record.py [--rounds N] [--round-ms MS] [--no-gocty] [--callgrind] [--compile]
                           [--only A,B]

Runs `tfwire bench --json` (built with `--features bench`; tfwire and its Rust peers, interleaved rounds, medians), the go-cty
oracle's `ctyoracle bench` on the same workloads when Go and ../shared/oracle are available
(perf/gocty.sh builds it), optionally callgrind instruction counts (perf/callgrind.sh), the peak
RSS of the bench process, optionally the schema compile times (`cargo bench --bench compile`,
shortened), and a plot of MB/s per decoder per workload. Only the standard library
is needed, except matplotlib for the plot (installed with pip when missing; the plot is skipped
if that fails).
"""
import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(cmd, **kw):
    return subprocess.run(cmd, cwd=ROOT, check=True, text=True, capture_output=True, **kw).stdout


def bench(args):
    cmd = ["target/release/tfwire", "bench", "--json", "--rounds", str(args.rounds),
           "--round-ms", str(args.round_ms)]
    if args.only:
        cmd += ["--only", args.only]
    # A fresh Python whose one child is the bench, so that the peak RSS is the bench's own
    # (RUSAGE_CHILDREN here would also count `cargo build`).
    wrapper = ("import resource, subprocess, sys; "
               "r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, text=True, check=True); "
               "sys.stdout.write(r.stdout); "
               "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)")
    p = subprocess.run([sys.executable, "-c", wrapper] + cmd, cwd=ROOT, check=True, text=True,
                       capture_output=True)
    peak_kib = int(p.stderr.strip().splitlines()[-1])
    return json.loads(p.stdout), peak_kib


def gocty(args):
    try:
        out = run(["bash", os.path.join(HERE, "gocty.sh")] + ([args.only] if args.only else []))
    except subprocess.CalledProcessError as e:
        print(f"record: go-cty skipped: {e.stderr.strip()[-300:]}", file=sys.stderr)
        return {}
    rows = {}
    for line in out.splitlines():
        name, fmt, mbps = line.split()
        rows[(name, fmt)] = float(mbps)
    return rows


def callgrind(args):
    out = run(["bash", os.path.join(HERE, "callgrind.sh")] + ([args.only] if args.only else []))
    return {(l.split()[0], l.split()[1]): (int(l.split()[3]), float(l.split()[4]))
            for l in out.splitlines() if l.strip()}


def compile_times():
    """Median seconds per document of `benches/compile.rs` (criterion's middle estimate)."""
    out = run(["cargo", "bench", "--bench", "compile", "--", "--warm-up-time", "1",
               "--measurement-time", "5"])
    times, name = {}, None
    unit = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("compile/"):
            name = line.split()[0].split("/", 1)[1]
        if line.startswith("time:") and name:
            parts = line.replace("[", " ").replace("]", " ").split()
            times[name] = float(parts[3]) * unit[parts[4]]
            name = None
    return times


def record_base(date):
    """perf/results/DATE, or DATE-2, DATE-3, … when a record of that day exists."""
    base = os.path.join(HERE, "results", date)
    n = 1
    while os.path.exists((base if n == 1 else f"{base}-{n}") + ".md"):
        n += 1
    return base if n == 1 else f"{base}-{n}"


def plot(doc, go, path):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "matplotlib"], check=False)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("record: matplotlib unavailable, no plot", file=sys.stderr)
        return False
    rows = doc["rows"]
    fig, axes = plt.subplots(1, 2, figsize=(14, 5))
    for ax, fmt in zip(axes, ["msgpack", "json"]):
        sel = [r for r in rows if r["format"] == fmt]
        if not sel:
            continue
        names = list(sel[0]["mbps"].keys()) + (["go-cty"] if go else [])
        width = 0.8 / len(names)
        for i, name in enumerate(names):
            vals = [(go.get((r["workload"], fmt)) if name == "go-cty" else r["mbps"].get(name)) or 0
                    for r in sel]
            ax.bar([x + i * width for x in range(len(sel))], vals, width, label=name)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(sel))])
        ax.set_xticklabels([r["workload"] for r in sel], rotation=30, ha="right")
        ax.set_ylabel("MB/s (median)")
        ax.set_yscale("log")
        ax.set_title(f"{fmt}: MB/s per decoder")
        ax.legend(fontsize=8)
    fig.suptitle(f"tfwire {doc['commit']} on {doc['cpu']}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return True


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--round-ms", type=int, default=60)
    p.add_argument("--only", default="")
    p.add_argument("--no-gocty", action="store_true")
    p.add_argument("--callgrind", action="store_true")
    p.add_argument("--compile", action="store_true")
    args = p.parse_args()
    run(["cargo", "build", "--release", "--quiet", "--features", "bench"])
    doc, peak_kib = bench(args)
    go = {} if args.no_gocty else gocty(args)
    cg = callgrind(args) if args.callgrind else {}
    compiled = compile_times() if args.compile else {}
    date = datetime.date.today().isoformat()
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    base = record_base(date)
    record_name = os.path.basename(base)
    doc["gocty_mbps"] = {f"{k[0]}/{k[1]}": v for k, v in go.items()}
    doc["callgrind"] = {f"{k[0]}/{k[1]}": {"instructions": v[0], "per_byte": v[1]} for k, v in cg.items()}
    doc["peak_rss_kib"] = peak_kib
    doc["compile_seconds"] = compiled
    with open(base + ".json", "w") as f:
        json.dump(doc, f, indent=1)
    has_plot = plot(doc, go, base + ".png")
    lines = [f"# Benchmark record {record_name}", "",
             f"- commit `{doc['commit']}`; CPU {doc['cpu']}; {os.cpu_count()} cores; "
             f"{platform.system()} {platform.release()}",
             f"- command: `python3 perf/record.py --rounds {args.rounds} --round-ms {args.round_ms}"
             + (f" --only {args.only}" if args.only else "") + ("" if not args.callgrind else " --callgrind")
             + ("" if not args.compile else " --compile") + "`",
             f"- MB/s = 10^6 bytes/s, median of {args.rounds} interleaved rounds; (×N) = tfwire ÷ peer",
             f"- peak RSS of `tfwire bench`: {peak_kib / 1024:.1f} MiB", ""]
    for fmt in ["msgpack", "json"]:
        sel = [r for r in doc["rows"] if r["format"] == fmt]
        if not sel:
            continue
        peers = list(sel[0]["mbps"].keys())
        extra = ["go-cty"] if go else []
        lines += [f"## {fmt}", "", "| workload | bytes | " + " | ".join(peers + extra) + " |",
                  "|---|---:|" + "---:|" * (len(peers) + len(extra))]
        for r in sel:
            ours = r["mbps"].get("tfwire")
            cells = []
            for name in peers + extra:
                v = go.get((r["workload"], fmt)) if name == "go-cty" else r["mbps"].get(name)
                if v is None:
                    cells.append("—")
                elif name == "tfwire" or not ours:
                    cells.append(f"{v:,.0f}")
                else:
                    cells.append(f"{v:,.0f} (×{ours / v:.2f})")
            lines.append(f"| {r['workload']} | {r['bytes']:,} | " + " | ".join(cells) + " |")
        lines.append("")
    if cg:
        lines += ["## callgrind instructions per decode", "", "| workload | format | instructions | per byte |",
                  "|---|---|---:|---:|"]
        for (name, fmt), (n, pb) in sorted(cg.items()):
            lines.append(f"| {name} | {fmt} | {n:,} | {pb} |")
        lines.append("")
    if compiled:
        lines += ["## schema compile (parse the document, compile every resource and data source)", "",
                  "| document | median ms |", "|---|---:|"]
        for doc_name, secs in compiled.items():
            lines.append(f"| {doc_name} | {secs * 1e3:.1f} |")
        lines.append("")
    if has_plot:
        lines += [f"![MB/s per decoder per workload]({record_name}.png)", ""]
    with open(base + ".md", "w") as f:
        f.write("\n".join(lines))
    print(base + ".md")


if __name__ == "__main__":
    main()
