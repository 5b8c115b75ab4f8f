"""The inputs that once broke the accountant (issue 14's list), each run in a fresh process.

    python benchmarks/edge_examples.py [--limit-seconds 10] [--limit-mb 1024]

For each example: its outcome (the value returned, or the library error's class and first line),
the wall time and the child process's peak resident memory (``ru_maxrss``). An example passes
when it returns a right answer or raises one library error (:class:`dpproofs.DPProofsError`)
within the limits; a traceback of any other exception, a hang (killed at twice the time limit) or
a memory peak above the limit fails it. Not a unit test (the unit tests pin each example in
``tests/test_inputs.py`` and ``tests/test_fuzz.py``); this prints the table for a note.
"""

import argparse
import json
import resource
import subprocess
import sys
import textwrap
import time

#: (name, code): ``code`` runs after ``import dpproofs as dp`` and sets ``result``.
EXAMPLES = (
    ("integer orders, sigma = 1e-153 (once 0.101 at order 64)",
     "result = dp.Accountant(orders=list(range(2, 65))).compose(dp.SampledGaussian(q=0.01, sigma=1e-153), 1000)"
     ".epsilon_and_order(1e-5)"),
    ("compose steps = 10**400",
     "result = dp.Accountant().compose(dp.SampledGaussian(0.01, 1.0), 10**400).epsilon(1e-5)"),
    ("calibrate_sigma steps = 10**400",
     "result = dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=0.01, steps=10**400)"),
    ("calibrate_sigma epsilon = 1e-17",
     "result = dp.calibrate_sigma(epsilon=1e-17, delta=0.1, q=0.01, steps=10)"),
    ("orders [2, 10**400]", "result = dp.Accountant(orders=[2, 10**400]).orders"),
    ("Gaussian(1e155)", "result = dp.Accountant().compose(dp.Gaussian(1e155), 1).epsilon(1e-5)"),
    ("SampledGaussian(0.2, 1e160)", "result = dp.Accountant().compose(dp.SampledGaussian(0.2, 1e160), 1).epsilon(1e-5)"),
    ("SampledGaussian(0.5, 1e-170)", "result = dp.Accountant().compose(dp.SampledGaussian(0.5, 1e-170), 1).epsilon(1e-5)"),
    ("SampledGaussian(0.5, 1e-10) (once 298 GiB)",
     "result = dp.Accountant().compose(dp.SampledGaussian(0.5, 1e-10), 1).epsilon(1e-5)"),
    ("SampledGaussian(0.5, 1e-50)", "result = dp.Accountant().compose(dp.SampledGaussian(0.5, 1e-50), 1).epsilon(1e-5)"),
    ("q = 1e-170 (API)", "result = dp.Accountant().compose(dp.SampledGaussian(1e-170, 1.0), 100).epsilon(1e-5)"),
    ("q = 1e-170 (CLI)",
     "import subprocess, sys\n"
     "p = subprocess.run([sys.executable, '-m', 'dpproofs', 'epsilon', '--q', '1e-170', '--sigma', '1', "
     "'--steps', '100', '--delta', '1e-5', '--json'], capture_output=True, text=True)\n"
     "result = (p.returncode, p.stdout.strip()[:200], p.stderr.strip()[:200])"),
    ("SampledGaussian(0.01, 1e-6) (once 29 s, 651 MB)",
     "result = dp.Accountant().compose(dp.SampledGaussian(0.01, 1e-6), 1).epsilon(1e-5)"),
    ("SampledGaussian(1e-8, 1e-8)", "result = dp.Accountant().compose(dp.SampledGaussian(1e-8, 1e-8), 1).epsilon(1e-5)"),
    ("dp.rdp at order 1e5 (once 46 s)", "result = dp.rdp(dp.SampledGaussian(0.5, 1.0), 1e5)"),
    ("dp.rdp at order 1e300 (once never returned)", "result = dp.rdp(dp.SampledGaussian(0.5, 1.0), 1e300)"),
    ("dp.log_moment at order 1e300", "result = dp.log_moment(dp.SampledGaussian(0.5, 1.0), 1e300)"),
    ("delta(epsilon(1e-5)) <= 1e-5",
     "a = dp.Accountant().compose(dp.SampledGaussian(0.01, 1.1), 10000)\n"
     "d = a.delta(a.epsilon(1e-5)); assert d <= 1e-5, d; result = d"),
    ("delta monotone up to 1e308",
     "a = dp.Accountant().compose(dp.SampledGaussian(0.01, 1.1), 10000)\n"
     "v = [a.delta(x) for x in (1e303, 1e304, 1e305, 1e308)]\n"
     "assert all(x >= y for x, y in zip(v, v[1:])), v; result = v"),
    ("refine at (0.2, 0.3, 1e6 steps, delta 1e-10) (once stopped at 1.005)",
     "result = dp.Accountant().compose(dp.SampledGaussian(0.2, 0.3), 10**6).epsilon_and_order(1e-10, refine=True)"),
    ("refine at (1e-4, 50, 100 steps) (optimum near 46 000)",
     "result = dp.Accountant().compose(dp.SampledGaussian(1e-4, 50.0), 100).epsilon_and_order(1e-5, refine=True)"),
    ("default grid vs refine, SampledGaussian(0.001, 4), 1 step (once 12.8% apart)",
     "a = dp.Accountant().compose(dp.SampledGaussian(0.001, 4.0), 1)\n"
     "g, r = a.epsilon(1e-5), a.epsilon(1e-5, refine=True); result = (g, r, g / r - 1)"),
    ("certified accountant pickles and deep-copies after a query",
     "import copy, pickle\n"
     "a = dp.Accountant(certified=True).compose(dp.SampledGaussian(0.01, 1.1), 100); e = a.epsilon(1e-5)\n"
     "b, c = pickle.loads(pickle.dumps(a)), copy.deepcopy(a)\n"
     "assert b.epsilon(1e-5) == e == c.epsilon(1e-5); result = e"),
    ("Ctrl-C during a command ends it with one line and exit 130 (once a traceback)",
     "import signal, subprocess, sys, time\n"
     "p = subprocess.Popen([sys.executable, '-m', 'dpproofs', 'check', '--examples', '20'], "
     "stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)\n"
     "time.sleep(3); p.send_signal(signal.SIGINT); err = p.communicate(timeout=10)[1]\n"
     "assert p.returncode == 130 and len(err.strip().splitlines()) == 1, (p.returncode, err)\n"
     "result = (p.returncode, err.strip())"),
    ("4 threads, 80 000 composes, switch interval 1e-6 (once 58 745 kept)",
     "import sys, threading\nsys.setswitchinterval(1e-6)\n"
     "a = dp.Accountant(); m = dp.SampledGaussian(0.01, 1.1)\n"
     "def work():\n    for _ in range(20000): a.compose(m)\n"
     "ts = [threading.Thread(target=work) for _ in range(4)]\n[t.start() for t in ts]; [t.join() for t in ts]\n"
     "n = sum(s for _, s in a.ledger); assert n == 80000, n; result = n"),
)


