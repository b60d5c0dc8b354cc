#!/usr/bin/env python3
"""Fleet workload for `tfwire state` (issue 11), built from the corpus's state files.

Builds, seeded and reproducible (same seed, same bytes):
  OUT/many/NNNNN.tfstate   many state files: each a corpus state (format 4, with resources)
                           picked at random, its resources renamed `NAME_fN_K` so no two
                           files are alike;
  OUT/large.tfstate        one large state: corpus resources repeated with distinct names
                           until it reaches --large-mb.
Then measures, in the same run: `tfwire state --format ndjson` over the many files with
--jobs 1 and --jobs 2 (seconds, MB/s, instances/s; the two outputs must be byte-identical),
the large state with --jobs 1 and --jobs 2 (peak RSS from /usr/bin/time -v; MB/s on the wall
clock and beyond the fixed cost of an empty state with the same schemas), where the large
state's time goes (reading the file alone; walking its instances with no schema matching;
decoding without writing values), and tfwire's one-value JSON decode of `aws_states`
(`tfwire bench`) for scale.

Usage: perf/fleet.py [--out DIR] [--files N] [--large-mb M] [--seed S] [--no-measure]
after `cargo build --release --features bench` (target/release/tfwire, with `tfwire bench`).
The schemas are every providers-schema document of the corpus that loads (as the corpus test
passes them). Data: ../shared/corpus (its SOURCES.md names each file's source and license).
"""
import argparse, json, os, random, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("TFWIRE_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "corpus"
# The binary `cargo build --release` made: under $CARGO_TARGET_DIR when set (a second build
# with other flags, such as `RUSTFLAGS="-C target-cpu=native"`, kept apart from the first).
TFWIRE = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "tfwire"


def corpus_states():
    out = []
    for p in sorted((CORPUS / "states").rglob("*")):
        if not p.is_file():
            continue
        try:
            doc = json.loads(p.read_text())
        except (ValueError, UnicodeDecodeError):
            continue
        if isinstance(doc, dict) and doc.get("version") == 4 and doc.get("resources"):
            out.append((p, doc))
    return out


def schema_docs():
    docs = sorted((CORPUS / "schemas").glob("*.json")) + sorted((CORPUS / "schemas" / "derived").glob("*.json"))
    empty = Path("/tmp/tfwire-fleet-empty.tfstate")
    empty.write_text('{"version":4}')
    ok = [d for d in docs if subprocess.run([str(TFWIRE), "state", "--schemas", str(d), str(empty)],
                                            capture_output=True).returncode == 0]
    empty.unlink()
    return ok


def renamed(doc, tag):
    doc = json.loads(json.dumps(doc))
    for r in doc["resources"]:
        r["name"] = f'{r["name"]}_{tag}'
    return doc


def build(out, files, large_mb, seed):
    rng = random.Random(seed)
    states = corpus_states()
    many = out / "many"
    many.mkdir(parents=True, exist_ok=True)
    for i in range(files):
        _, doc = states[rng.randrange(len(states))]
        (many / f"{i:05d}.tfstate").write_text(json.dumps(renamed(doc, f"f{i}"), indent=2))
    resources = [r for _, d in states for r in d["resources"]]
    target = large_mb * 1_000_000
    with open(out / "large.tfstate", "w") as f:
        f.write('{\n  "version": 4,\n  "terraform_version": "1.9.0",\n  "serial": 1,\n  "lineage": "fleet",\n  "outputs": {},\n  "resources": [\n')
        size, k = 0, 0
        while size < target:
            r = json.loads(json.dumps(resources[rng.randrange(len(resources))]))
            r["name"] = f'{r["name"]}_l{k}'
            text = ("" if k == 0 else ",\n") + json.dumps(r, indent=2)
            f.write(text)
            size += len(text)
            k += 1
        f.write("\n  ]\n}\n")
    return states


def run(args, label, stdout=None):
    """Runs a command; its output goes to the file `stdout` (a pipe read by this script
    would compete with the workers for the two cores), or is captured."""
    start = time.perf_counter()
    if stdout is None:
        p = subprocess.run(args, capture_output=True)
    else:
        with open(stdout, "wb") as f:
            p = subprocess.run(args, stdout=f, stderr=subprocess.PIPE)
    secs = time.perf_counter() - start
    lines = p.stderr.decode().splitlines()
    summary = next((l for l in lines if l.startswith("tfwire: instances=")), "")
    return p, secs, summary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/tfwire-fleet")
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--large-mb", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-measure", action="store_true")
    a = ap.parse_args()
    out = Path(a.out)
    build(out, a.files, a.large_mb, a.seed)
    if a.no_measure:
        return
    docs = schema_docs()
    schemas = [x for d in docs for x in ("--schemas", str(d))]
    many = sorted(str(p) for p in (out / "many").glob("*.tfstate"))
    many_bytes = sum(os.path.getsize(p) for p in many)
    outputs = {}
    print(f"# tfwire state fleet — {len(many)} files, {many_bytes/1e6:.1f} MB; large {os.path.getsize(out/'large.tfstate')/1e6:.1f} MB")
    # Seven interleaved runs of each (a noisy 2-core machine): medians. The output goes to a
    # file (as `> out.ndjson` would), compared after the runs.
    times = {1: [], 2: []}
    summaries = {}
    for _ in range(7):
        for jobs in (1, 2):
            dest = out / f"many-j{jobs}.ndjson"
            p, secs, summary = run([str(TFWIRE), "state", *schemas, "--format", "ndjson", "--jobs", str(jobs), *many], f"many j{jobs}", stdout=dest)
            outputs[jobs] = dest.read_bytes()
            times[jobs].append(secs)
            summaries[jobs] = summary
    for jobs in (1, 2):
        secs = sorted(times[jobs])[3]
        summary = summaries[jobs]
        inst = int(summary.split("instances=")[1].split()[0]) if "instances=" in summary else 0
        runs_text = " ".join(f"{t:.2f}" for t in times[jobs])
        print(f"many --jobs {jobs}: median {secs:.2f} s of [{runs_text}], {many_bytes/1e6/secs:.1f} MB/s, {inst/secs:.0f} instances/s ({summary})")
    speedup = sorted(times[1])[3] / sorted(times[2])[3]
    print(f"--jobs 2 / --jobs 1 speed-up (medians): {speedup:.2f}x; outputs identical: {outputs[1] == outputs[2]}")
    time_bin = "/usr/bin/time"
    large = str(out / "large.tfstate")
    large_mb = os.path.getsize(large) / 1e6
    # The fixed cost of a run (start-up, loading and indexing the schema documents): the same
    # command on an empty state. Throughput is reported both on the wall-clock time and on
    # the time beyond that fixed cost (the rate at which the state itself is read).
    empty = out / "empty.tfstate"
    empty.write_text('{"version":4}')
    base = min(run([str(TFWIRE), "state", *schemas, "--format", "ndjson", "--jobs", "1", str(empty)], "empty")[1]
               for _ in range(3))
    print(f"fixed cost (empty state, same schemas): {base:.2f} s")
    for jobs in (1, 2):
        cmd = [str(TFWIRE), "state", *schemas, "--format", "ndjson", "--jobs", str(jobs), large]
        if not os.path.exists(time_bin):
            break
        start = time.perf_counter()
        p = subprocess.run([time_bin, "-v", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        secs = time.perf_counter() - start
        err = p.stderr.decode()
        rss = next((l.split(":")[1].strip() for l in err.splitlines() if "Maximum resident" in l), "0")
        summary = next((l for l in err.splitlines() if l.startswith("tfwire: instances=")), "")
        inst = int(summary.split("instances=")[1].split()[0]) if "instances=" in summary else 0
        print(f"large --jobs {jobs}: {secs:.2f} s, {large_mb/secs:.0f} MB/s wall, "
              f"{large_mb/max(secs-base, 1e-9):.0f} MB/s beyond the fixed cost, "
              f"{inst/max(secs-base, 1e-9):.0f} instances/s, peak RSS {int(rss)/1024:.0f} MiB ({summary})")
    # Where the large state's time goes (--jobs 1, each the median of three runs): reading
    # the file alone (the kernel's copy, 1 MiB reads); walking its instances with no schema
    # for any type (the envelope and a validating skip of every `attributes`, one short line
    # each); decoding them without writing values (`--format text`). The NDJSON run above adds
    # the DUMP of each value.
    def median3(f):
        return sorted(f() for _ in range(3))[1]

    def read_file():
        start = time.perf_counter()
        with open(large, "rb", buffering=0) as f:
            while f.read(1 << 20):
                pass
        return time.perf_counter() - start

    nothing = out / "no-schemas.json"
    nothing.write_text('{"format_version":"1.0","provider_schemas":{}}')
    walk_cmd = [str(TFWIRE), "state", "--schemas", str(nothing), "--format", "ndjson", "--jobs", "1", large]
    text_cmd = [str(TFWIRE), "state", *schemas, "--format", "text", "--jobs", "1", large]
    print(f"large, where the time goes (--jobs 1, medians of 3): read the file {median3(read_file):.3f} s; "
          f"walk, no schema matching {median3(lambda: run(walk_cmd, 'walk', stdout=os.devnull)[1]):.2f} s; "
          f"decode, no values written (--format text) {median3(lambda: run(text_cmd, 'text', stdout=os.devnull)[1]):.2f} s")
    bench = subprocess.run([str(TFWIRE), "bench", "--only", "aws_states", "--format", "json", "--contenders", "tfwire", "--rounds", "5", "--json"], capture_output=True)
    try:
        mbps = json.loads(bench.stdout)["rows"][0]["mbps"]["tfwire"]
        print(f"tfwire one-value JSON decode, aws_states: {mbps:.0f} MB/s (same run)")
    except (ValueError, KeyError, IndexError):
        print("tfwire bench failed:", bench.stderr.decode()[:200])


if __name__ == "__main__":
    sys.exit(main())
