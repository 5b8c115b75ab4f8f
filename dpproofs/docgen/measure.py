"""The measuring parts of ``dpproofs report`` and their store, ``docs/_measured/*.json``.

Every measurement is stored with its inputs and with the fingerprint of the data and code it was
made from (:mod:`dpproofs.docgen.fingerprint`), so that :func:`dpproofs.docgen.site.stale_pages`
can tell, without re-measuring, whether the current code would produce something else.
"""

import contextlib
import io
import json
import platform
import time
from pathlib import Path

from dpproofs.docgen.fingerprint import claim_fingerprint, code_digest, digest, numeric_claim_fingerprint

__all__ = [
    "DOCS", "MEASURED", "FIGURES", "EXAMPLES", "SEED", "DPS",
    "TOUR", "TOUR_PYTHON", "ACCOUNTANT_CONFIGS", "VERIFY_EXAMPLES",
    "BATCH_RUNS", "BATCH_DELTA", "measure_batches", "batches_fingerprint", "LOADER_RUN", "measure_loaders",
    "load", "store", "write_atomically", "measure_theorem", "measure_tour", "measure_accountant", "measure_verify",
    "measure_notes", "make_figures", "table_functions", "figures_of", "table_fingerprint",
    "figure_fingerprint", "command_fingerprint", "accountant_fingerprint", "python_tour_fingerprint",
    "capture", "capture_python",
]

#: The repository's docs directory (this package lives in <repo>/dpproofs/docgen).
DOCS = Path(__file__).resolve().parents[2] / "docs"
MEASURED = DOCS / "_measured"
FIGURES = DOCS / "figures"
#: Hypothesis draws per claim in the measured verdict runs, their seed and precision.
EXAMPLES = 30
SEED = 0
DPS = 50


@contextlib.contextmanager
def directory(docs):
    """Point the store, the figures and the pages at ``docs`` (``--out``) for the duration."""
    import dpproofs.docgen.measure as this

    saved = this.DOCS, this.MEASURED, this.FIGURES
    this.DOCS, this.MEASURED, this.FIGURES = docs, docs / "_measured", docs / "figures"
    try:
        yield
    finally:
        this.DOCS, this.MEASURED, this.FIGURES = saved


def _paths():
    """The current directories (module attributes, so that tests can point them elsewhere)."""
    import dpproofs.docgen.measure as this

    return this.DOCS, this.MEASURED, this.FIGURES


def load(name):
    path = _paths()[1] / f"{name}.json"
    if not path.exists():
        return None
    return json.loads(path.read_text())


def store(name, data):
    """Write ``docs/_measured/<name>.json`` atomically (a temporary file renamed over the old one)."""
    path = _paths()[1] / f"{name}.json"
    write_atomically(path, json.dumps(data, indent=1, sort_keys=True, default=str) + "\n")


def write_atomically(path, text):
    """Replace ``path`` by ``text`` so that a reader (or an interrupted run) never sees half of it."""
    import os

    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def capture(argv):
    """Run ``dpproofs argv`` in-process and return (exit status, stdout text, seconds)."""
    from dpproofs.cli import main

    buffer = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(io.StringIO()):
        status = main(list(argv))
    return status, buffer.getvalue().rstrip("\n"), round(time.perf_counter() - started, 2)


def capture_python(code):
    buffer = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(buffer):
        exec(compile(code, "<tour>", "exec"), {})
    return buffer.getvalue().rstrip("\n"), round(time.perf_counter() - started, 2)


def environment():
    import numpy

    return {"python": platform.python_version(), "numpy": numpy.__version__, "machine": platform.machine(),
            "measured_on": time.strftime("%Y-%m-%d")}


# --- fingerprints of the measured parts -------------------------------------------------------------


def table_functions(module):
    """The module's ``TABLES`` (callables returning rows), by name."""
    return {function.__name__: function for function in getattr(module, "TABLES", ())}


def figures_of(module):
    """The module's ``FIGURES`` (see :mod:`dpproofs.docgen.figures`)."""
    return tuple(getattr(module, "FIGURES", ()))


def table_fingerprint(function):
    return code_digest(function)


