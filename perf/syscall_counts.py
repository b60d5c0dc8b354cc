"""System calls and page faults of `tfwire state` runs (issue 22 asks for `perf stat -e
page-faults` and `strace -c` beside wall time), for `perf/fleet_scan.py --syscalls`.

Each command runs twice more after the timed rounds, neither run timed:
  - under `perf stat -e page-faults,context-switches,cpu-migrations` (software events, which a
    guest without hardware counters still counts);
  - under `strace -f -c` (every thread followed), whose table gives the calls by name.
strace slows each call, so its run says how many calls there are, not how long they take.
"""
import os
import subprocess
import tempfile

# The calls the reading of the old `--jobs` code counted, and the ones a per-file or
# per-batch allocation shows up in.
NAMED = ("mprotect", "futex", "madvise", "mmap", "munmap", "brk", "read", "write", "openat",
         "clone3")
EVENTS = ("page-faults", "context-switches", "cpu-migrations")


def strace_counts(cmd):
    """Calls by name over every thread of one run of `cmd` (stdout to /dev/null), with
    'total' for the sum; exit code too."""
    with tempfile.NamedTemporaryFile(suffix=".strace") as f, open(os.devnull, "wb") as null:
        p = subprocess.run(["strace", "-f", "-c", "-o", f.name, *cmd], stdout=null,
                           stderr=subprocess.DEVNULL)
        text = open(f.name).read()
    counts = {}
    for line in text.splitlines():
        parts = line.split()
        # "% time  seconds  usecs/call  calls  [errors]  syscall"
        if len(parts) >= 5 and parts[0].replace(".", "", 1).isdigit():
            counts[parts[-1]] = int(parts[3])
    return counts, p.returncode


def perf_events(cmd):
    """`perf stat`'s software event counts for one run of `cmd`; exit code too."""
    with tempfile.NamedTemporaryFile(suffix=".perf") as f, open(os.devnull, "wb") as null:
        p = subprocess.run(["perf", "stat", "-x", ",", "-o", f.name, "-e", ",".join(EVENTS),
                            *cmd], stdout=null, stderr=subprocess.DEVNULL)
        text = open(f.name).read()
    counts = {}
    for line in text.splitlines():
        parts = line.split(",")
        if len(parts) >= 3 and parts[2] in EVENTS and parts[0].isdigit():
            counts[parts[2]] = int(parts[0])
    return counts, p.returncode


def measure(cases):
    """{name: (strace counts, perf counts)} for each of `cases` ({name: command}); exits
    when a run fails (exit code other than 0 or 1) or a tool gives nothing."""
    found = {}
    for name, cmd in cases.items():
        calls, rc = strace_counts(cmd)
        if rc not in (0, 1) or "total" not in calls:
            raise SystemExit(f"{name}: strace -f -c: exit {rc}, no call table")
        events, rc = perf_events(cmd)
        if rc not in (0, 1) or "page-faults" not in events:
            raise SystemExit(f"{name}: perf stat: exit {rc}, no page-faults count")
        found[name] = (calls, events)
    return found


def table(title, first, columns, rows):
    """A Markdown table under `title`: a command column, `first`, then `columns`; `rows` maps
    each command to its cells (the first column's, then the others')."""
    print(title)
    print()
    print(f"| command | {first} | " + " | ".join(columns) + " |")
    print("|---|---:|" + "---:|" * len(columns))
    for name, cells in rows.items():
        print(f"| {name} | " + " | ".join(cells) + " |")


def report(found, sys_seconds):
    """Markdown tables: the events, then the calls; `sys_seconds` maps each name to the
    median system seconds of the timed rounds."""
    table("System time (median of the timed rounds) and `perf stat` software events (one more "
          "run):", "sys s", EVENTS,
          {name: [f"{sys_seconds[name]:.2f}"] + [str(events.get(e, 0)) for e in EVENTS]
           for name, (_, events) in found.items()})
    print()
    table("System calls, `strace -f -c` (one more run, every thread):", "total", NAMED,
          {name: [str(calls["total"])] + [str(calls.get(c, 0)) for c in NAMED]
           for name, (calls, _) in found.items()})
