"""``dpproofs check [ID ...]``: check registered claims and compare with what is expected.

By default every claim is checked at its pinned points plus :data:`DEFAULT_EXAMPLES` drawn
examples (a newcomer's first command: well under two minutes on two cores); ``--full`` is the
campaign of :data:`FULL_EXAMPLES` examples per claim, ``--examples N`` any other number.

An ``ID`` selects exactly that claim; a glob pattern (``'PAPER.RESULT.*'``,
``'PAPER*'``) every claim it matches; ``--prefix`` makes an ``ID`` also select the claims
under it (see :func:`dpproofs.checker.registry.select`).

Claims are checked in parallel by ``--workers`` processes (default: one per core; a
``multiprocessing`` pool forked from this process once it has loaded the claims, one task per
result module, the biggest first, each worker replaced after :data:`TASKS_PER_WORKER` tasks so
that its caches cannot grow without bound; ``--workers 1`` checks in this process). Each claim is
a pure function of its id, the number of examples, the seed and the digits
(:func:`check_one`), and the results are reported in registry order, so the output is the same
whatever the number of workers (the ``seconds`` fields aside). ``--scheduler ADDRESS`` checks on
the Dask cluster of that scheduler instead (:func:`dpproofs.parallel.Runner`; the ``dask`` extra): one
task per result module (:func:`group_of`), a task whose worker dies run again elsewhere. Progress (done/total, elapsed
time, an estimate of the time left) goes to stderr; stdout holds only the result.
"""

import os
import sys
import time

from dpproofs import _validate

HELP = "check the registered theorem claims (all, or the ids given)"

__all__ = ["HELP", "DEFAULT_EXAMPLES", "FULL_EXAMPLES", "TASKS_PER_WORKER", "add_arguments", "run", "render",
           "check_one", "selected_ids", "default_workers", "group_of"]

#: Examples drawn per claim by default, besides its pinned points (slow claims draw their fraction,
#: at least 1). Measured (2 workers, on a machine loaded ~10 by other jobs): all 247 claims as
#: expected, 200 s CPU in all with 2 examples, 235 s with 5, so about 100 s on 2 quiet cores; the
#: fixed part (pinned points, the confirmation of refuted mutants, box proofs) dominates.
DEFAULT_EXAMPLES = 2
#: Examples per claim of the full campaign (``--full``; the default before the parallel runner).
FULL_EXAMPLES = 60
#: Result modules (tasks) a worker process checks before it is replaced by a fresh one, forked
#: again from the parent (bounds its memory: the evaluator's caches grow with every claim checked).
TASKS_PER_WORKER = 20


