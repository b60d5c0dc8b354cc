"""Issue 22's figures of one value at a time, measured inside `fleet_scan.py --codec` so that
every figure of the issue comes from one run: once a fleet round,

- `tfwire bench --only aws_instance --format msgpack` (tfwire's projection of
  `aws_instance[*].id`, `.instance_type`, `.tags` against the bare skip walk; its skip and
  full decode beside them);
- `tfwire bench --only aws_instance,aws_states --format json` (the projection against
  sonic-rs's 3-field struct and tfwire's full decode; `skip_json` against serde_json's
  `IgnoredAny`);
- `benches/state_parsers.rs` (`skip_json` against `IgnoredAny` on the large state, from
  memory), built once by `cargo bench --no-run`.

Each of those is itself a median of interleaved rounds (for the large state, the median of
its rounds' ratios, as the bench prints it); the report gives, for each figure, the median
of the fleet rounds' values and their range. A contender that failed (`null` in `tfwire
bench --json`) makes the figures that use it "failed".
"""
import json, math, os, subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (figure, asked, (input, contender), over (input, contender) or None): each round's value is
# the one MB/s over the other, or (None) a figure the bench gives itself.
FIGURES = [
    ("MessagePack projection / bare skip walk, aws_instance", "≥ 0.8×",
     ("msgpack", "tfwire_project"), ("msgpack", "skip_walk")),
    ("JSON projection / sonic-rs 3-field struct, aws_instance", "≥ 2×",
     ("aws_instance", "tfwire_project"), ("aws_instance", "sonic_rs_3field")),
    ("JSON projection / tfwire full decode, aws_instance", "≥ 1.5×",
     ("aws_instance", "tfwire_project"), ("aws_instance", "tfwire")),
] + [(f"JSON skip / serde_json IgnoredAny, {workload}", "≥ 2×", (workload, "tfwire_skip"),
      (workload, "serde_json_skip")) for workload in ("aws_instance", "aws_states")] + [
    # (state_parsers' own ratio: the median of its rounds' ratios.)
    ("JSON skip / serde_json IgnoredAny, the large state", "≥ 2×", ("large", "ratio"), None),
]


def state_parsers_exe():
    """Builds `benches/state_parsers.rs` (bench profile) and returns its executable."""
    p = subprocess.run(["cargo", "bench", "--bench", "state_parsers", "--no-run",
                        "--message-format=json"], cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"codec_figures: cargo bench --no-run failed:\n{p.stderr[-3000:]}")
    for line in p.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and \
                msg["target"]["name"] == "state_parsers":
            return msg["executable"]
    raise SystemExit("codec_figures: cargo built no state_parsers executable")


def bench(tfwire, fmt, only, contenders, rounds):
    """`tfwire bench --json`: MB/s by contender, by workload."""
    out = subprocess.run([str(tfwire), "bench", "--only", only, "--format", fmt, "--contenders",
                          contenders, "--rounds", str(rounds), "--json"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    nan = float("nan")
    return {row["workload"]: {k: nan if v is None else v for k, v in row["mbps"].items()}
            for row in json.loads(out)["rows"]}


def large_skips(exe, large):
    """`skip_json` and `IgnoredAny` MB/s on the large state and the median of their rounds'
    ratios (state_parsers, 5 rounds)."""
    env = dict(os.environ, TFWIRE_FLEET_STATE=str(large),
               TFWIRE_STATE_PARSERS="tfwire_skip,serde_json_skip", TFWIRE_STATE_ROUNDS="5")
    out = subprocess.run([exe], cwd=ROOT, env=env, check=True, capture_output=True,
                         text=True).stdout
    found = {}
    for line in out.splitlines():
        name, _, rest = line.partition(": state ")
        if name in ("tfwire_skip", "serde_json_skip"):
            found[name] = float(rest.split()[0])
        elif name == "skip_json / IgnoredAny":
            found["ratio"] = float(rest.split("x")[0])
    if len(found) != 3:
        raise SystemExit(f"codec_figures: state_parsers printed no rates:\n{out}")
    return found


def measure_round(tfwire, exe, large):
    """One round of every codec measurement."""
    m = {"msgpack": bench(tfwire, "msgpack", "aws_instance",
                          "skip_walk,tfwire_skip,tfwire_project,tfwire", 15)["aws_instance"]}
    m.update(bench(tfwire, "json", "aws_instance,aws_states",
                   "tfwire,tfwire_skip,serde_json_skip,tfwire_project,sonic_rs_3field", 11))
    m["large"] = large_skips(exe, large)
    return m


def report(rounds, median):
    """Markdown: each round's MB/s, then each figure's median over the rounds."""
    print("Codec rounds (MB/s; each a median of `tfwire bench`'s or state_parsers' own rounds):")
    print()
    print("| round | msgpack full / project / skip / skip_walk | json aws_instance full / project / "
          "sonic 3-field / skip / IgnoredAny | aws_states skip / IgnoredAny | large skip / "
          "IgnoredAny |")
    print("|---:|---|---|---|---|")
    for i, m in enumerate(rounds, 1):
        p, j, s, g = m["msgpack"], m["aws_instance"], m["aws_states"], m["large"]
        print(f"| {i} | {p['tfwire']:.0f} / {p['tfwire_project']:.0f} / {p['tfwire_skip']:.0f} / "
              f"{p['skip_walk']:.0f} | "
              f"{j['tfwire']:.0f} / {j['tfwire_project']:.0f} / {j['sonic_rs_3field']:.0f} / "
              f"{j['tfwire_skip']:.0f} / {j['serde_json_skip']:.0f} | "
              f"{s['tfwire_skip']:.0f} / {s['serde_json_skip']:.0f} | "
              f"{g['tfwire_skip']:.0f} / {g['serde_json_skip']:.0f} |")
    print()
    print("| figure (issue 22) | median of rounds (range) | asked |")
    print("|---|---:|---:|")
    for name, asked, (a, x), over in FIGURES:
        values = [m[a][x] / (m[over[0]][over[1]] if over else 1.0) for m in rounds]
        if any(math.isnan(v) for v in values):
            print(f"| {name} | failed (a contender gave no rate) | {asked} |")
            continue
        print(f"| {name} | {median(values):.2f}× ({min(values):.2f}–{max(values):.2f}) | "
              f"{asked} |")