def figure_fingerprint(figure, claims=()):
    """The figure's file, caption and pages, the code of ``draw`` (with everything it reaches) and
    the fingerprints of the claims of its module (a figure may draw a claim's two sides)."""
    return digest(figure.file, figure.caption, tuple(figure.also_on), code_digest(figure.draw),
                  *[claim_fingerprint(c) for c in claims])


def library_digest():
    """Digest of the source of every module of the library (``dpproofs/``): what a CLI command can
    run. Deterministic in every process (following the reachable code from ``cli.main`` gave
    process-dependent digests); any library change makes the captured commands stale, and
    ``dpproofs report --only tour verify`` (seconds) captures them again."""
    from pathlib import Path

    import dpproofs

    root = Path(dpproofs.__file__).parent
    files = sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)
    return digest(*(f"{p.relative_to(root)}\n{p.read_text()}" for p in files))


def command_fingerprint(argv):
    """The code path of ``dpproofs argv``: the library's source, plus the claims a ``check`` runs
    or the notes entries ``claims`` evaluates (their own fingerprints cover their content code)."""
    name = argv[0]
    parts = [library_digest()]
    if name == "check":
        from dpproofs.checker import registry

        ids = [a for a in argv[1:] if not a.startswith("-")][:1]
        parts += [claim_fingerprint(c) for c in registry.select(ids, prefix="--prefix" in argv)]
    if name == "claims":
        from dpproofs.checker import registry

        ids = [a for a in argv[1:] if not a.startswith("-")]
        for module_ in registry.modules("NUMERIC_CLAIMS"):
            parts += [numeric_claim_fingerprint(e) for e in module_.NUMERIC_CLAIMS if not ids or e.id in ids]
    return digest(*argv, *parts)


def python_tour_fingerprint(code=None):
    import dpproofs

    return digest(code or TOUR_PYTHON, code_digest(dpproofs.Accountant, dpproofs.calibrate_sigma, dpproofs.rdp))


def accountant_fingerprint():
    return code_digest(measure_accountant)


# --- theorem pages ------------------------------------------------------------------------------------


def measure_theorem(prefix, module, claims, *, examples=EXAMPLES, seed=SEED, log=print):
    """Verdicts of every claim of one result (and its module's slack tables), with their inputs."""
    from dpproofs.checker.claims import check

    verdicts = {}
    for claim in claims:
        verdict = check(claim, examples=examples, seed=seed, dps=DPS)
        data = verdict.to_dict()
        verdicts[claim.id] = {
            "fingerprint": claim_fingerprint(claim),
            "status": data["status"],
            "certified": data["certified"],
            "examples": data["examples"],
            "evidence": data["evidence"],
            "counterexample": data.get("counterexample"),
            "matches_expectation": data["matches_expectation"],
            "seconds": data["seconds"],
        }
        log(f"  {claim.id}: {data['status']} ({data['seconds']} s)")
    tables = {}
    for name, function in table_functions(module).items():
        started = time.perf_counter()
        rows = function()
        tables[name] = {"rows": rows, "seconds": round(time.perf_counter() - started, 1),
                        "fingerprint": table_fingerprint(function)}
        log(f"  {module.__name__}.{name}(): {len(rows)} rows ({tables[name]['seconds']} s)")
    return {"inputs": {"examples": examples, "seed": seed, "dps": DPS, **environment()},
            "verdicts": verdicts, "tables": tables}


# --- index (tour) ----------------------------------------------------------------------------------

#: The five-minute tour of index.md: (title, argv of `dpproofs`); :func:`tour` adds the content's steps.
TOUR = (
    ("epsilon of a DP-SGD run (Abadi's configuration, 100 epochs)",
     ["epsilon", "--q", "0.01", "--sigma", "4", "--steps", "10000", "--delta", "1e-5"]),
    ("the noise for a target epsilon",
     ["sigma", "--epsilon", "1", "--delta", "1e-5", "--q", "0.01", "--steps", "10000"]),
    ("verify an inequality: proved on the whole box by ball arithmetic",
     ["verify", "rdp_gaussian(alpha, sigma) <= alpha/sigma**2", "--where", "1 < alpha <= 64",
      "--where", "0.5 <= sigma <= 10"]),
    ("verify an inequality: refuted, with a certified counterexample",
     ["verify", "rdp_randomized_response(alpha, eps) <= alpha*eps**2/4", "--where", "1 < alpha <= 32",
      "--where", "0.01 <= eps <= 2"]),
)


