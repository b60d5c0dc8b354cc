#!/usr/bin/env python3
"""Fleet scans (issue 22): `tfwire state` on a large compact state, on 200 files of ~3 MB,
on pretty-printed twins of both (as Terraform writes state), with --jobs 1 and 2, and with
`--type aws_instance --select tags`.

Builds, seeded and reproducible, from the corpus's state files (`perf/fleet.py`'s helpers):
  OUT/large.json           one compact state (no whitespace) of the corpus's resources
                           repeated with distinct names until it reaches --large-mb;
  OUT/large.pretty.json    the same state indented by two spaces;
  OUT/files/NNN.json       --files compact states of about --file-mb each;
  OUT/files-pretty/NNN.json  their indented twins.
Measures, in one run, --rounds interleaved rounds (medians): wall, user and system seconds,
minor page faults and peak RSS (`/usr/bin/time -v`) of each command, stdout to /dev/null
for timing and to a file once per command to check that every --jobs gives the same bytes;
and tfwire's one-value JSON decode of `aws_states` (`tfwire bench`) for scale, once a round
just before the large state's --jobs 1 run. Each ratio is given as the ratio of the medians
and, in parentheses, as the median of the rounds' ratios: on a machine shared with others
(a host's L3 cache and memory) a run's speed moves by up to 1.8× between runs seconds apart,
and the two commands of a round ran next to each other.

Each state's resources are in the order Terraform writes them (`--order terraform`, the
default): sorted by module, mode, type and name, as `writeStateV4` sorts them
(`internal/states/statefile/version4.go`, `sortResourcesV4`), so that a type's resources are
next to each other. `--order random` keeps the order they were picked in (every type mixed
with every other: no state Terraform writes looks like that), which the figures before
2026-11-27's sixteenth session were measured on.

With `--parquet` (a binary built with `--features bench,parquet`), also `--format parquet`
on the large state with --jobs 1 and 2 (issue 23's figures against the NDJSON run).

With `--codec`, also issue 22's figures of one value at a time, once a round in the same run
(`perf/codec_figures.py`: the projection and the skips in `tfwire bench`, and the skip on the
large state in `benches/state_parsers.rs`), so that every figure of the issue comes from one
run.

With `--one-resource MB`, also a state of one `aws_instance` resource of MB megabytes of
instances (OUT/one.json: no part of the file starts a resource), --jobs 1 and 2.

With `--syscalls`, also one more run of each compact --jobs 1 and --jobs 2 command under
`perf stat -e page-faults,...` and one under `strace -f -c` (`perf/syscall_counts.py`): page
faults, context switches and system calls by name beside the timed rounds' system time.

Usage: perf/fleet_scan.py [--out DIR] [--large-mb M] [--files N] [--file-mb F] [--rounds R]
                          [--order terraform|random] [--parquet] [--codec] [--syscalls]
                          [--one-resource MB] [--reuse] [--build-only]
after `cargo build --release --features bench`. sonic-rs picks its SIMD code when it is
compiled (`-C target-cpu=native` or `-C target-feature=+avx2,+pclmulqdq`; else its portable
code), tfwire at run time: to measure a native build, build it and run this with the same
`RUSTFLAGS="-C target-cpu=native" CARGO_TARGET_DIR=DIR` (the binary is taken from
$CARGO_TARGET_DIR, and `--codec` builds its bench there too). Prints a Markdown report on stdout (record
it in perf/results/DATE.md). Data: ../shared/corpus (SOURCES.md names each file's source and
license); the states built are not kept in the repository.
"""
import argparse, hashlib, json, os, random, shutil, subprocess, sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fleet import TFWIRE, corpus_states, schema_docs  # noqa: E402
import codec_figures  # noqa: E402
import syscall_counts  # noqa: E402

COMPACT = (",", ":")


def state_text(resources, indent):
    doc = {"version": 4, "terraform_version": "1.9.0", "serial": 1, "lineage": "fleet",
           "outputs": {}, "resources": resources}
    if indent:
        return json.dumps(doc, indent=2) + "\n"
    return json.dumps(doc, separators=COMPACT)


def terraform_order(resources):
    """Sorted as Terraform's state writer sorts them: module ("" for the root), mode ("data"
    before "managed", as Go compares the strings), type, name; stable."""
    return sorted(resources, key=lambda r: (r.get("module", ""), r["mode"], r["type"], r["name"]))