def default_workers():
    """One worker per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def add_arguments(parser):
    parser.add_argument("ids", nargs="*", metavar="ID",
                        help="claim ids, or glob patterns ('PAPER.RESULT.*', 'PAPER*'); none: all")
    parser.add_argument("--prefix", action="store_true",
                        help="an ID also selects the claims under it (PAPER.RESULT selects PAPER.RESULT.*)")
    parser.add_argument("--examples", type=int, default=None,
                        help=f"examples drawn per claim besides its pinned points (default {DEFAULT_EXAMPLES}; "
                             "claims marked slow draw their documented fraction, at least 1)")
    parser.add_argument("--full", action="store_true",
                        help=f"the full campaign: {FULL_EXAMPLES} examples per claim (several minutes)")
    parser.add_argument("--seed", type=int, default=0, help="search seed (default 0)")
    parser.add_argument("--dps", type=int, default=50, help="decimal digits of the checks (default 50)")
    parser.add_argument("--workers", type=int, default=None,
                        help="processes checking claims in parallel (default: one per core; 1: this process)")
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help="check on the Dask cluster of this scheduler (tcp://host:8786; needs dpproofs[dask]); "
                             "--workers is then ignored")


def _examples_of(args):
    from dpproofs.errors import InvalidArgument

    if args.full and args.examples is not None:
        raise InvalidArgument(f"--full means --examples {FULL_EXAMPLES}: give one of them, not both")
    if args.full:
        return FULL_EXAMPLES
    if args.examples is None:
        return DEFAULT_EXAMPLES
    return _validate.integer("--examples", args.examples, 1, 10**6)


_CLAIMS = {}  # claim id -> claim, in a worker process (the registry is loaded once per process)


def check_one(claim_id, examples, seed, dps):
    """The result row of the claim ``claim_id`` (a JSON-able dict): a pure function of its arguments
    (the ``seconds`` field aside). Runs in a worker process, or in this one with ``--workers 1``."""
    from dpproofs.checker import registry
    from dpproofs.checker.claims import check  # the checker loads sympy, Hypothesis and flint: only here

    if not _CLAIMS:
        _CLAIMS.update((c.id, c) for c in registry.all_claims())
    claim = _CLAIMS[claim_id]
    verdict = check(claim, examples=examples, seed=seed, dps=dps)
    row = verdict.to_dict()  # the result under "verdict" (and "status", the same value)
    row.update(source=claim.source, kind=claim.kind, statement=claim.describe())
    if claim.explanation:
        row["explanation"] = claim.explanation
    return row


class _Progress:
    """``[done/total] elapsed, about N s left`` on stderr: one line rewritten in place on a
    terminal, else one line per finished claim."""

    def __init__(self, total, stream=None, clock=time.perf_counter):
        self.total, self.done, self.clock = total, 0, clock
        self.stream = sys.stderr if stream is None else stream
        self.started = clock()
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())

    def step(self, row):
        self.done += 1
        elapsed = self.clock() - self.started
        left = elapsed / self.done * (self.total - self.done)
        estimate = "" if self.done == self.total else f", about {_duration(left)} left"
        text = f"[{self.done}/{self.total}] {_duration(elapsed)} elapsed{estimate}"
        mark = "" if row["matches_expectation"] else "  NOT AS EXPECTED"
        if self.live:
            self.stream.write(f"\r\x1b[K{text}: {row['id']} {row['verdict']}{mark}"[:160])
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(f"{text}: {row['id']} {row['verdict']} ({row['seconds']:.1f} s){mark}\n")
        self.stream.flush()


def _duration(seconds):
    seconds = int(round(seconds))
    return f"{seconds} s" if seconds < 100 else f"{seconds // 60} min {seconds % 60:02d} s"


def selected_ids(ids, prefix):
    """The ids of the claims ``ids`` select (:func:`dpproofs.checker.registry.select`), in registry
    order."""
    from dpproofs.checker import registry

    claims = registry.select(ids, prefix=prefix)
    if not _CLAIMS:
        _CLAIMS.update((c.id, c) for c in registry.all_claims())
    return [c.id for c in claims]


def _quiet_worker():
    """Workers ignore Ctrl-C: the parent gets it, stops them and prints one line (no traceback
    from every worker)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def group_of(claim_id):
    """The result module a claim belongs to (``paper.result`` of ``paper.result.name``): the unit of
    a task on a Dask cluster (one import of the result's module and its caches per task)."""
    return ".".join(claim_id.split(".")[:2])


def _check_group(task):
    """The rows of the claims ``task[0]`` (one result module), a pure function of the task."""
    claim_ids, examples, seed, dps = task
    return [check_one(claim_id, examples, seed, dps) for claim_id in claim_ids]


def _group_tasks(chosen, examples, seed, dps):
    """One task per result module (its claims share imports and caches: checked apart, two
    workers would each fill them), the biggest first (a short one then ends the run, not a long
    one started last)."""
    groups = {}
    for claim_id in chosen:
        groups.setdefault(group_of(claim_id), []).append(claim_id)
    return [(group, examples, seed, dps) for group in sorted(groups.values(), key=len, reverse=True)]


def _checked_on_dask(ids, prefix, examples, seed, dps, scheduler, make_progress):
    """``(ids, rows)`` checked on the Dask cluster of ``scheduler`` (:class:`dpproofs.parallel.Runner`):
    one task per result module, the biggest first; rows in registry order. A task whose worker dies is
    run again elsewhere (the same rows: a claim's check is a pure function of its arguments)."""
    from dpproofs.parallel import Failure, Runner

    chosen = selected_ids(ids, prefix)
    progress = make_progress(len(chosen))
    tasks = _group_tasks(chosen, examples, seed, dps)
    by_id = {}

    def finished(index, outcome):
        if isinstance(outcome, Failure):
            raise RuntimeError(f"checking {', '.join(tasks[index][0])} failed on the cluster: {outcome}")
        for row in outcome:
            by_id[row["id"]] = row
            progress.step(row)

    with Runner(scheduler=scheduler, preload=("dpproofs.cli.check",)) as runner:
        runner.map(_check_group, tasks, on_result=finished)
    return chosen, [by_id[claim_id] for claim_id in chosen]