def tour():
    """The tour's steps: :data:`TOUR`, then the steps each content package names in its ``TOUR``
    (commands about its own claims: the library names no claim)."""
    from dpproofs.checker import registry

    steps = list(TOUR)
    for package in registry.packages():
        steps += [(title, list(argv)) for title, argv in getattr(package, "TOUR", ())]
    return tuple(steps)
#: Tour commands whose output has no timing in it and which take milliseconds: the staleness
#: check re-runs them and compares their output with the stored one.
RERUN_COMMANDS = ("epsilon", "sigma")
TOUR_PYTHON = """import dpproofs as dp
acc = dp.Accountant().compose(dp.SampledGaussian(q=0.01, sigma=4.0), steps=10_000)
print(acc.epsilon(1e-5))                       # improved conversion, default orders
print(acc.epsilon_and_order(1e-5, conversion="classic"))
print(dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=10_000))
print(dp.rdp(dp.SampledGaussian(0.01, 4.0), 20, dps=30))   # exact D_20, mpmath
"""


def _fresh_command_fingerprints(argvs):
    """``command_fingerprint`` of each argv, computed in a fresh interpreter: in a process that has
    already run many checks the reachable code can differ in ways not yet understood (the stale
    check, run in a fresh process, would then disagree), so the stored value is a fresh one."""
    import json
    import subprocess
    import sys

    code = ("import json, sys; from dpproofs.docgen import measure; "
            "print(json.dumps([measure.command_fingerprint(a) for a in json.loads(sys.argv[1])]))")
    out = subprocess.run([sys.executable, "-c", code, json.dumps([list(a) for a in argvs])],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def measure_tour():
    steps = []
    steps_ = tour()
    fingerprints = _fresh_command_fingerprints([argv for _, argv in steps_])
    for (title, argv), fingerprint_ in zip(steps_, fingerprints):
        status, output, seconds = capture(argv)
        steps.append({"title": title, "argv": argv, "status": status, "output": output, "seconds": seconds,
                      "fingerprint": fingerprint_})
    output, seconds = capture_python(TOUR_PYTHON)
    return {"inputs": environment(), "commands": steps,
            "python": {"code": TOUR_PYTHON, "output": output, "seconds": seconds,
                       "fingerprint": python_tour_fingerprint()}}


# --- accountant ----------------------------------------------------------------------------------

#: Exact tight epsilons from dpproofs.math.pld_exact (Bromwich inversion), computed once
#: and held by tests/test_pld.py (the PLD bracket must contain them).
EXACT_REFERENCE = {(0.01, 4.0, 10000, 1e-5): 0.9468668, (0.01, 4.0, 40000, 1e-5): 2.0330653}

ACCOUNTANT_CONFIGS = (
    # (label, q, sigma, steps, delta, whether the exact reference is computed: minutes per value
    # on a quiet machine, tens of minutes under load, so only for the first row)
    ("Abadi, E = 100", 0.01, 4.0, 10000, 1e-5, False),
    ("Abadi, E = 400", 0.01, 4.0, 40000, 1e-5, False),
    ("CIFAR-like, q = 256/50000", 256 / 50000, 1.1, 19532, 1e-5, False),
    ("high noise", 0.001, 10.0, 100000, 1e-6, False),
    ("large q", 0.1, 1.5, 1000, 1e-5, False),
)


def measure_accountant():
    import numpy as np

    import dp_accounting
    from dp_accounting import rdp as dp_rdp

    from dpproofs.accountant.rdp import Accountant
    from dpproofs.math import pld_exact as precise_pld
    from dpproofs.mechanisms import SampledGaussian
    from dpproofs.accountant.pld.accountant import PLDAccountant

    rows = []
    for label, q, sigma, steps, delta, exact in ACCOUNTANT_CONFIGS:
        row = {"config": label, "q": q, "sigma": sigma, "steps": steps, "delta": delta}
        started = time.perf_counter()
        acc = Accountant().compose(SampledGaussian(q, sigma), steps)
        row["dpproofs_improved"] = acc.epsilon(delta)
        row["dpproofs_seconds"] = time.perf_counter() - started
        row["dpproofs_classic"] = acc.epsilon(delta, "classic")
        row["dpproofs_improved_refined"] = acc.epsilon(delta, refine=True)
        started = time.perf_counter()
        cert = Accountant(certified=True).compose(SampledGaussian(q, sigma), steps)
        row["dpproofs_certified"] = cert.epsilon(delta)
        row["certified_seconds"] = time.perf_counter() - started
        started = time.perf_counter()
        rdp_acc = dp_rdp.RdpAccountant()
        rdp_acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps)
        row["dp_accounting_rdp"] = float(rdp_acc.get_epsilon(delta))
        row["dp_accounting_rdp_seconds"] = time.perf_counter() - started
        started = time.perf_counter()
        pld_acc = dp_accounting.pld.PLDAccountant()
        pld_acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps)
        row["dp_accounting_pld"] = float(pld_acc.get_epsilon(delta))
        row["dp_accounting_pld_seconds"] = time.perf_counter() - started
        started = time.perf_counter()
        bounds = PLDAccountant().compose(SampledGaussian(q, sigma), steps).epsilon_bounds(delta)
        row["pld_lower"], row["pld_upper"], row["pld_source"] = bounds.lower, bounds.upper, bounds.source
        row["pld_seconds"] = time.perf_counter() - started
        row["prv_estimate"] = row["prv_upper"] = row["prv_seconds"] = None
        try:
            from prv_accountant import Accountant as PRVAccountant
        except ImportError:  # optional peer
            PRVAccountant = None
        if PRVAccountant is not None:
            started = time.perf_counter()
            try:
                prv = PRVAccountant(noise_multiplier=sigma, sampling_probability=q, delta=delta, eps_error=0.01,
                                    max_compositions=steps)
                _, estimate, upper = prv.compute_epsilon(num_compositions=steps)
                row["prv_estimate"], row["prv_upper"] = float(estimate), float(upper)
            except Exception as error:  # the PRV package fails on some inputs: record it, do not stop
                row["prv_error"] = f"{type(error).__name__}: {error}"
            row["prv_seconds"] = time.perf_counter() - started
        # the exact tight epsilon (Bromwich inversion, no discretisation), inside our bracket; the
        # Abadi values are the reference's, stored in tests/test_pld.py (ABADI_EXACT) because one
        # inversion takes tens of minutes under load
        row["exact"] = EXACT_REFERENCE.get((q, sigma, steps, delta))
        if exact:
            row["exact"] = float(precise_pld.epsilon_sampled_gaussian_composed(
                delta, q, sigma, steps, bracket=(bounds.lower, bounds.upper)))
        # the warm path: a second query on the same accountant (RDP memoised)
        started = time.perf_counter()
        for _ in range(100):
            Accountant().compose(SampledGaussian(q, sigma), steps).epsilon(delta)
        row["dpproofs_warm_seconds"] = (time.perf_counter() - started) / 100
        rows.append({k: (float(v) if isinstance(v, (np.floating,)) else v) for k, v in row.items()})
    return {"inputs": environment(), "rows": rows, "fingerprint": accountant_fingerprint()}


