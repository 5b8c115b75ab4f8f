"""The PLD accountant's edge inputs of the issue "Tight accounting that always answers, fast".

    python benchmarks/pld_edge_inputs.py [NAME ...] [--timeout 60]

Each case runs in a fresh process (no cache shared between cases) and prints one line: its name,
its outcome (the value returned with its ``source``, or the exception's module, class and first
150 characters) and the wall time in seconds. A case is right when it returns a right answer or
raises a library error (:class:`dpproofs.DPProofsError`), within 10 s; the assertions that each
answer is right are in ``tests/test_pld_edge_inputs.py``. Not a unit test: it prints the table
for the issue.
"""

import argparse
import json
import subprocess
import sys
import time

#: name -> expression (evaluated after ``import dpproofs as dp``).
CASES = {
    "sg_tiny_q": "dp.PLDAccountant().compose(dp.SampledGaussian(1e-9, 1.0), 1).epsilon_bounds(1e-5)",
    "delta_1e300": "dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 4.0), 10000).delta_bounds(1e300)",
    "eps_near1": "dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 4.0), 10000).epsilon_bounds(1 - 2**-53)",
    "gauss148x3": "dp.PLDAccountant().compose(dp.Gaussian(148.2), 3).epsilon_bounds(1e-5)",
    "relwidth1e-6": "dp.PLDAccountant(relative_width=1e-6).compose(dp.SampledGaussian(0.01, 4.0), 10000)"
                    ".epsilon_bounds(1e-5)",
    "sg_small_sigma": "dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 1e-3), 1).epsilon_bounds(1e-5)",
    "gauss_1e-3": "dp.PLDAccountant().compose(dp.Gaussian(1e-3), 1).epsilon_bounds(1e-5)",
    "laplace_1e-300": "dp.PLDAccountant().compose(dp.Laplace(1e-300), 1).epsilon_bounds(1e-5)",
    "rr_1e300": "dp.PLDAccountant().compose(dp.RandomizedResponse(1e300), 1).epsilon_bounds(1e-5)",
    "fixed_replace": "dp.PLDAccountant(relation='replace_one').compose(dp.FixedBatchGaussian(10, 100, 1e-3), 1)"
                     ".epsilon_bounds(1e-5)",
    "gauss_laplace": "dp.PLDAccountant().compose(dp.Gaussian(0.025), 1).compose(dp.Laplace(3.0), 1).epsilon_bounds(1e-5)",
    "calib_q_denormal": "dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=5e-324, steps=1000, accountant='pld')",
    "calib_q_1e-300": "dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=1e-300, steps=1000, accountant='pld')",
    "calib_q_denormal_rdp": "dp.calibrate_sigma(epsilon=1.0, delta=1e-5, q=5e-324, steps=1000, accountant='rdp')",
    "delta_inf": "dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 4.0), 10000).delta_bounds(float('inf'))",
    "delta_at_0": "dp.PLDAccountant().compose(dp.SampledGaussian(1e-9, 1.0), 10).delta_bounds(0.0)",
    "eps_delta_tiny": "dp.PLDAccountant().compose(dp.SampledGaussian(0.01, 4.0), 10000).epsilon_bounds(5e-324)",
    "rr800x3_delta1": "dp.PLDAccountant().compose(dp.RandomizedResponse(800.0), 3).delta_bounds(1.0)",
    "sampled_laplace_1e-3": "dp.PLDAccountant().compose(dp.SampledLaplace(0.5, 1e-3), 1).epsilon_bounds(1e-5)",
    "sg_sigma_1e-170": "dp.PLDAccountant().compose(dp.SampledGaussian(0.5, 1e-170), 2).epsilon_bounds(1e-5)",
}

_CHILD = """
import json, sys, time
import dpproofs as dp
start = time.perf_counter()
try:
    value = eval(sys.argv[1])
    text = repr(value) + (f" source={value.source}" if hasattr(value, "source") else "")
except Exception as error:  # the benchmark reports any exception; the library's own are DPProofsError
    text = f"{type(error).__module__}.{type(error).__name__}: {str(error).splitlines()[0][:150]}"
print(json.dumps([text, time.perf_counter() - start]))
"""


def run(name, timeout):
    start = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", _CHILD, CASES[name]], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"no answer within {timeout} s", time.perf_counter() - start
    try:
        return tuple(json.loads(done.stdout.strip().splitlines()[-1]))
    except (IndexError, json.JSONDecodeError):
        return "FAILED: " + (done.stderr.strip().splitlines() or ["no output"])[-1][:160], time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="cases to run (default: all)")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    for name in args.names or CASES:
        text, seconds = run(name, args.timeout)
        print(f"{name}: {text} in {seconds:.2f} s", flush=True)


if __name__ == "__main__":
    main()