def run(code, timeout):
    program = "import dpproofs as dp\n" + code + "\nprint(repr(result))"
    wrapper = textwrap.dedent(f"""
        import json, sys, traceback
        from dpproofs.errors import DPProofsError
        try:
            exec(compile({program!r}, "<example>", "exec"), {{}})
            print(json.dumps(["ok"]))
        except DPProofsError as error:
            print(json.dumps(["library error", type(error).__name__ + ": " + str(error).splitlines()[0][:160]]))
        except BaseException as error:
            traceback.print_exc()
            print(json.dumps(["FAILED", type(error).__name__ + ": " + str(error)[:160]]))
    """)
    start = time.perf_counter()
    try:
        completed = subprocess.run([sys.executable, "-c", wrapper], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "FAILED", f"no answer within {timeout} s", time.perf_counter() - start
    seconds = time.perf_counter() - start
    lines = completed.stdout.strip().splitlines()
    try:
        status = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        return "FAILED", (completed.stderr.strip().splitlines() or ["no output"])[-1][:160], seconds
    if status[0] == "ok":
        return "answer", lines[-2][:160], seconds
    return status[0], status[1], seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit-seconds", type=float, default=10.0)
    parser.add_argument("--limit-mb", type=float, default=1024.0)
    args = parser.parse_args()
    failures = 0
    for name, code in EXAMPLES:
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        kind, text, seconds = run(code, timeout=2 * args.limit_seconds)
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        # ru_maxrss of children is the largest child so far: report it only when it grew
        memory = f"{peak_mb:.0f} MB" if resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss > before else f"<= {peak_mb:.0f} MB"
        ok = kind != "FAILED" and seconds <= args.limit_seconds and peak_mb <= args.limit_mb
        failures += not ok
        print(f"{'ok ' if ok else 'BAD'} | {name} | {kind}: {text} | {seconds:.2f} s | {memory}", flush=True)
    print(f"{len(EXAMPLES) - failures}/{len(EXAMPLES)} within {args.limit_seconds:g} s and {args.limit_mb:g} MB")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