# --- batches and neighbouring relations ------------------------------------------------------------

#: Realistic DP-SGD runs for the batches page: (dataset size n, batch size b, sigma, epochs).
BATCH_RUNS = ((60000, 256, 1.1, 60), (60000, 256, 1.0, 15), (50000, 512, 1.5, 100), (10000, 100, 2.0, 50),
              (1000000, 1000, 0.8, 10), (60000, 600, 4.0, 100))
BATCH_DELTA = 1e-5


def _seconds(function):
    started = time.perf_counter()
    value = function()
    return value, time.perf_counter() - started


def measure_batches():
    """Each run of :data:`BATCH_RUNS` under fixed-size batches and Poisson sampling, replace-one,
    by both dpproofs accountants and by dp_accounting side by side (one process)."""
    import math

    import dp_accounting as dpa
    from dp_accounting.pld import pld_privacy_accountant
    from dp_accounting.rdp import rdp_privacy_accountant

    import dpproofs as dp
    from dpproofs.accountant import training

    replace = dpa.NeighboringRelation.REPLACE_ONE
    rows = []
    for n, b, sigma, epochs in BATCH_RUNS:
        steps, q = training.steps_and_rate(n, b, epochs, sampling="fixed")
        row = {"n": n, "b": b, "sigma": sigma, "epochs": epochs, "steps": steps, "q": q, "delta": BATCH_DELTA}
        fixed = dp.FixedBatchGaussian(batch_size=b, dataset_size=n, sigma=sigma)
        poisson = dp.SampledGaussian(q, sigma)
        row["fixed_rdp"], row["fixed_rdp_seconds"] = _seconds(
            lambda: dp.Accountant(relation="replace_one").compose(fixed, steps).epsilon(BATCH_DELTA))
        bounds, row["fixed_pld_seconds"] = _seconds(
            lambda: dp.PLDAccountant(relation="replace_one").compose(fixed, steps).epsilon_bounds(BATCH_DELTA))
        row["fixed_pld_lower"], row["fixed_pld_upper"], row["fixed_pld_source"] = bounds.lower, bounds.upper, bounds.source

        def wor(noise_multiplier):
            accountant = rdp_privacy_accountant.RdpAccountant(neighboring_relation=replace)
            event = dpa.SampledWithoutReplacementDpEvent(n, b, dpa.GaussianDpEvent(noise_multiplier))
            accountant.compose(dpa.SelfComposedDpEvent(event, steps))
            return float(accountant.get_epsilon(BATCH_DELTA))

        row["dpa_wor_rdp_at_sigma"], row["dpa_wor_rdp_seconds"] = _seconds(lambda: wor(sigma))
        row["dpa_wor_rdp_at_half_sigma"] = wor(sigma / 2)
        row["poisson_rdp"], row["poisson_rdp_seconds"] = _seconds(
            lambda: dp.Accountant(relation="replace_one").compose(poisson, steps).epsilon(BATCH_DELTA))
        bounds, row["poisson_pld_seconds"] = _seconds(
            lambda: dp.PLDAccountant(relation="replace_one").compose(poisson, steps).epsilon_bounds(BATCH_DELTA))
        row["poisson_pld_lower"], row["poisson_pld_upper"], row["poisson_pld_source"] = (
            bounds.lower, bounds.upper, bounds.source)

        def poisson_pld():
            accountant = pld_privacy_accountant.PLDAccountant(neighboring_relation=replace)
            accountant.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps))
            return float(accountant.get_epsilon(BATCH_DELTA))

        row["dpa_poisson_pld"], row["dpa_poisson_pld_seconds"] = _seconds(poisson_pld)
        row["poisson_add_remove_pld"] = dp.PLDAccountant().compose(poisson, steps).epsilon(BATCH_DELTA)
        rows.append({k: (v if not isinstance(v, float) or math.isfinite(v) else str(v)) for k, v in row.items()})
    return {"inputs": environment(), "rows": rows, "loaders": measure_loaders(), "fingerprint": batches_fingerprint()}


