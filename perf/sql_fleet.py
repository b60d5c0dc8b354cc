#!/usr/bin/env python3
"""SQL over a fleet (issue 24): the same question — how many `aws_instance` of each
`instance_type` — asked of the fleet workload (`perf/fleet_scan.py`'s large compact state and
its 200 files of ~3 MB) by `tfwire sql` with 1 and 2 jobs, by DuckDB (from PyPI: `read_json`
of the states, `unnest` of `resources` and of `instances`, attributes through its JSON
functions) with 1 thread, and by jq (`.resources[] | select(.type == "aws_instance") |
.instances[] | .attributes.instance_type`, counted). tfwire runs with `--skip-unknown-attrs`:
the fleet holds driftctl's states, whose `aws_instance` instances carry attributes the
provider schema loaded lacks (as a provider's upgrade does, they are stepped over; without it
those instances fail and are not rows, and the peers, which know no schema, count them). Every
tool's counts must be equal (the run stops otherwise). Medians of --rounds interleaved
rounds: wall seconds and peak RSS (`/usr/bin/time -v`).

Usage: perf/sql_fleet.py [--fleet DIR] [--rounds R] [--skip-slow]
after `cargo build --release --features bench,sql` and `perf/fleet_scan.py --build-only`.
--skip-slow leaves DuckDB and jq to one round each. Prints a Markdown report on stdout.
"""
import argparse, json, os, statistics, subprocess, sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fleet import TFWIRE, schema_docs  # noqa: E402

QUERY = ("SELECT instance_type, count(*) AS n FROM aws_instance "
         "GROUP BY instance_type ORDER BY instance_type")


def timed(cmd, env=None):
    """Wall seconds, peak RSS (MB) and stdout of `cmd`."""
    start = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    rss = 0.0
    for line in p.stderr.splitlines():
        if "Maximum resident set size" in line:
            rss = int(line.split(":")[1]) / 1024
    if p.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed: {p.stderr[-2000:]}")
    return wall, rss, p.stdout


def tfwire_cmd(docs, states, jobs):
    cmd = [str(TFWIRE), "sql", "--skip-unknown-attrs", "-f", "csv", "-j", str(jobs)]
    for d in docs:
        cmd += ["--schemas", str(d)]
    for s in states:
        cmd += ["--states", str(s)]
    return cmd + [QUERY]


def tfwire_counts(out):
    rows = out.strip().splitlines()[1:]
    return {r.rsplit(",", 1)[0] or None: int(r.rsplit(",", 1)[1]) for r in rows}


DUCK = """
import duckdb, json, sys
con = duckdb.connect(config={"threads": 1})
con.execute("PRAGMA disable_progress_bar")
rows = con.execute('''
  SELECT json_extract_string(inst, '$.attributes.instance_type') AS t, count(*)
  FROM (SELECT unnest(resources) AS r FROM read_json(?, maximum_object_size=1000000000,
        columns={'resources': 'JSON[]'})) AS res,
  LATERAL (SELECT unnest(CAST(json_extract(res.r, '$.instances') AS JSON[])) AS inst) AS i
  WHERE json_extract_string(res.r, '$.type') = 'aws_instance'
    AND json_extract_string(res.r, '$.mode') = 'managed'
  GROUP BY t ORDER BY t''', [sys.argv[1:]]).fetchall()
print(json.dumps({(t if t is not None else ''): n for t, n in rows}))
"""

JQ = ('[.resources[] | select(.type == "aws_instance" and .mode == "managed") | .instances[] '
      '| .attributes.instance_type] | group_by(.) | map({key: (.[0] // ""), value: length}) '
      '| from_entries')


def duck_cmd(states):
    return [sys.executable, "-c", DUCK] + [str(s) for s in states]


def jq_counts(states):
    total = {}
    start = time.perf_counter()
    for s in states:
        p = subprocess.run(["jq", "-c", JQ, str(s)], capture_output=True, text=True, check=True)
        for k, v in json.loads(p.stdout).items():
            total[k] = total.get(k, 0) + v
    return time.perf_counter() - start, total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fleet", default="/tmp/tfwire-fleet-scan")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--skip-slow", action="store_true")
    a = ap.parse_args()
    fleet = Path(a.fleet)
    docs = schema_docs()
    sets = {"large state": [fleet / "large.json"],
            "200 files": sorted((fleet / "files").glob("*.json"))}
    print(f"# SQL over the fleet ({time.strftime('%Y-%m-%d')})\n")
    print(f"Query: `{QUERY}`; tfwire `{TFWIRE}`.\n")
    print("| input | tool | wall s (median) | peak RSS MB | vs tfwire -j 2 |")
    print("|---|---|---:|---:|---:|")
    # tfwire's rounds on every input first, then the peers: right after DuckDB's 5 GB the
    # kernel reclaims and compacts memory for seconds, on the core a second job needs (`-j 2`
    # measured 0.17 s there against 0.13 s before it).
    runs, rss, wants = {}, {}, {}
    for name, states in sets.items():
        # Counts checked equal first.
        _, _, out1 = timed(tfwire_cmd(docs, states, 1))
        wants[name] = want = {(k or ""): v for k, v in tfwire_counts(out1).items()}
        _, _, out2 = timed(tfwire_cmd(docs, states, 2))
        assert tfwire_counts(out2) == tfwire_counts(out1), "jobs 2 differs"
        runs[name] = {"tfwire -j 1": [], "tfwire -j 2": [], "duckdb (1 thread)": [], "jq": []}
        rss[name] = {k: 0.0 for k in runs[name]}
        for r in range(a.rounds):
            for jobs in (1, 2):
                w, m, _ = timed(tfwire_cmd(docs, states, jobs))
                runs[name][f"tfwire -j {jobs}"].append(w)
                rss[name][f"tfwire -j {jobs}"] = max(rss[name][f"tfwire -j {jobs}"], m)
    for name, states in sets.items():
        for r in range(1 if a.skip_slow else a.rounds):
            w, m, duck_out = timed(duck_cmd(states))
            runs[name]["duckdb (1 thread)"].append(w)
            rss[name]["duckdb (1 thread)"] = max(rss[name]["duckdb (1 thread)"], m)
            w, jq = jq_counts(states)
            runs[name]["jq"].append(w)
            for tool, got in (("duckdb", json.loads(duck_out)), ("jq", jq)):
                if r == 0 and got != wants[name]:
                    raise SystemExit(f"{name}: {tool} counts differ: {got} vs {wants[name]}")
    for name in sets:
        base = statistics.median(runs[name]["tfwire -j 2"])
        for tool, walls in runs[name].items():
            med = statistics.median(walls)
            print(f"| {name} | {tool} | {med:.2f} | {rss[name][tool]:.0f} | {med / base:.2f}× |")
    print(f"\nCounts ({len(want)} instance types): {json.dumps(want, sort_keys=True)[:400]}")


if __name__ == "__main__":
    main()