def build(out, large_mb, files, file_mb, seed, order):
    rng = random.Random(seed)
    arrange = terraform_order if order == "terraform" else list
    resources = [r for _, d in corpus_states() for r in d["resources"]]

    def fill(target, tag):
        picked, size, k = [], 0, 0
        while size < target:
            r = json.loads(json.dumps(resources[rng.randrange(len(resources))]))
            r["name"] = f'{r["name"]}_{tag}{k}'
            picked.append(r)
            size += len(json.dumps(r, separators=COMPACT))
            k += 1
        return picked

    large = arrange(fill(large_mb * 1_000_000, "l"))
    (out / "large.json").write_text(state_text(large, False))
    (out / "large.pretty.json").write_text(state_text(large, True))
    for sub in ("files", "files-pretty"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for i in range(files):
        rs = arrange(fill(int(file_mb * 1_000_000), f"f{i}_"))
        (out / "files" / f"{i:03d}.json").write_text(state_text(rs, False))
        (out / "files-pretty" / f"{i:03d}.json").write_text(state_text(rs, True))


def build_one_resource(path, mb):
    """One compact state of one resource, `aws_instance` of the corpus, whose instances (every
    corpus instance of the type in turn, `index_key` "kN") fill about `mb` MB: a `for_each`
    of many instances, which no part boundary of the file falls between resources of."""
    resources = [r for _, d in corpus_states() for r in d["resources"]
                 if r["type"] == "aws_instance" and r["mode"] == "managed"]
    instances = [i for r in resources for i in r["instances"] if "attributes" in i]
    resource, picked, size, k = dict(resources[0]), [], 0, 0
    while size < mb * 1_000_000:
        instance = json.loads(json.dumps(instances[k % len(instances)]))
        instance["index_key"] = f"k{k}"
        picked.append(instance)
        size += len(json.dumps(instance, separators=COMPACT))
        k += 1
    resource["instances"] = picked
    path.write_text(state_text([resource], False))


def timed(cmd, stdout_path=os.devnull):
    """One run under /usr/bin/time -v: wall, user, sys seconds, minor faults, peak RSS MiB
    and the summary line."""
    start = time.perf_counter()
    with open(stdout_path, "wb") as f:
        p = subprocess.run(["/usr/bin/time", "-v", *cmd], stdout=f, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    err = p.stderr.decode()

    def field(name):
        return next((l.split(":", 1)[1].strip() for l in err.splitlines() if name in l), "0")

    summary = next((l for l in err.splitlines() if l.startswith("tfwire: instances=")), "")
    return {"wall": wall, "user": float(field("User time")), "sys": float(field("System time")),
            "faults": int(field("Minor (reclaiming a frame) page faults")),
            "rss": int(field("Maximum resident set size")) / 1024, "summary": summary,
            "rc": p.returncode}


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/tfwire-fleet-scan")
    ap.add_argument("--large-mb", type=int, default=330)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--file-mb", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--order", choices=("terraform", "random"), default="terraform",
                    help="resources sorted as Terraform writes them, or in the order picked")
    ap.add_argument("--parquet", action="store_true",
                    help="also --format parquet on the large state (--features parquet)")
    ap.add_argument("--codec", action="store_true",
                    help="also the projection and skip figures, once a round (codec_figures.py)")
    ap.add_argument("--syscalls", action="store_true",
                    help="also page faults (perf stat) and system calls (strace -f -c), one run each")
    ap.add_argument("--one-resource", type=int, default=0, metavar="MB",
                    help="also a state of one resource of MB megabytes (OUT/one.json), --jobs 1 and 2")
    ap.add_argument("--reuse", action="store_true",
                    help="keep the states OUT already holds (when built in the same --order)")
    ap.add_argument("--build-only", action="store_true", help="build the states, measure nothing")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    order_file = out / "ORDER"
    built_order = order_file.read_text().strip() if order_file.exists() else "random"
    if not (a.reuse and (out / "large.json").exists() and built_order == a.order):
        build(out, a.large_mb, a.files, a.file_mb, a.seed, a.order)
        order_file.write_text(a.order + "\n")
    one = out / "one.json"
    if a.one_resource and not (a.reuse and one.exists()):
        build_one_resource(one, a.one_resource)
    if a.build_only:
        return
    docs = schema_docs()
    schemas = [x for d in docs for x in ("--schemas", str(d))]
    files = sorted(str(p) for p in (out / "files").glob("*.json"))
    pretty_files = sorted(str(p) for p in (out / "files-pretty").glob("*.json"))
    base = [str(TFWIRE), "state", *schemas, "--format", "ndjson"]
    cases = {
        "large j1": [*base, "--jobs", "1", str(out / "large.json")],
        "large j2": [*base, "--jobs", "2", str(out / "large.json")],
        "large pretty j1": [*base, "--jobs", "1", str(out / "large.pretty.json")],
        "large pretty j2": [*base, "--jobs", "2", str(out / "large.pretty.json")],
        "files j1": [*base, "--jobs", "1", *files],
        "files j2": [*base, "--jobs", "2", *files],
        "files pretty j1": [*base, "--jobs", "1", *pretty_files],
        "files pretty j2": [*base, "--jobs", "2", *pretty_files],
        "large type+select j1": [*base, "--jobs", "1", "--type", "aws_instance", "--select",
                                 "tags", str(out / "large.json")],
    }
    if a.one_resource:
        cases["one resource j1"] = [*base, "--jobs", "1", str(one)]
        cases["one resource j2"] = [*base, "--jobs", "2", str(one)]
    tables = out / "tables"
    parquet = [str(TFWIRE), "state", *schemas, "--format", "parquet", "--out", str(tables)]
    parquet_cases = {
        "large parquet j1": [*parquet, "--jobs", "1", str(out / "large.json")],
        "large parquet j2": [*parquet, "--jobs", "2", str(out / "large.json")],
    } if a.parquet else {}
    # Same bytes for every --jobs (and the pretty twins give the same lines but for the file
    # names, which differ).
    digests = {}
    for name, cmd in cases.items():
        dest = out / "out.ndjson"
        r = timed(cmd, dest)
        digests[name] = hashlib.sha256(dest.read_bytes()).hexdigest()
        if r["rc"] not in (0, 1):
            sys.exit(f"{name}: exit {r['rc']}: {r['summary']}")
    for name, cmd in parquet_cases.items():
        shutil.rmtree(tables, ignore_errors=True)
        r = timed(cmd)
        if r["rc"] not in (0, 1):
            sys.exit(f"{name}: exit {r['rc']}: {r['summary']}")
    cases.update(parquet_cases)
    def one_value_mbps():
        """tfwire's one-value JSON decode of aws_states (`tfwire bench`), MB/s."""
        bench = subprocess.run([str(TFWIRE), "bench", "--only", "aws_states", "--format", "json",
                                "--contenders", "tfwire", "--rounds", "5", "--json"],
                               capture_output=True)
        try:
            return json.loads(bench.stdout)["rows"][0]["mbps"]["tfwire"]
        except (ValueError, KeyError, IndexError):
            return float("nan")

    runs = {name: [] for name in cases}
    parsers = codec_figures.state_parsers_exe() if a.codec else None
    codec_rounds = []
    # The one-value decode once a round, just before the large state's --jobs 1 run.
    one_values = []
    for _ in range(a.rounds):
        for name, cmd in cases.items():
            shutil.rmtree(tables, ignore_errors=True)
            if name == "large j1":
                one_values.append(one_value_mbps())
            runs[name].append(timed(cmd))
        if parsers:
            codec_rounds.append(codec_figures.measure_round(TFWIRE, parsers, out / "large.json"))
    shutil.rmtree(tables, ignore_errors=True)
    counted = ("large j1", "large j2", "files j1", "files j2")
    syscalls = syscall_counts.measure({n: cases[n] for n in counted}) if a.syscalls else None
    one_value = median(one_values)
    size = {"large": os.path.getsize(out / "large.json"),
            "large pretty": os.path.getsize(out / "large.pretty.json"),
            "files": sum(os.path.getsize(p) for p in files),
            "files pretty": sum(os.path.getsize(p) for p in pretty_files),
            "one resource": os.path.getsize(one) if a.one_resource else 0}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            cwd=Path(__file__).resolve().parent).stdout.decode().strip()
    flags = os.environ.get("RUSTFLAGS", "").strip()
    print(f"# tfwire state fleet scans (issue 22) — commit {commit}, {os.cpu_count()} cores, "
          f"medians of {a.rounds} interleaved rounds, stdout to /dev/null, resources in "
          f"{'Terraform' if a.order == 'terraform' else 'random'} order, built with "
          f"{'RUSTFLAGS=' + repr(flags) if flags else 'the default flags'} ({TFWIRE})")
    print()
    print(f"large {size['large']/1e6:.0f} MB compact, {size['large pretty']/1e6:.0f} MB pretty; "
          f"{len(files)} files, {size['files']/1e6:.0f} MB compact, {size['files pretty']/1e6:.0f} MB pretty; "
          f"{len(docs)} schema documents")
    print()
    print("| command | wall s | MB/s (compact bytes) | user s | sys s | minor faults | peak RSS MiB | summary |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    med = {}
    for name, rs in runs.items():
        m = {k: median([r[k] for r in rs]) for k in ("wall", "user", "sys", "faults", "rss")}
        med[name] = m
        key = next(k for k in ("files", "one resource", "large") if name.startswith(k))
        print(f"| {name} | {m['wall']:.2f} | {size[key]/1e6/m['wall']:.0f} | {m['user']:.2f} | "
              f"{m['sys']:.2f} | {m['faults']} | {m['rss']:.0f} | {rs[0]['summary'][8:]} |")
    print()

    def ratio(a_, b_):
        return med[b_]["wall"] / med[a_]["wall"]

    def per_round(a_, b_):
        """The median of each round's ratio (the two commands ran seconds apart, in the
        same phase of a machine whose speed moves between runs)."""
        return median([rb["wall"] / ra["wall"] for ra, rb in zip(runs[a_], runs[b_])])

    def both(a_, b_):
        return f"{ratio(a_, b_):.2f}× ({per_round(a_, b_):.2f}×)"

    j1_mbps = size["large"] / 1e6 / med["large j1"]["wall"]
    j1_round = median([size["large"] / 1e6 / r["wall"] / v
                       for r, v in zip(runs["large j1"], one_values)])
    print(f"tfwire one-value JSON decode of aws_states (same run, once a round): median "
          f"{one_value:.0f} MB/s of " + " ".join(f"{v:.0f}" for v in one_values))
    print()
    # A --jobs 1 run's CPU seconds, round by round: on a machine shared with others they
    # are not one figure (its single thread is sometimes much faster), which moves every
    # ratio against it.
    for name in ("large j1", "large j2", "files j1", "files j2"):
        cpu = " ".join(f"{r['user'] + r['sys']:.2f}" for r in runs[name])
        print(f"{name}: CPU seconds by round: {cpu}")
    print()
    print("Measured: the ratio of the medians (the median of the rounds' ratios).")
    print()
    print("| figure (issue 22) | measured | asked |")
    print("|---|---:|---:|")
    print(f"| large: --jobs 2 / --jobs 1 | {both('large j2', 'large j1')} | ≥ 1.6× |")
    print(f"| large: --jobs 1 / one-value decode of aws_states | {j1_mbps/one_value:.2f}× ({j1_round:.2f}×) | ≥ 0.4× |")
    print(f"| 200 files: --jobs 2 / --jobs 1 | {both('files j2', 'files j1')} | ≥ 1.6× |")
    print(f"| large pretty / compact time, --jobs 1 | {both('large j1', 'large pretty j1')} | ≤ 1.5× |")
    print(f"| files pretty / compact time, --jobs 1 | {both('files j1', 'files pretty j1')} | ≤ 1.5× |")
    print(f"| peak RSS, large --jobs 1 | {med['large j1']['rss']:.0f} MiB | < 128 MiB |")
    print(f"| --type aws_instance --select tags / plain, large --jobs 1 | {both('large type+select j1', 'large j1')} | ≥ 3× |")
    same = (digests["large j1"] == digests["large j2"] and digests["files j1"] == digests["files j2"]
            and digests["large pretty j1"] == digests["large pretty j2"]
            and digests["files pretty j1"] == digests["files pretty j2"])
    if a.one_resource:
        same = same and digests["one resource j1"] == digests["one resource j2"]
    print(f"| byte-identical output for every --jobs | {same} | yes |")
    if a.one_resource:
        print(f"| one resource of {size['one resource']/1e6:.0f} MB: --jobs 2 / --jobs 1 "
              f"| {both('one resource j2', 'one resource j1')} | (not asked) |")
    if syscalls:
        print()
        syscall_counts.report(syscalls, {n: med[n]["sys"] for n in counted})
    if codec_rounds:
        print()
        codec_figures.report(codec_rounds, median)
    if parquet_cases:
        print()
        print("| figure (issue 23) | measured | asked |")
        print("|---|---:|---:|")
        print(f"| large: --format parquet / --format ndjson, --jobs 1 | {both('large parquet j1', 'large j1')} | ≥ 0.5× |")
        print(f"| large parquet: --jobs 2 / --jobs 1 | {both('large parquet j2', 'large parquet j1')} | ≥ 1.6× |")
        print(f"| peak RSS, large parquet --jobs 1 | {med['large parquet j1']['rss']:.0f} MiB | < 256 MiB |")


if __name__ == "__main__":
    sys.exit(main())