def _checked(ids, prefix, examples, seed, dps, workers, make_progress):
    """``(ids, rows)``: the selected ids and their rows, in registry order, checked by ``workers``
    processes (this one when ``workers`` is 1 or one claim is selected).

    ``multiprocessing.Pool`` rather than ``concurrent.futures.ProcessPoolExecutor``: with
    ``max_tasks_per_child`` the executor of Python 3.11 can stop replacing exited workers and hang
    (seen here after 2 x 40 claims); the pool's ``maxtasksperchild`` replaces them reliably.
    """
    if workers == 1:
        chosen = selected_ids(ids, prefix)
        progress = make_progress(len(chosen))
        rows = []
        for claim_id in chosen:
            rows.append(check_one(claim_id, examples, seed, dps))
            progress.step(rows[-1])
        return chosen, rows
    import signal
    import threading

    from dpproofs.parallel import pool_context

    # SIGTERM (a job scheduler, ``timeout``) ends the run like Ctrl-C: the workers are stopped with
    # it instead of finishing their claims as orphans
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminated) if in_main else None
    # the claims are loaded here, before the pool starts: a worker forked from this process begins
    # with them (and sympy, flint, numpy) instead of importing them again, and so does each
    # replacement after TASKS_PER_WORKER result modules
    chosen = selected_ids(ids, prefix)
    pool = pool_context().Pool(workers, initializer=_quiet_worker, maxtasksperchild=TASKS_PER_WORKER)
    try:
        progress = make_progress(len(chosen))
        by_id = {}
        for group_rows in pool.imap_unordered(_check_group, _group_tasks(chosen, examples, seed, dps), chunksize=1):
            for row in group_rows:
                by_id[row["id"]] = row
                progress.step(row)
        rows = [by_id[claim_id] for claim_id in chosen]
        pool.close()
    except BaseException:  # an error or Ctrl-C: stop the workers now, do not wait for their claims
        pool.terminate()
        raise
    finally:
        pool.join()
        if in_main:
            signal.signal(signal.SIGTERM, previous)
    return chosen, rows


def _terminated(signum, frame):
    raise SystemExit(128 + signum)


def run(args):
    examples = _examples_of(args)
    seed = _validate.integer("--seed", args.seed, 0, 2**32 - 1)
    dps = _validate.integer("--dps", args.dps, 20, 2000)
    workers = default_workers() if args.workers is None else _validate.integer("--workers", args.workers, 1, 1024)
    prefix = getattr(args, "prefix", False)
    from dpproofs.checker.registry import is_pattern

    if args.ids and not prefix and not any(is_pattern(i) for i in args.ids):
        workers = min(workers, len(set(args.ids)))  # exact ids: at most one claim each
    started = time.perf_counter()
    scheduler = getattr(args, "scheduler", None)
    if scheduler is not None:
        from dpproofs.parallel import Runner

        Runner(scheduler=scheduler)  # InvalidArgument now, before the registry loads, when Dask is absent
        ids, rows = _checked_on_dask(list(args.ids), prefix, examples, seed, dps, scheduler, _Progress)
    else:
        ids, rows = _checked(list(args.ids), prefix, examples, seed, dps, workers, _Progress)
    mismatches = [r["id"] for r in rows if not r["matches_expectation"]]
    result = {
        "claims": rows,
        "summary": {
            "claims": len(rows),
            "as_expected": len(rows) - len(mismatches),
            "mismatches": mismatches,
            "seconds": round(time.perf_counter() - started, 1),
            "examples": examples,
            "seed": seed,
            "dps": dps,
            "workers": workers,
            **({"scheduler": scheduler} if scheduler is not None else {}),
        },
    }
    return (1 if mismatches else 0), result


def _width():
    """The terminal's width (COLUMNS, else the terminal, else 120), at least 100."""
    import shutil

    return max(100, shutil.get_terminal_size((120, 24)).columns)


def render(result):
    width = _width()
    lines = []
    header = f"{'claim':<58} {'expected':<8} {'verdict':<9}  evidence"
    lines.append(header)
    lines.append("-" * min(width, 120))
    cut = False
    for row in result["claims"]:
        flag = "" if row["matches_expectation"] else "  <-- NOT AS EXPECTED"
        evidence = row["evidence"]
        if row.get("counterexample"):
            evidence += f"; counterexample {row['counterexample']}"
        start = f"{row['id']:<58} {row['expected']:<8} {row['verdict']:<9}  "
        room = max(20, width - len(start) - len(flag))
        if len(evidence) > room:
            evidence, cut = evidence[: room - 3] + "...", True
        lines.append(f"{start}{evidence}{flag}")
    s = result["summary"]
    lines.append("")
    if cut:
        lines.append("(evidence cut to the terminal's width; --json gives all of it)")
    workers = s.get("workers", 1)
    if "scheduler" in s:
        where = f", on the Dask cluster of {s['scheduler']}"
    else:
        where = "" if workers == 1 else f", {workers} workers"
    lines.append(
        f"{s['as_expected']}/{s['claims']} claims as expected in {s['seconds']} s "
        f"({s['examples']} examples per claim, seed {s['seed']}, {s['dps']} digits{where})"
    )
    if s["examples"] < FULL_EXAMPLES and s["claims"] > 1:
        lines.append(f"(a quick run: --full checks {FULL_EXAMPLES} examples per claim)")
    if s["mismatches"]:
        lines.append("not as expected: " + ", ".join(s["mismatches"]))
    return "\n".join(lines)