#: The run of the "which accountant for my loader" table: (dataset size, batch size, sigma, epochs, delta).
LOADER_RUN = (50000, 256, 1.0, 10, 1e-5)


def measure_loaders():
    """One row per data loader: what it is (``dpproofs.training.sampling_of``'s scheme), what dpproofs
    answers for :data:`LOADER_RUN`, and the seconds it took (one process)."""
    import math

    import dpproofs as dp

    n, b, sigma, epochs, delta = LOADER_RUN
    per_epoch = -(-n // b)
    steps = epochs * per_epoch
    rows = []

    def add(loader, scheme, how, function):
        value, seconds = _seconds(function)
        rows.append({"loader": loader, "scheme": scheme, "how": how, "epsilon": value, "seconds": seconds})

    add("Opacus `DPDataLoader` / `UniformWithReplacementSampler`; jax_privacy `CyclicPoissonSampling` (cycle 1)",
        "poisson", "upper end of the certified PLD bracket, `SampledGaussian(B/N, sigma)` x steps",
        lambda: dp.PLDAccountant().compose(dp.SampledGaussian(b / n, sigma), steps).epsilon_bounds(delta).upper)
    add("(the same Poisson loader, by the RDP accountant)",
        "poisson", "RDP, `SampledGaussian(B/N, sigma)` x steps",
        lambda: dp.Accountant().compose(dp.SampledGaussian(b / n, sigma), steps).epsilon(delta))
    add("jax_privacy `CyclicPoissonSampling(truncated_batch_size=M)` (truncated DP-SGD): Poisson, a batch above "
        "M = B + 4 sqrt(B) cut to M", "truncated-poisson",
        "upper end of the certified PLD bracket, `TruncatedSampledGaussian(B/N, sigma, M, N)` x steps (a dominating "
        "branch mixture)",
        lambda: dp.PLDAccountant().compose(dp.TruncatedSampledGaussian(b / n, sigma, b + 4 * math.isqrt(b), n),
                                           steps).epsilon_bounds(delta).upper)
    add("each step draws exactly B of the N records, independently (`SampledWithoutReplacementDpEvent`)",
        "fixed", "upper end of the certified PLD bracket, replace-one, `FixedBatchGaussian`",
        lambda: dp.PLDAccountant(relation="replace_one").compose(
            dp.FixedBatchGaussian(batch_size=b, dataset_size=n, sigma=sigma), steps).epsilon_bounds(delta).upper)
    add("balls-in-bins: each record in one of the ceil(N/B) steps of every epoch, drawn afresh each epoch",
        "balls-in-bins", "upper end of the certified PLD bracket, `RandomAllocationGaussian(ceil(N/B), sigma)` x epochs",
        lambda: dp.PLDAccountant().compose(dp.RandomAllocationGaussian(per_epoch, sigma), epochs).epsilon_bounds(
            delta).upper)
    add("(the same balls-in-bins loader, by the RDP accountant)",
        "balls-in-bins", "RDP, `RandomAllocationGaussian(ceil(N/B), sigma)` x epochs",
        lambda: dp.Accountant().compose(dp.RandomAllocationGaussian(per_epoch, sigma), epochs).epsilon(delta))
    add("`DataLoader(shuffle=True)` / `RandomSampler` (a new permutation every epoch)",
        "shuffle", "no upper bound exists: certified LOWER bound, `epsilon_lower_bound`",
        lambda: dp.epsilon_lower_bound(dp.ShuffledGaussian(b, n, sigma, "per-epoch"), epochs, delta))
    add("shuffled once, the same order every epoch; jax_privacy `BallsInBinsSampling` cycled over epochs",
        "shuffle-persistent", "no upper bound exists: certified LOWER bound",
        lambda: dp.epsilon_lower_bound(dp.ShuffledGaussian(b, n, sigma, "persistent"), epochs, delta))
    add("`SequentialSampler` (the same batches every epoch, in a public order)",
        "sequential", "no amplification: the Gaussian x epochs (each record in one known step per epoch)",
        lambda: dp.PLDAccountant().compose(dp.Gaussian(sigma), epochs).epsilon_bounds(delta).upper)
    rows.append({"loader": "`WeightedRandomSampler`, sampling with replacement, `SubsetRandomSampler` with repeats",
                 "scheme": "(refused)", "how": "`sampling_of` names what cannot be accounted", "epsilon": None,
                 "seconds": 0.0})
    return {"run": {"n": n, "b": b, "sigma": sigma, "epochs": epochs, "delta": delta, "steps": steps},
            "rows": [{k: (v if not isinstance(v, float) or math.isfinite(v) else str(v)) for k, v in r.items()}
                     for r in rows]}


def batches_fingerprint():
    return code_digest(measure_batches, measure_loaders)


# --- verify ----------------------------------------------------------------------------------------

VERIFY_EXAMPLES = (
    ("Mironov Prop. 7: the Gaussian's Rényi divergence is at most alpha/sigma^2 (proved)",
     "rdp_gaussian(alpha, sigma) <= alpha/sigma**2", ("1 < alpha <= 64", "0.5 <= sigma <= 10"), ()),
    ("Bun-Steinke: eps-DP implies D_alpha <= alpha eps^2 / 2, on randomized response",
     "rdp_randomized_response(alpha, eps) <= alpha*eps**2/2", ("1 < alpha <= 32", "0.01 <= eps <= 2"), ()),
    ("the same with the constant 1/4: refuted",
     "rdp_randomized_response(alpha, eps) <= alpha*eps**2/4", ("1 < alpha <= 32", "0.01 <= eps <= 2"), ()),
    ("Abadi Lemma 3's leading term alone, integer lambda, the lemma's hypotheses",
     "log_moment(lam, q, sigma) <= q**2*lam*(lam+1)/((1-q)*sigma**2)",
     ("1 <= sigma <= 4", "0.001 <= q < 1/(16*sigma)", "1 <= lam <= sigma**2*log(1/(q*sigma))"), ("lam",)),
)


def verify_argv(claim, where, integers):
    return ["verify", claim] + [x for w in where for x in ("--where", w)] + [x for i in integers for x in ("--integer", i)]


def measure_verify():
    from dpproofs import verification

    rows = []
    for title, claim, where, integers in VERIFY_EXAMPLES:
        argv = verify_argv(claim, where, integers)
        status, output, seconds = capture(argv)
        rows.append({"title": title, "argv": argv, "status": status, "output": output, "seconds": seconds,
                     "fingerprint": command_fingerprint(argv)})
    return {"inputs": environment(), "examples": rows, "time_budget": getattr(verification, "TIME_BUDGET", None),
            "suite": measure_verify_suite()}


def verify_suite_argv():
    """The argv of every probe of the verify suite (dpproofs.verification.suite), in order."""
    from dpproofs.verification.suite import SUITE

    return [verify_argv(p.claim, p.where, p.integers) for p in SUITE]


def measure_verify_suite():
    """Every probe of the verify suite run as ``dpproofs verify ... --json`` with default settings:
    its verdict and wall seconds (in-process), with the command's fingerprint."""
    from dpproofs.verification.suite import SUITE

    rows = []
    for probe, argv in zip(SUITE, verify_suite_argv()):
        status, output, seconds = capture(argv + ["--json"])
        result = json.loads(output)
        rows.append({"argv": argv, "claim": probe.claim, "where": list(probe.where), "integers": list(probe.integers),
                     "truth": probe.truth, "expected": probe.verdict, "verdict": result["verdict"],
                     "seconds": seconds, "boxes": result.get("boxes", 0), "subtle": probe.subtle,
                     "fingerprint": command_fingerprint(argv)})
    return rows


# --- notes ------------------------------------------------------------------------------------------


def measure_notes():
    """Every notes module's rows (``evaluate_all()``), each with its entry's fingerprint."""
    from dpproofs.checker import registry

    started = time.perf_counter()
    rows = []
    for module in registry.modules("NUMERIC_CLAIMS"):
        prints = {entry.id: numeric_claim_fingerprint(entry) for entry in module.NUMERIC_CLAIMS}
        for row in module.evaluate_all():
            rows.append({**row, "fingerprint": prints[row["id"]]})
    return {"inputs": environment(), "rows": rows, "seconds": round(time.perf_counter() - started, 1)}


# --- figures ----------------------------------------------------------------------------------------


def make_figures(found, log=print):
    """Draw every registered figure; returns ``{page prefix: [{file, caption, seconds, fingerprint}]}``."""
    figures_dir = _paths()[2]
    figures_dir.mkdir(parents=True, exist_ok=True)
    made = {}
    for prefix, (module, claims) in found.items():
        for figure in figures_of(module):
            started = time.perf_counter()
            figure.draw(figures_dir / figure.file)
            seconds = round(time.perf_counter() - started, 1)
            made.setdefault(prefix, []).append({"file": figure.file, "caption": figure.caption, "seconds": seconds,
                                                "also_on": list(figure.also_on),
                                                "fingerprint": figure_fingerprint(figure, claims)})
            log(f"  figure {figure.file} ({seconds} s)")
    return made
